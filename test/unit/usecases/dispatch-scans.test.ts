import { describe, expect, it } from 'vitest';
import type { ClusterInfo } from '../../../src/domain/aws.ts';
import { RecordingScanQueue } from '../../../src/adapters/memory/outputs.ts';
import type { EksPort } from '../../../src/ports/aws.ts';
import { jsonLogger } from '../../../src/support/logger.ts';
import { inMemoryAws, type InMemoryAws } from '../../../src/simulator/in-memory-aws.ts';
import { dispatchScans, dispatchSettings } from '../../../src/usecases/dispatch-scans.ts';
import { readDispatchConfig } from '../../../src/config.ts';
import { cluster, snapshotOf } from '../../factories/aws.ts';

const TICK = new Date('2026-01-01T01:00:00.734Z');
const OPT_IN = { key: 'karpenter-sentinel/enabled', value: 'true' };
const optedIn = { 'karpenter-sentinel/enabled': 'true', team: 'platform' };

/** An account of several clusters: one in-memory AWS per cluster (recording its calls), one EKS port over them. */
function account(clusters: ClusterInfo[]) {
  const byName = new Map<string, InMemoryAws>(clusters.map((c) => [c.name, inMemoryAws(snapshotOf({ cluster: c }, c.name))]));
  let listCalls = 0;
  const eks: EksPort = {
    // ListClusters still names a cluster deleted since: DescribeCluster then finds it gone.
    listClusters: async () => {
      listCalls += 1;
      return clusters.map((c) => c.name);
    },
    describeCluster: (name) => byName.get(name)!.eks.describeCluster(name),
    fargateProfiles: async () => [],
    accessEntries: async () => [],
  };
  const describeCalls = () => [...byName.values()].reduce((n, a) => n + a.callsTo('DescribeCluster').length, 0);
  return { eks, byName, listCalls: () => listCalls, describeCalls };
}

function deps(eks: EksPort) {
  const lines: Record<string, unknown>[] = [];
  const logger = jsonLogger({}, (line) => lines.push(JSON.parse(line) as Record<string, unknown>));
  return { eks, queue: new RecordingScanQueue(), logger, lines };
}

describe('dispatchScans', () => {
  it('sends one request per cluster carrying the opt-in tag, stamped with the tick in ISO seconds', async () => {
    const aws = account([
      cluster({ name: 'shop-prod', tags: optedIn }),
      cluster({ name: 'shop-staging', tags: { 'karpenter-sentinel/enabled': 'false' } }),
      cluster({ name: 'data-dev', tags: { team: 'data' } }),
      cluster({ name: 'ml-prod', tags: optedIn }),
    ]);
    const d = deps(aws.eks);

    const summary = await dispatchScans(d, { clusters: undefined, optInTag: OPT_IN, region: 'eu-west-1' }, TICK);

    expect(d.queue.sent).toEqual([
      { cluster: 'shop-prod', requestedAt: '2026-01-01T01:00:00Z' },
      { cluster: 'ml-prod', requestedAt: '2026-01-01T01:00:00Z' },
    ]);
    expect(summary).toEqual({
      requestedAt: '2026-01-01T01:00:00Z',
      dispatched: ['shop-prod', 'ml-prod'],
      notFound: [],
      skipped: { optedOut: 2, notActive: 0, describeFailed: 0 },
    });
  });

  it('honours a custom opt-in tag key and value', async () => {
    const aws = account([
      cluster({ name: 'shop-prod', tags: optedIn }),
      cluster({ name: 'payments', tags: { 'sentinel.example.com/watch': 'yes' } }),
    ]);
    const d = deps(aws.eks);

    await dispatchScans(
      d,
      { clusters: undefined, optInTag: { key: 'sentinel.example.com/watch', value: 'yes' }, region: 'eu-west-1' },
      TICK,
    );

    expect(d.queue.sent.map((r) => r.cluster)).toEqual(['payments']);
  });

  it('with an explicit list, queues exactly those that exist, checked with one ListClusters and no DescribeCluster', async () => {
    const aws = account([
      cluster({ name: 'legacy-eks' }),
      cluster({ name: 'untagged-eks' }),
      cluster({ name: 'shop-prod', tags: optedIn }),
    ]);
    const d = deps(aws.eks);

    const summary = await dispatchScans(
      d,
      { clusters: ['legacy-eks', 'untagged-eks', 'legacy-eks'], optInTag: OPT_IN, region: 'eu-west-1' },
      TICK,
    );

    expect(d.queue.sent).toEqual([
      { cluster: 'legacy-eks', requestedAt: '2026-01-01T01:00:00Z' },
      { cluster: 'untagged-eks', requestedAt: '2026-01-01T01:00:00Z' },
    ]);
    expect(summary.dispatched).toEqual(['legacy-eks', 'untagged-eks']);
    expect(summary.notFound).toEqual([]);
    expect(aws.listCalls()).toBe(1);
    expect(aws.describeCalls()).toBe(0);
    expect(d.lines).toEqual([]);
  });

  it('names in the explicit list that EKS does not list are still queued (their scans report them): one WARN line for all', async () => {
    const aws = account([cluster({ name: 'shop-prod' }), cluster({ name: 'ml-prod' })]);
    const d = deps(aws.eks);

    const summary = await dispatchScans(
      d,
      { clusters: ['shop-prod', 'shop-prd', 'ml-prod', 'deleted-eks'], optInTag: OPT_IN, region: 'eu-west-1' },
      TICK,
    );

    expect(d.queue.sent.map((r) => r.cluster)).toEqual(['shop-prod', 'shop-prd', 'ml-prod', 'deleted-eks']);
    expect(summary.dispatched).toEqual(['shop-prod', 'shop-prd', 'ml-prod', 'deleted-eks']);
    expect(summary.notFound).toEqual(['shop-prd', 'deleted-eks']);
    expect(d.lines).toEqual([
      expect.objectContaining({
        level: 'warn',
        message: 'configured clusters not listed by EKS; queued all the same, their scans report them',
        clusters: ['shop-prd', 'deleted-eks'],
        region: 'eu-west-1',
        evidence: 'not in eks:ListClusters for this account in eu-west-1',
      }),
    ]);
    expect(JSON.stringify(d.lines)).not.toContain('DescribeCluster');
  });

  it('when ListClusters fails, the explicit list is queued whole (each scan reports a missing cluster itself), with a warning', async () => {
    const d = deps({
      listClusters: async () => {
        throw new Error('ThrottlingException: Rate exceeded');
      },
      describeCluster: async () => {
        throw new Error('not called');
      },
      fargateProfiles: async () => [],
      accessEntries: async () => [],
    });

    const summary = await dispatchScans(d, { clusters: ['shop-prod', 'shop-prd'], optInTag: OPT_IN, region: 'eu-west-1' }, TICK);

    expect(summary.dispatched).toEqual(['shop-prod', 'shop-prd']);
    expect(d.lines).toEqual([expect.objectContaining({ level: 'warn', error: expect.stringContaining('Rate exceeded') })]);
  });

  it('a cluster whose DescribeCluster fails is logged and skipped; the others still go', async () => {
    const aws = account([
      cluster({ name: 'shop-prod', tags: optedIn }),
      cluster({ name: 'payments-prod', tags: optedIn }),
      cluster({ name: 'ml-prod', tags: optedIn }),
    ]);
    aws.byName.get('payments-prod')!.faults.fail('DescribeCluster', {
      error: { code: 'AccessDeniedException', message: 'User is not authorized to perform: eks:DescribeCluster' },
    });
    const d = deps(aws.eks);

    const summary = await dispatchScans(d, { clusters: undefined, optInTag: OPT_IN, region: 'eu-west-1' }, TICK);

    expect(d.queue.sent.map((r) => r.cluster)).toEqual(['shop-prod', 'ml-prod']);
    expect(summary.skipped).toEqual({ optedOut: 0, notActive: 0, describeFailed: 1 });
    const warnings = d.lines.filter((l) => l.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ cluster: 'payments-prod' });
    expect(String(warnings[0]?.error)).toContain('AccessDeniedException');
  });

  it('skips clusters deleted since they were listed, being deleted or still being created', async () => {
    const gone = cluster({ name: 'old-eks', tags: optedIn });
    const aws = account([
      gone,
      cluster({ name: 'teardown-eks', status: 'DELETING', tags: optedIn }),
      cluster({ name: 'new-eks', status: 'CREATING', tags: optedIn }),
      cluster({ name: 'shop-prod', status: 'UPDATING', tags: optedIn }),
    ]);
    aws.byName.get('old-eks')!.state.cluster!.gone = true;
    const d = deps(aws.eks);

    const summary = await dispatchScans(d, { clusters: undefined, optInTag: OPT_IN, region: 'eu-west-1' }, TICK);

    expect(d.queue.sent.map((r) => r.cluster)).toEqual(['shop-prod']);
    expect(summary.skipped).toEqual({ optedOut: 0, notActive: 3, describeFailed: 0 });
  });

  it('sends nothing when no cluster is opted in', async () => {
    const aws = account([cluster({ name: 'data-dev', tags: {} })]);
    const d = deps(aws.eks);
    d.queue.failNext = new Error('a send would fail');

    const summary = await dispatchScans(d, { clusters: undefined, optInTag: OPT_IN, region: 'eu-west-1' }, TICK);

    expect(summary.dispatched).toEqual([]);
    expect(d.queue.sent).toEqual([]);
  });

  it('rejects when the queue refuses the requests, so the failure shows (the next tick sends them again)', async () => {
    const aws = account([cluster({ name: 'shop-prod', tags: optedIn })]);
    const d = deps(aws.eks);
    d.queue.failNext = new Error('SendMessageBatch failed for 1 of 1 scan requests: shop-prod (AccessDenied)');

    await expect(dispatchScans(d, { clusters: undefined, optInTag: OPT_IN, region: 'eu-west-1' }, TICK)).rejects.toThrow(
      /shop-prod/,
    );
  });

  it('describes clusters a few at a time', async () => {
    const names = Array.from({ length: 23 }, (_, i) => `team-${i}-eks`);
    let inFlight = 0;
    let most = 0;
    const eks: EksPort = {
      listClusters: async () => names,
      describeCluster: async (name) => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 2));
        inFlight -= 1;
        return cluster({ name, tags: optedIn });
      },
      fargateProfiles: async () => [],
      accessEntries: async () => [],
    };
    const d = deps(eks);

    const summary = await dispatchScans(d, { clusters: undefined, optInTag: OPT_IN, region: 'eu-west-1' }, TICK);

    expect(summary.dispatched).toHaveLength(23);
    expect(most).toBeGreaterThan(1);
    expect(most).toBeLessThanOrEqual(5);
  });

  it('dispatchSettings: the configuration the deployed function and npm run invoke read, down to what the use case uses', () => {
    const config = readDispatchConfig({
      AWS_REGION: 'eu-west-1',
      SCAN_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/111122223333/scan',
      CLUSTERS: 'shop-prod,ml-prod',
    });

    expect(dispatchSettings(config)).toEqual({ clusters: ['shop-prod', 'ml-prod'], optInTag: OPT_IN, region: 'eu-west-1' });
  });
});
