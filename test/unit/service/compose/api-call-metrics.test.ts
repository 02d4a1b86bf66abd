/**
 * The composition roots of `scan` and `interruptions` measure their AWS calls and send the datums
 * with the function's own EMF lines: the real clients they build, pointed at moto_server on
 * 127.0.0.1 (AWS_ENDPOINT_URL), and the EMF lines as written to stdout.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { readInterruptionsConfig, readLoggingConfig, readScanConfig } from '../../../../src/config.ts';
import { composeInterruptions } from '../../../../src/service/compose/interruptions.ts';
import { composeScan } from '../../../../src/service/compose/scan.ts';
import { startMoto, type Moto } from '../../../support/moto.ts';

const AT = new Date('2026-03-01T12:00:00Z');
const ENV = {
  AWS_REGION: 'eu-west-1',
  STATE_TABLE: 'state',
  ALERT_TOPIC_ARN: 'arn:aws:sns:eu-west-1:111122223333:karpenter-sentinel-alerts',
};

let moto: Moto;
beforeAll(async () => {
  moto = await startMoto();
}, 20_000);
afterAll(() => moto?.close());
afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

function towardsMoto(): void {
  vi.stubEnv('AWS_ENDPOINT_URL', moto.endpoint);
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDEXAMPLE');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'not-a-secret');
}

/** The EMF documents `put` writes to stdout. */
async function emfOf(put: () => Promise<void>): Promise<Record<string, unknown>[]> {
  const written: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
  await put();
  vi.mocked(process.stdout.write).mockRestore();
  return written
    .join('')
    .split('\n')
    .filter((line) => line.includes('"_aws"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('the composition roots measure their AWS calls', () => {
  it('scan: the calls of a cluster connection go out with the scan’s datums', async () => {
    towardsMoto();
    const deps = composeScan(readScanConfig(ENV), readLoggingConfig({}));
    const connection = await deps.connect('shop-prod');

    const described = await connection.aws.eks.describeCluster('shop-prod');
    const documents = await emfOf(() =>
      deps.metrics.put([{ name: 'ScanDurationMs', unit: 'Milliseconds', value: 900, dimensions: { Cluster: 'shop-prod' } }], AT),
    );

    expect(described).toMatchObject({ name: 'shop-prod', gone: true });
    expect(documents).toContainEqual(expect.objectContaining({ Cluster: 'shop-prod', ScanDurationMs: 900 }));
    expect(documents).toContainEqual(expect.objectContaining({ Api: 'eks:DescribeCluster', Outcome: 'ok', ApiCalls: 1 }));
  });

  it('interruptions: its DescribeInstances calls go out with the interruption datums', async () => {
    towardsMoto();
    const deps = composeInterruptions(readInterruptionsConfig(ENV), readLoggingConfig({}));

    await deps.ec2.describeInstances({ instanceIds: ['i-0123456789abcdef0'] });
    const documents = await emfOf(() =>
      deps.metrics.put([{ name: 'InterruptionEvents', unit: 'Count', value: 1, dimensions: { Kind: 'SpotInterruption' } }], AT),
    );

    expect(documents).toContainEqual(expect.objectContaining({ Api: 'ec2:DescribeInstances', Outcome: 'ok', ApiCalls: 1 }));
    expect(documents).toContainEqual(
      expect.objectContaining({ Api: 'ec2:DescribeInstances', ApiCallDurationMs: expect.any(Number) }),
    );
  });
});
