/**
 * Ec2Adapter.describeSpotPrices (docs/cost.md, "Prices"): one DescribeSpotPriceHistory for the Spot
 * types in play, the current Linux price of each zone. moto never paginates, so the pages are
 * tested here with a mocked client; ec2-moto.test.ts runs the real protocol.
 */
import {
  DescribeSpotPriceHistoryCommand,
  type DescribeSpotPriceHistoryCommandInput,
  type DescribeSpotPriceHistoryCommandOutput,
} from '@aws-sdk/client-ec2';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { Ec2Adapter } from '../../../src/adapters/aws/ec2.ts';
import { ec2Client, ec2Error, pagesOf } from './sdk-fixtures.ts';

const client = ec2Client();
const ec2 = mockClient(client);
afterEach(() => ec2.reset());

const row = (type: string, zone: string, price: string) => ({
  AvailabilityZone: zone,
  InstanceType: type as 'm5.large',
  ProductDescription: 'Linux/UNIX' as const,
  SpotPrice: price,
  Timestamp: new Date('2026-11-29T04:12:00Z'),
});

describe('Ec2Adapter.describeSpotPrices', () => {
  it("asks once for the types (each once), Linux/UNIX by ProductDescriptions, from now, and reads the prices as the CLI's", async () => {
    // Prepare
    const pages = pagesOf<DescribeSpotPriceHistoryCommandInput, DescribeSpotPriceHistoryCommandOutput>(
      { SpotPriceHistory: [row('m5.large', 'us-east-1a', '0.034500')], NextToken: 'next', $metadata: {} },
      { SpotPriceHistory: [row('c5.xlarge', 'us-east-1b', '0.061200')], NextToken: '', $metadata: {} },
    );
    ec2.on(DescribeSpotPriceHistoryCommand).callsFake(pages.answer);
    const before = Date.now();

    // Act
    const prices = await new Ec2Adapter(client).describeSpotPrices(['m5.large', 'c5.xlarge', 'm5.large']);

    // Assess
    expect(prices).toEqual([
      {
        instanceType: 'm5.large',
        availabilityZone: 'us-east-1a',
        usd: 0.0345,
        timestamp: '2026-11-29T04:12:00.000Z',
        productDescription: 'Linux/UNIX',
      },
      expect.objectContaining({ instanceType: 'c5.xlarge', usd: 0.0612 }),
    ]);
    const [first, second] = pages.inputs;
    expect(first).toMatchObject({
      InstanceTypes: ['c5.xlarge', 'm5.large'],
      ProductDescriptions: ['Linux/UNIX'],
      MaxResults: 1000,
    });
    expect(first?.Filters).toBeUndefined();
    expect(first?.StartTime?.getTime()).toBeGreaterThanOrEqual(before);
    expect(second).toMatchObject({ NextToken: 'next' });
    expect(pages.inputs).toHaveLength(2);
  });

  it('asks nothing for no types, and stops an endless NextToken after a few pages', async () => {
    ec2
      .on(DescribeSpotPriceHistoryCommand)
      .resolves({ SpotPriceHistory: [row('m5.large', 'us-east-1a', '0.03')], NextToken: 'again' });
    const adapter = new Ec2Adapter(client);

    expect(await adapter.describeSpotPrices([])).toEqual([]);
    expect(ec2.commandCalls(DescribeSpotPriceHistoryCommand)).toHaveLength(0);

    await expect(adapter.describeSpotPrices(['m5.large'])).rejects.toMatchObject({ code: 'TooManyPages' });
    expect(ec2.commandCalls(DescribeSpotPriceHistoryCommand)).toHaveLength(6);
  });

  it('a denied call is a SourceError naming DescribeSpotPriceHistory; a price that is no number is skipped, as a captured one is', async () => {
    ec2
      .on(DescribeSpotPriceHistoryCommand)
      .rejectsOnce(ec2Error('UnauthorizedOperation', 'You are not authorized to perform this operation.'))
      .resolvesOnce({ SpotPriceHistory: [row('m5.large', 'us-east-1a', 'free')] });
    const adapter = new Ec2Adapter(client);

    await expect(adapter.describeSpotPrices(['m5.large'])).rejects.toMatchObject({
      code: 'UnauthorizedOperation',
      summary: 'DescribeSpotPriceHistory failed: UnauthorizedOperation: You are not authorized to perform this operation.',
    });
    expect(await adapter.describeSpotPrices(['m5.large'])).toEqual([]);
  });
});
