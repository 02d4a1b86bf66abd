/**
 * How many requests a scan makes to its state table (docs/service.md, "State round trips"): every
 * request the DynamoDB client sends to dynalite is counted, by operation (bench/state-round-trips.ts
 * measures the same scenarios for BENCHMARKS.md). A quiet scan of a healthy
 * cluster must not pay for what it does not use.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { countingClient, startLocalDynamo, type LocalDynamo } from '../support/dynalite.ts';
import type { AlertPublisher } from '../../src/ports/notify.ts';
import type { StateStore } from '../../src/ports/state.ts';
import {
  FARGATE,
  HEALTHY,
  minutesAfterTick,
  ORPHANS,
  scanMessage,
  startScanService,
  type ScanService,
  type ScanServiceOptions,
} from './scan-harness.ts';

let dynamo: LocalDynamo;
beforeAll(async () => {
  dynamo = await startLocalDynamo();
});
afterAll(async () => {
  await dynamo.close();
});

const services: ScanService[] = [];
const clients: DynamoDBClient[] = [];
afterEach(async () => {
  await Promise.all(services.splice(0).map((s) => s.close()));
  for (const client of clients.splice(0)) client.destroy();
});

async function serviceFor(cluster: string, options: Omit<ScanServiceOptions, 'clusters'> = {}): Promise<Counted> {
  const { client, sent } = countingClient(dynamo.endpoint);
  clients.push(client);
  const service = await startScanService(dynamo, { ...options, clusters: [cluster], dynamoClient: client });
  services.push(service);
  return { service, sent, cluster };
}

interface Counted {
  service: ScanService;
  sent: string[];
  cluster: string;
}

/** The requests of one scan requested `minutes` after the tick (run 5 s later), and the alerts it sent. */
async function scanAt({ service, sent, cluster }: Counted, minutes: number): Promise<{ requests: string[]; alerts: number }> {
  const from = sent.length;
  const before = service.alerts.published.length;
  service.clock.set(minutesAfterTick(minutes, 5));
  const response = await service.invoke(scanMessage(cluster, minutesAfterTick(minutes)));
  return {
    requests: sent.slice(from),
    alerts: response.batchItemFailures.length > 0 ? -1 : service.alerts.published.length - before,
  };
}

/** Operations and how often each was requested. */
function byOperation(requests: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of requests) counts[r] = (counts[r] ?? 0) + 1;
  return counts;
}

/** The state table, with `late` (when set) run once just before the next lease release: writes landing after the releasing scan's reads. */
function writingBeforeRelease(late: { writes?: () => Promise<void> }) {
  return (state: StateStore): StateStore =>
    new Proxy(state, {
      get(target, name, receiver) {
        const value: unknown = Reflect.get(target, name, receiver);
        if (typeof value !== 'function') return value;
        // The store's private fields need the store itself as `this`.
        if (name !== 'releaseLease') return (value as (...a: unknown[]) => unknown).bind(target);
        return async (...args: unknown[]): Promise<unknown> => {
          const writes = late.writes;
          late.writes = undefined;
          await writes?.();
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
}

/** The state table, whose open-alert query fails while `failing.now` is set (DynamoDB throttling that one partition). */
function openAlertsFailing(failing: { now: boolean }) {
  return (state: StateStore): StateStore =>
    new Proxy(state, {
      get(target, name, receiver) {
        const value: unknown = Reflect.get(target, name, receiver);
        if (typeof value !== 'function') return value;
        // The store's private fields need the store itself as `this`.
        if (name !== 'openAlerts') return (value as (...a: unknown[]) => unknown).bind(target);
        return (...args: unknown[]): unknown =>
          failing.now
            ? Promise.reject(new Error('Query failed: ProvisionedThroughputExceededException: Throughput exceeds the limit'))
            : (value as (...a: unknown[]) => unknown).apply(target, args);
      },
    });
}

/** The topic refuses its first publish (SNS throttling): that scan fails and its message is retried. */
function topicRefusingOnce(alerts: AlertPublisher): AlertPublisher {
  let refused = false;
  return {
    publish: async (batch) => {
      if (!refused) {
        refused = true;
        throw new Error('SNS Publish failed: ThrottledException: Rate exceeded');
      }
      return alerts.publish(batch);
    },
  };
}

describe('scan: requests to the state table', () => {
  it('a quiet scan of a healthy cluster makes 4: claim the message, take the lease, mark it done, release the lease', async () => {
    const healthy = await serviceFor(HEALTHY);

    const first = await scanAt(healthy, 0);
    const quiet = await scanAt(healthy, 1);

    // The first scan knows nothing of the records yet: it reads the outbox, the cooldowns and the open alerts.
    expect(first.requests.filter((r) => r === 'Query')).toHaveLength(3);
    expect(quiet).toEqual({ requests: ['PutItem', 'PutItem', 'PutItem', 'PutItem'], alerts: 0 });
  });

  it('with open alerts and nothing new, only the open alerts are read: 5 requests, no alert', async () => {
    const orphans = await serviceFor(ORPHANS);
    const opened = await scanAt(orphans, 0);

    const withOpen = await scanAt(orphans, 1);

    expect(opened.alerts).toBe(3);
    expect(withOpen).toEqual({ requests: ['PutItem', 'PutItem', 'Query', 'PutItem', 'PutItem'], alerts: 0 });
  });

  it('one new finding alert: the open alerts read, the new one saved: 6 requests', async () => {
    const orphans = await serviceFor(ORPHANS);
    await scanAt(orphans, 0);

    // The young instance outlived its grace period (launched 2 min before the tick, 10 min grace).
    const oneNew = await scanAt(orphans, 9);

    expect(oneNew.alerts).toBe(1);
    expect(oneNew.requests).toHaveLength(6);
    expect((await orphans.service.state.openAlerts(ORPHANS)).length).toBe(4);
  });

  it('after a scan that failed, the retry reads every record again: a failed scan leaves no summary', async () => {
    const orphans = await serviceFor(ORPHANS, { wrap: { alerts: topicRefusingOnce } });
    await scanAt(orphans, 0);
    const failed = orphans.service.alerts.published.length;

    const retry = await scanAt(orphans, 1);

    expect(failed).toBe(0);
    expect(retry.alerts).toBe(3);
    expect(retry.requests.filter((r) => r === 'Query')).toHaveLength(3);
  });

  it('an unchanged controller status is not written again; a changed one is, at once', async () => {
    const healthy = await serviceFor(HEALTHY);
    await scanAt(healthy, 0);
    await scanAt(healthy, 1);
    const unchanged = (await healthy.service.state.clusterStatuses([HEALTHY])).get(HEALTHY);
    // One of the two controller replicas stops being ready.
    const store = healthy.service.cluster(HEALTHY).kubeApi.store;
    const controller = store.list('deployments').find((d) => d.name === 'karpenter')!;
    const object = structuredClone(controller.object) as { status: { readyReplicas: number } };
    object.status.readyReplicas = 1;
    store.put('deployments', object);

    await scanAt(healthy, 2);
    const changed = (await healthy.service.state.clusterStatuses([HEALTHY])).get(HEALTHY);

    expect(unchanged).toMatchObject({ controller: 'available', readyReplicas: 2, observedAt: minutesAfterTick(0, 5) });
    expect(changed).toMatchObject({ controller: 'available', readyReplicas: 1, observedAt: minutesAfterTick(2, 5) });
  });

  it('a controller seen unavailable is written by every scan: the interruptions function trusts only a young reading', async () => {
    const fargate = await serviceFor(FARGATE);
    await scanAt(fargate, 0);

    await scanAt(fargate, 1);

    expect((await fargate.service.state.clusterStatuses([FARGATE])).get(FARGATE)).toMatchObject({
      controller: 'unavailable',
      observedAt: minutesAfterTick(1, 5),
    });
  });

  it('a restart: its outbox entry, outcome, cooldown and delivery on top; the next scans read the cooldowns until the last one ends', async () => {
    const fargate = await serviceFor(FARGATE);

    const restart = await scanAt(fargate, 0);
    const next = await scanAt(fargate, 1);
    const cooling = await scanAt(fargate, 2);
    // RESTART_COOLDOWN is 15 min: over by minute 20.
    const cooled = await scanAt(fargate, 20);

    // Claim, lease, 3 queries, the outbox entry and its outcome, the cooldown, the status, the alert, the delivery, done, release.
    expect(restart).toEqual({ requests: expect.any(Array), alerts: 2 });
    expect(byOperation(restart.requests)).toEqual({ PutItem: 9, Query: 3, DeleteItem: 1 });
    // The outbox once more (the last scan recorded in it), the cooldowns, the open alerts, the status (the controller is unavailable).
    expect(next).toEqual({
      requests: ['PutItem', 'PutItem', 'Query', 'Query', 'PutItem', 'Query', 'PutItem', 'PutItem'],
      alerts: 0,
    });
    expect(cooling).toEqual({ requests: ['PutItem', 'PutItem', 'Query', 'PutItem', 'Query', 'PutItem', 'PutItem'], alerts: 0 });
    expect(cooled).toEqual({ requests: ['PutItem', 'PutItem', 'PutItem', 'Query', 'PutItem', 'PutItem'], alerts: 0 });
  });

  it('a scan that took the lease from a lapsed holder leaves no summary: the next scan reads what that holder wrote late', async () => {
    const late: { writes?: () => Promise<void> } = {};
    const healthy = await serviceFor(HEALTHY, { wrap: { state: writingBeforeRelease(late) } });
    const { state, clock } = healthy.service;
    // Scan A takes the lease for SCAN_LEASE_DURATION's 2m30s, then works past it.
    await state.acquireLease(HEALTHY, 'scan-a/m-0', clock.now(), 150_000);
    late.writes = async () => {
      // A's alert and cooldown land after B read the records, before B releases.
      await state.saveAlert({
        cluster: HEALTHY,
        key: 'late-finding',
        code: 'ORPHANED_INSTANCE',
        severity: 'warning',
        title: 'Instance i-0a3f1c9e8b7d6a501 (NodePool default) is running with no NodeClaim',
        firstSeen: minutesAfterTick(2, 30),
        lastSent: minutesAfterTick(2, 30),
      });
      await state.startCooldown({
        cluster: HEALTHY,
        findingId: 'late-finding',
        action: 'ROLLOUT_RESTART',
        until: minutesAfterTick(17, 30),
        lastOutcome: `applied at ${minutesAfterTick(2, 30)}`,
      });
    };

    const takeover = await scanAt(healthy, 3);
    const next = await scanAt(healthy, 4);
    const after = await scanAt(healthy, 5);

    // B reads everything (A's item had no summary), releases with none.
    expect(takeover.requests.filter((r) => r === 'Query')).toHaveLength(3);
    expect(healthy.service.logs.some((l) => l.lapsedHolder === 'scan-a/m-0')).toBe(true);
    // C reads everything again: A's alert is resolved (the cluster is healthy), A's cooldown read.
    expect(next.requests.filter((r) => r === 'Query')).toHaveLength(3);
    expect(next.alerts).toBe(1);
    expect(healthy.service.alerts.published.at(-1)).toMatchObject({ event: 'resolved', code: 'ORPHANED_INSTANCE' });
    // C's summary carries A's cooldown: the scan after it still reads the cooldowns.
    expect(after).toEqual({ requests: ['PutItem', 'PutItem', 'Query', 'PutItem', 'PutItem'], alerts: 0 });
  });

  it('a failing open-alerts read fails the scan only after the restart’s cooldown and the controller status are saved', async () => {
    const failing = { now: false };
    const fargate = await serviceFor(FARGATE, { wrap: { state: openAlertsFailing(failing) } });
    await scanAt(fargate, 0);
    failing.now = true;

    const failed = await scanAt(fargate, 1);
    const stillFailing = await scanAt(fargate, 2);

    expect([failed.alerts, stillFailing.alerts]).toEqual([-1, -1]);
    // Karpenter is down: the interruptions function keeps trusting a young status (CONTROLLER_STATUS_MAX_AGE).
    expect((await fargate.service.state.clusterStatuses([FARGATE])).get(FARGATE)).toMatchObject({
      controller: 'unavailable',
      observedAt: minutesAfterTick(2, 5),
    });
    expect(await fargate.service.state.activeCooldowns(FARGATE, new Date(minutesAfterTick(2, 5)))).toHaveLength(1);
  });
});
