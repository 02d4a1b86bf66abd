/**
 * The composition roots measure their AWS calls and write the datums as EMF lines: `scan` and
 * `interruptions` with the function's own datums, and every function's calls no put carried when
 * its invocation ends (the `afterInvocation` hook), whether the handler answered or failed. The
 * real clients they build, pointed at moto_server on 127.0.0.1 (AWS_ENDPOINT_URL), and the EMF
 * lines as written to stdout.
 */
import { CreateClusterCommand, EKSClient } from '@aws-sdk/client-eks';
import { CreateQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { ScheduledEvent } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  readCleanupConfig,
  readDispatchConfig,
  readInterruptionsConfig,
  readLoggingConfig,
  readScanConfig,
} from '../../../../src/config.ts';
import { composeCleanup } from '../../../../src/service/compose/cleanup.ts';
import { composeInterruptions } from '../../../../src/service/compose/interruptions.ts';
import { composeScan } from '../../../../src/service/compose/scan.ts';
import { composeScanDispatch } from '../../../../src/service/compose/scan-dispatch.ts';
import { createCleanupHandler } from '../../../../src/service/handlers/cleanup.ts';
import { createScanDispatchHandler } from '../../../../src/service/handlers/scan-dispatch.ts';
import { lambdaContext, sampleEvent } from '../../../support/lambda.ts';
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

/** The EMF documents `put` writes to stdout (the log lines, on stdout and stderr, are left out). */
async function emfOf(put: () => Promise<unknown>): Promise<Record<string, unknown>[]> {
  const written: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
  vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    await put();
  } finally {
    vi.mocked(process.stdout.write).mockRestore();
    vi.mocked(process.stderr.write).mockRestore();
  }
  return written
    .join('')
    .split('\n')
    .filter((line) => line.includes('"_aws"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

const MOTO_CLIENT = () => ({
  region: 'eu-west-1',
  endpoint: moto.endpoint,
  credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'x' },
});

/** An opted-in cluster in moto's EKS; moto's SQS holds `queue` when given. */
async function motoAccount(cluster: string, queue?: string): Promise<string | undefined> {
  await new EKSClient(MOTO_CLIENT()).send(
    new CreateClusterCommand({
      name: cluster,
      roleArn: 'arn:aws:iam::123456789012:role/eks-cluster',
      resourcesVpcConfig: { subnetIds: ['subnet-0abc'] },
      tags: { 'karpenter-sentinel/enabled': 'true' },
    }),
  );
  if (!queue) return undefined;
  return (await new SQSClient(MOTO_CLIENT()).send(new CreateQueueCommand({ QueueName: queue }))).QueueUrl;
}

/** The EMF documents of the calls to `api`: its count by outcome and its durations. */
function callsTo(documents: readonly Record<string, unknown>[], api: string) {
  const of = documents.filter((d) => d.Api === api);
  return {
    outcomes: Object.fromEntries(of.filter((d) => 'ApiCalls' in d).map((d) => [d.Outcome, d.ApiCalls])),
    timed: of.some((d) => 'ApiCallDurationMs' in d),
  };
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

describe('every function writes its calls when the invocation ends', () => {
  it('scan-dispatch: the EKS calls of a tick reach its EMF output', async () => {
    towardsMoto();
    const queueUrl = await motoAccount('shop-prod', 'scan-queue');
    const handler = createScanDispatchHandler(
      composeScanDispatch(readDispatchConfig({ AWS_REGION: 'eu-west-1', SCAN_QUEUE_URL: queueUrl }), readLoggingConfig({})),
    );

    const documents = await emfOf(() => handler(sampleEvent<ScheduledEvent>('scan-dispatch.schedule'), lambdaContext()));

    expect(callsTo(documents, 'eks:ListClusters')).toEqual({ outcomes: { ok: 1 }, timed: true });
    expect(callsTo(documents, 'eks:DescribeCluster')).toEqual({ outcomes: { ok: 1 }, timed: true });
  });

  it('scan-dispatch: when the handler fails (its queue does not exist), the calls made before still go out and the error stands', async () => {
    towardsMoto();
    await motoAccount('payments-prod');
    const env = {
      AWS_REGION: 'eu-west-1',
      SCAN_QUEUE_URL: `${moto.endpoint}/123456789012/no-such-queue`,
      CLUSTERS: 'payments-prod',
    };
    const handler = createScanDispatchHandler(composeScanDispatch(readDispatchConfig(env), readLoggingConfig({})));
    let failure: unknown;

    const documents = await emfOf(() =>
      handler(sampleEvent<ScheduledEvent>('scan-dispatch.schedule'), lambdaContext()).catch((error: unknown) => {
        failure = error;
      }),
    );

    expect(String(failure)).toMatch(/payments-prod/);
    expect(callsTo(documents, 'eks:ListClusters')).toEqual({ outcomes: { ok: 1 }, timed: true });
  });

  it('cleanup: the EKS, EC2 and IAM calls of a dry run reach its EMF output', async () => {
    towardsMoto();
    const handler = createCleanupHandler(composeCleanup(readCleanupConfig({ AWS_REGION: 'eu-west-1' }), readLoggingConfig({})));

    const documents = await emfOf(() => handler(sampleEvent('cleanup.dry-run'), lambdaContext({}, 900_000)));

    // A cluster moto does not know: its leftovers are still looked for, with the same calls.
    for (const api of ['eks:DescribeCluster', 'ec2:DescribeInstances', 'iam:ListInstanceProfiles+ListInstanceProfileTags']) {
      expect(callsTo(documents, api), api).toEqual({ outcomes: { ok: expect.any(Number) }, timed: true });
    }
  });

  it('scan and interruptions: calls no put of theirs carried (a duplicate delivery puts none) go out as the invocation ends', async () => {
    towardsMoto();
    const scan = composeScan(readScanConfig(ENV), readLoggingConfig({}));
    const interruptions = composeInterruptions(readInterruptionsConfig(ENV), readLoggingConfig({}));
    await (await scan.connect('shop-prod')).aws.eks.describeCluster('shop-prod');
    await interruptions.ec2.describeInstances({ instanceIds: ['i-0123456789abcdef0'] });

    const documents = await emfOf(async () => {
      await scan.afterInvocation?.();
      await interruptions.afterInvocation?.();
    });

    expect(callsTo(documents, 'eks:DescribeCluster')).toEqual({ outcomes: { ok: 1 }, timed: true });
    expect(callsTo(documents, 'ec2:DescribeInstances')).toEqual({ outcomes: { ok: 1 }, timed: true });
  });
});
