import { afterEach, describe, expect, it } from 'vitest';
import { loadSnapshot, snapshotFromFiles } from '../../../src/snapshot/load.ts';
import { awsCliDocuments } from '../../../src/snapshot/write/aws-cli-shape.ts';
import { captureDir, removeCaptureDirs } from './capture-dir.ts';

afterEach(removeCaptureDirs);

/** `aws ec2 describe-spot-price-history --instance-types m5.large --product-descriptions Linux/UNIX --start-time NOW`. */
const HISTORY = {
  SpotPriceHistory: [
    {
      AvailabilityZone: 'us-east-1a',
      InstanceType: 'm5.large',
      ProductDescription: 'Linux/UNIX',
      SpotPrice: '0.034500',
      Timestamp: '2026-11-29T04:12:00+00:00',
    },
    {
      AvailabilityZone: 'us-east-1b',
      InstanceType: 'm5.large',
      ProductDescription: 'Linux/UNIX',
      SpotPrice: '0.036100',
      Timestamp: '2026-11-29T03:40:00+00:00',
    },
  ],
};

describe('loadSnapshot: aws ec2 describe-spot-price-history', () => {
  it('reads each price in dollars with its zone and time, and each instance its lifecycle; snapshot --out writes them back', async () => {
    // Prepare
    const dir = await captureDir({
      'spot-prices.json': HISTORY,
      'instances.json': {
        Reservations: [
          {
            Instances: [
              {
                InstanceId: 'i-0aaaaaaaaaaaaaaa1',
                InstanceType: 'm5.large',
                InstanceLifecycle: 'spot',
                State: { Name: 'running' },
              },
            ],
          },
        ],
      },
    });

    // Act
    const { snapshot } = await loadSnapshot([dir]);
    const written = awsCliDocuments(snapshot).map((d) => ({ path: d.name, text: d.text }));
    const again = snapshotFromFiles(written).snapshot;

    // Assess
    expect(snapshot.gaps).toEqual([]);
    expect(snapshot.spotPrices).toEqual([
      {
        instanceType: 'm5.large',
        availabilityZone: 'us-east-1a',
        usd: 0.0345,
        timestamp: '2026-11-29T04:12:00+00:00',
        productDescription: 'Linux/UNIX',
      },
      expect.objectContaining({ availabilityZone: 'us-east-1b', usd: 0.0361 }),
    ]);
    expect(snapshot.instances[0]?.lifecycle).toBe('spot');
    expect(written.map((w) => w.path).sort()).toEqual(['describe-instances.json', 'spot-prices.json']);
    expect(again.spotPrices).toEqual(snapshot.spotPrices);
    expect(again.instances).toEqual(snapshot.instances);
  });

  it('skips a price that is not a number, in one line naming it, and keeps the others; a saved denial is a gap of spotprices', async () => {
    const bad = await captureDir({
      'spot-prices.json': {
        SpotPriceHistory: [{ ...HISTORY.SpotPriceHistory[0], SpotPrice: '$0.03\u001b[2J' }, HISTORY.SpotPriceHistory[1]],
      },
    });
    const denied = await captureDir({
      'spot-prices.json':
        '\nAn error occurred (UnauthorizedOperation) when calling the DescribeSpotPriceHistory operation: You are not authorized to perform this operation.\n',
    });

    const badLoad = await loadSnapshot([bad]).then(
      (r) => r.notices.join('\n'),
      (e: unknown) => String(e),
    );
    const { snapshot } = await loadSnapshot([denied]);

    const kept = await loadSnapshot([bad]);

    expect(badLoad).toMatch(/skipped 1 Spot price row .*SpotPriceHistory\[0\] \(m5\.large\) has no SpotPrice in dollars/);
    expect(badLoad).not.toContain('\u001b');
    expect(kept.snapshot.spotPrices).toEqual([expect.objectContaining({ availabilityZone: 'us-east-1b', usd: 0.0361 })]);
    expect(kept.snapshot.gaps).toEqual([]);
    expect(snapshot.gaps).toEqual([
      {
        source: 'spotprices',
        error: expect.stringContaining('DescribeSpotPriceHistory failed: UnauthorizedOperation'),
      },
    ]);
  });
});
