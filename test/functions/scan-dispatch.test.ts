/**
 * The scan-dispatch function fed events/scan-dispatch.schedule.json: in-memory EKS (one simulated
 * account per cluster) and a recording scan queue; then what it queued fed to the scan function.
 */
import type { ScheduledEvent, SQSEvent } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RecordingScanQueue } from '../../src/adapters/memory/outputs.ts';
import { readDispatchConfig } from '../../src/config.ts';
import type { ClusterInfo } from '../../src/domain/aws.ts';
import type { EksPort } from '../../src/ports/aws.ts';
import type { ScanRequest } from '../../src/ports/notify.ts';
import { createScanDispatchHandler } from '../../src/service/handlers/scan-dispatch.ts';
import { jsonLogger } from '../../src/support/logger.ts';
import { inMemoryAws, type InMemoryAws } from '../../src/simulator/in-memory-aws.ts';
import { cluster, snapshotOf } from '../factories/aws.ts';
import { startLocalDynamo, type LocalDynamo } from '../support/dynalite.ts';
import { lambdaContext, sampleEvent } from '../support/lambda.ts';
import { steppingClock } from '../support/clock.ts';
import { FARGATE, HEALTHY, ORPHANS, startScanService, type ScanService } from './scan-harness.ts';

const QUEUE_URL = 'https://sqs.eu-west-1.amazonaws.com/111122223333/karpenter-sentinel-dev-scan';
const OPTED_IN = { 'karpenter-sentinel/enabled': 'true' };

/** EKS of an account holding these clusters, each answered by its own in-memory AWS. */
function eksOf(accounts: readonly InMemoryAws[]): EksPort {
  const byName = new Map(accounts.map((a) => [a.state.cluster!.name, a]));
  return {
    listClusters: async () => (await Promise.all(accounts.map((a) => a.eks.listClusters()))).flat(),
    describeCluster: (name) => byName.get(name)!.eks.describeCluster(name),
    fargateProfiles: (name) => byName.get(name)!.eks.fargateProfiles(name),
    accessEntries: (name) => byName.get(name)!.eks.accessEntries(name),
  };
}

function accountOf(clusters: readonly ClusterInfo[]): InMemoryAws[] {
  return clusters.map((c) => inMemoryAws(snapshotOf({ cluster: c }, c.name), { region: 'eu-west-1' }));
}

function dispatcher(eks: EksPort, env: Record<string, string> = {}) {
  const queue = new RecordingScanQueue();
  const logs: Record<string, unknown>[] = [];
  const handler = createScanDispatchHandler({
    eks,
    queue,
    clock: steppingClock('2026-01-01T01:00:02Z'),
    logger: jsonLogger({}, (line) => logs.push(JSON.parse(line) as Record<string, unknown>)),
    settings: readDispatchConfig({ AWS_REGION: 'eu-west-1', SCAN_QUEUE_URL: QUEUE_URL, ...env }),
  });
  return { queue, logs, invoke: (event: ScheduledEvent) => handler(event, lambdaContext()) };
}

describe('scan-dispatch', () => {
  it('a schedule tick queues one request per opted-in cluster, stamped with the tick time', async () => {
    const accounts = accountOf([
      cluster({ name: 'shop-prod', tags: OPTED_IN }),
      cluster({ name: 'shop-sandbox', tags: { team: 'shop' } }),
      cluster({ name: 'ml-prod', tags: OPTED_IN }),
    ]);
    const { queue, logs, invoke } = dispatcher(eksOf(accounts));

    const summary = await invoke(sampleEvent<ScheduledEvent>('scan-dispatch.schedule'));

    expect(queue.sent).toEqual([
      { cluster: 'shop-prod', requestedAt: '2026-01-01T01:00:00Z' },
      { cluster: 'ml-prod', requestedAt: '2026-01-01T01:00:00Z' },
    ]);
    expect(summary).toMatchObject({ dispatched: ['shop-prod', 'ml-prod'], skipped: { optedOut: 1 } });
    expect(logs.at(-1)).toMatchObject({ message: 'invocation done', function: 'scan-dispatch', dispatched: 2, optedOut: 1 });
  });

  it('CLUSTERS set: checked with ListClusters only; a name it does not list is one WARN line and is queued all the same', async () => {
    const accounts = accountOf([cluster({ name: 'payments-prod' }), cluster({ name: 'shop-prod', tags: OPTED_IN })]);
    const { queue, logs, invoke } = dispatcher(eksOf(accounts), { CLUSTERS: 'payments-prod, payments-prd' });

    await invoke(sampleEvent<ScheduledEvent>('scan-dispatch.schedule'));

    expect(queue.sent.map((r) => r.cluster)).toEqual(['payments-prod', 'payments-prd']);
    expect(accounts.flatMap((a) => a.calls.map((c) => c.operation))).toEqual(['ListClusters', 'ListClusters']);
    expect(logs.filter((l) => l.level === 'warn')).toEqual([
      expect.objectContaining({
        clusters: ['payments-prd'],
        region: 'eu-west-1',
        evidence: 'not in eks:ListClusters for this account in eu-west-1',
      }),
    ]);
    expect(logs.at(-1)).toMatchObject({ message: 'invocation done', dispatched: 2, notFound: 1 });
  });

  it('a DescribeCluster failure skips only that cluster', async () => {
    const accounts = accountOf([
      cluster({ name: 'shop-prod', tags: OPTED_IN }),
      cluster({ name: 'payments-prod', tags: OPTED_IN }),
    ]);
    accounts[1]!.faults.fail('DescribeCluster', {
      error: { code: 'ThrottlingException', message: 'Rate exceeded' },
      times: 'always',
    });
    const { queue, logs, invoke } = dispatcher(eksOf(accounts));

    await invoke(sampleEvent<ScheduledEvent>('scan-dispatch.schedule'));

    expect(queue.sent.map((r) => r.cluster)).toEqual(['shop-prod']);
    expect(logs.filter((l) => l.level === 'warn')).toEqual([
      expect.objectContaining({ cluster: 'payments-prod', error: expect.stringContaining('ThrottlingException') }),
    ]);
  });

  it('an event without a readable time is stamped with the clock', async () => {
    const accounts = accountOf([cluster({ name: 'shop-prod', tags: OPTED_IN })]);
    const { queue, invoke } = dispatcher(eksOf(accounts));
    const event = { ...sampleEvent<ScheduledEvent>('scan-dispatch.schedule'), time: '' };

    await invoke(event);

    expect(queue.sent).toEqual([{ cluster: 'shop-prod', requestedAt: '2026-01-01T01:00:02Z' }]);
  });

  it('fails the invocation, in one log line, when the clusters cannot be listed', async () => {
    const accounts = accountOf([cluster({ name: 'shop-prod', tags: OPTED_IN })]);
    accounts[0]!.faults.fail('ListClusters', {
      error: { code: 'AccessDeniedException', message: 'not authorized: eks:ListClusters' },
    });
    const { queue, logs, invoke } = dispatcher(eksOf(accounts));

    await expect(invoke(sampleEvent<ScheduledEvent>('scan-dispatch.schedule'))).rejects.toThrow(/ListClusters/);

    expect(queue.sent).toEqual([]);
    expect(logs).toEqual([expect.objectContaining({ level: 'error', message: 'invocation failed', function: 'scan-dispatch' })]);
  });
});

describe('scan-dispatch → scan', () => {
  let dynamo: LocalDynamo;
  let scan: ScanService | undefined;
  beforeAll(async () => {
    dynamo = await startLocalDynamo();
  });
  afterEach(async () => {
    await scan?.close();
    scan = undefined;
  });
  afterAll(async () => {
    await dynamo.close();
  });

  /** What SqsScanQueue sends, as the scan function receives it. */
  function asSqsEvent(requests: readonly ScanRequest[]): SQSEvent {
    const [template] = sampleEvent<SQSEvent>('scan.message').Records;
    return {
      Records: requests.map((request, i) => ({
        ...template!,
        messageId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        body: JSON.stringify(request),
      })),
    };
  }

  it('the opted-in clusters are scanned; a re-sent tick queues the same requests, which change nothing', async () => {
    scan = await startScanService(dynamo, { clusters: [FARGATE, ORPHANS, HEALTHY] });
    const simulated = [FARGATE, ORPHANS, HEALTHY].map((name) => scan!.cluster(name).aws);
    for (const aws of simulated.slice(0, 2)) aws.state.cluster!.tags = { ...aws.state.cluster!.tags, ...OPTED_IN };
    const { queue, invoke } = dispatcher(eksOf(simulated));
    const tick = sampleEvent<ScheduledEvent>('scan-dispatch.schedule');

    await invoke(tick);
    const first = await scan.invoke(asSqsEvent(queue.sent));
    const alerts = scan.alerts.published.length;
    // The same event again (an async retry, a replay): same tick, same requests.
    await invoke(tick);
    const retried = await scan.invoke(asSqsEvent(queue.sent.slice(2)));

    expect(queue.sent.map((r) => r.cluster)).toEqual([FARGATE, ORPHANS, FARGATE, ORPHANS]);
    expect(first.batchItemFailures).toEqual([]);
    expect(retried.batchItemFailures).toEqual([]);
    expect(new Set(scan.alerts.published.map((a) => a.cluster))).toEqual(new Set([FARGATE, ORPHANS]));
    expect(scan.alerts.published).toHaveLength(alerts);
    expect(scan.connects.get(FARGATE)).toBe(1);
    expect(scan.connects.get(HEALTHY)).toBeUndefined();
  });

  it('a deleted cluster left in CLUSTERS: queued with one WARN; its scan raises CLUSTER_NOT_FOUND and finds the orphans tagged for it', async () => {
    scan = await startScanService(dynamo, { clusters: [ORPHANS] });
    const aws = scan.cluster(ORPHANS).aws;
    aws.state.cluster!.gone = true;
    const { queue, logs, invoke } = dispatcher(eksOf([aws]), { CLUSTERS: ORPHANS });

    await invoke(sampleEvent<ScheduledEvent>('scan-dispatch.schedule'));
    const scanned = await scan.invoke(asSqsEvent(queue.sent));

    expect(queue.sent.map((r) => r.cluster)).toEqual([ORPHANS]);
    expect(logs.filter((l) => l.level === 'warn')).toEqual([expect.objectContaining({ clusters: [ORPHANS] })]);
    expect(scanned.batchItemFailures).toEqual([]);
    expect(scan.alerts.published.map((a) => `${a.event} ${a.code}`).sort()).toEqual([
      'opened CLUSTER_NOT_FOUND',
      'opened INSTANCE_PROVENANCE_UNPROVEN',
      'opened ORPHANED_INSTANCE',
      'opened ORPHANED_INSTANCE',
    ]);
    expect(scan.metrics.datums.filter((d) => d.name === 'ClustersNotFound' && !d.dimensions.Cluster)).toEqual([
      { name: 'ClustersNotFound', unit: 'Count', value: 1, dimensions: {} },
    ]);
  });
});
