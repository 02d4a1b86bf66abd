/**
 * The scan function when it fails or overlaps: every restart or termination is announced exactly
 * once (the outbox in the state table), and overlapping scans of one cluster do not alert or act
 * twice (the cluster lease). Real handler, state table over dynalite, simulated clusters.
 */
import type { SQSEvent } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Alert } from '../../src/domain/alert.ts';
import type { AlertPublisher } from '../../src/ports/notify.ts';
import type { StateStore } from '../../src/ports/state.ts';
import { startLocalDynamo, type LocalDynamo } from '../support/dynalite.ts';
import {
  FARGATE,
  minutesAfterTick,
  ORPHANS,
  scanMessage,
  startScanService,
  TICK,
  type ScanService,
  type ScanServiceOptions,
} from './scan-harness.ts';

const ORPHAN_RUNNING = 'i-0a3f1c9e8b7d6a501';
const ORPHAN_STOPPED = 'i-0b7e2d4f6a8c9e102';
const STEPPED_ASIDE = 'scan skipped: another scan of the cluster holds its lease';

let dynamo: LocalDynamo;
beforeAll(async () => {
  dynamo = await startLocalDynamo();
});
afterAll(async () => {
  await dynamo.close();
});

const services: ScanService[] = [];
afterEach(async () => {
  await Promise.all(services.splice(0).map((s) => s.close()));
});

async function start(options: ScanServiceOptions): Promise<ScanService> {
  const service = await startScanService(dynamo, options);
  services.push(service);
  return service;
}

/** `event CODE [instance]` per alert, the way a person reads a chat channel. */
function channel(alerts: readonly Alert[]): string[] {
  return alerts.map((a) => [a.event, a.code, /i-[0-9a-f]{17}/.exec(a.title)?.[0]].filter(Boolean).join(' ')).sort();
}

/** The restartedAt annotation of the simulated controller Deployment: set once per restart. */
function restartedAt(service: ScanService): string | undefined {
  const stored = service.cluster(FARGATE).kubeApi.store.get('deployments', 'karpenter', 'karpenter')!.object as {
    spec: { template: { metadata: { annotations?: Record<string, string> } } };
  };
  return stored.spec.template.metadata.annotations?.['kubectl.kubernetes.io/restartedAt'];
}

/** The topic refuses the first publish that carries an action's alert (SNS throttling). */
function topicRefusingFirstActionAlert(alerts: AlertPublisher): AlertPublisher {
  let refused = false;
  return {
    publish: async (batch) => {
      if (!refused && batch.some((a) => a.event.startsWith('remediation-'))) {
        refused = true;
        throw new Error('SNS Publish failed: ThrottledException: Rate exceeded');
      }
      return alerts.publish(batch);
    },
  };
}

/**
 * The state table, except that the first call of `method` (or, without one, the first call of any
 * kind) once `acted()` is true throws: the scan stops there, as a process killed right after acting.
 */
function stateFailingAfter(acted: () => boolean, method?: keyof StateStore) {
  return (state: StateStore): StateStore => {
    let failed = false;
    return new Proxy(state, {
      get(target, name, receiver) {
        const value: unknown = Reflect.get(target, name, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]): unknown => {
          if (!failed && acted() && (method === undefined || name === method)) {
            failed = true;
            return Promise.reject(new Error(`DynamoDB ${String(name)} failed: the scan stopped here`));
          }
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  };
}

async function undelivered(service: ScanService, cluster: string): Promise<number> {
  return (await service.state.undelivered(cluster)).length;
}

describe('scan: every restart or termination is announced exactly once', () => {
  it('SNS refuses the restart’s alert once: the retry of the message announces it, the controller is restarted once', async () => {
    const service = await start({ clusters: [FARGATE], wrap: { alerts: topicRefusingFirstActionAlert } });
    const request = scanMessage(FARGATE, TICK);

    const first = await service.invoke(request);
    service.clock.advance(30_000);
    const retry = await service.invoke(request);

    expect(first.batchItemFailures).toEqual([{ itemIdentifier: request.Records[0]!.messageId }]);
    expect(retry.batchItemFailures).toEqual([]);
    expect(channel(service.alerts.published)).toEqual([
      'opened KARPENTER_CONTROLLER_PENDING',
      'remediation-applied KARPENTER_CONTROLLER_PENDING',
    ]);
    expect(service.alerts.published.find((a) => a.event === 'remediation-applied')?.description).toContain(
      'restart applied: restartedAt=2026-01-01T01:00:05Z',
    );
    expect(restartedAt(service)).toBe('2026-01-01T01:00:05Z');
    expect(await undelivered(service, FARGATE)).toBe(0);
  });

  it('the cooldown write fails after the restart: the retry announces it as applied, once, and restarts nothing more', async () => {
    const service = await start({
      clusters: [FARGATE],
      wrap: { state: stateFailingAfter(() => restartedAt(service) !== undefined, 'startCooldown') },
    });
    const request = scanMessage(FARGATE, TICK);

    const first = await service.invoke(request);
    service.clock.advance(30_000);
    await service.invoke(request);

    expect(first.batchItemFailures).toHaveLength(1);
    expect(channel(service.alerts.published)).toEqual([
      'opened KARPENTER_CONTROLLER_PENDING',
      'remediation-applied KARPENTER_CONTROLLER_PENDING',
    ]);
    expect(restartedAt(service)).toBe('2026-01-01T01:00:05Z');
  });

  it('the scan dies right after the restart, before recording anything: the next scan announces it once, outcome unknown', async () => {
    const service = await start({
      clusters: [FARGATE],
      wrap: { state: stateFailingAfter(() => restartedAt(service) !== undefined) },
    });

    const first = await service.invoke(scanMessage(FARGATE, TICK));
    service.clock.set(minutesAfterTick(1, 5));
    const next = await service.invoke(scanMessage(FARGATE, minutesAfterTick(1)));
    service.clock.set(minutesAfterTick(2, 5));
    await service.invoke(scanMessage(FARGATE, minutesAfterTick(2)));

    expect(first.batchItemFailures).toHaveLength(1);
    expect(next.batchItemFailures).toEqual([]);
    expect(channel(service.alerts.published)).toEqual([
      'opened KARPENTER_CONTROLLER_PENDING',
      'remediation-unknown KARPENTER_CONTROLLER_PENDING',
    ]);
    const unknown = service.alerts.published.find((a) => a.event === 'remediation-unknown');
    expect(unknown?.title).toMatch(/^Restart, outcome unknown — the scan stopped before it finished: /);
    expect(unknown?.description).toContain('The scan of 2026-01-01T01:00:05Z stopped');
    // The Deployment's own restart stamp keeps the next scans from restarting it again.
    expect(restartedAt(service)).toBe('2026-01-01T01:00:05Z');
    expect(await undelivered(service, FARGATE)).toBe(0);
  });

  it('recording the restart’s alert fails: nothing is restarted, no alert claims it was; the retry restarts and announces it', async () => {
    // The write reaches the table, then the call fails (a timeout after DynamoDB took it).
    const recordThenFail = (state: StateStore): StateStore => {
      let failed = false;
      const recordPending: StateStore['recordPending'] = async (entries) => {
        await state.recordPending(entries);
        if (failed) return;
        failed = true;
        throw new Error('DynamoDB PutItem failed: TimeoutError: socket hang up');
      };
      return new Proxy(state, {
        get: (target, name) => {
          if (name === 'recordPending') return recordPending;
          const value: unknown = Reflect.get(target, name, target);
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      });
    };
    const service = await start({ clusters: [FARGATE], wrap: { state: recordThenFail } });
    const request = scanMessage(FARGATE, TICK);

    const first = await service.invoke(request);
    const afterFirst = { restartedAt: restartedAt(service), outbox: await undelivered(service, FARGATE) };
    service.clock.advance(30_000);
    await service.invoke(request);

    expect(first.batchItemFailures).toHaveLength(1);
    expect(afterFirst).toEqual({ restartedAt: undefined, outbox: 0 });
    expect(channel(service.alerts.published)).toEqual([
      'opened KARPENTER_CONTROLLER_PENDING',
      'remediation-applied KARPENTER_CONTROLLER_PENDING',
    ]);
    expect(restartedAt(service)).toBe('2026-01-01T01:00:35Z');
  });

  it('SNS refuses the terminations’ alerts once: the retry announces each instance once, terminated once', async () => {
    const service = await start({
      clusters: [ORPHANS],
      env: { TERMINATE_INSTANCE_MODE: 'apply' },
      wrap: { alerts: topicRefusingFirstActionAlert },
    });
    const request = scanMessage(ORPHANS, TICK);

    await service.invoke(request);
    service.clock.advance(30_000);
    await service.invoke(request);

    expect(service.cluster(ORPHANS).aws.callsTo('TerminateInstances')).toHaveLength(1);
    expect(channel(service.alerts.published)).toEqual([
      // prod-postgres-primary, only the two forgeable tags: reported, never terminated.
      'opened INSTANCE_PROVENANCE_UNPROVEN i-0f00d5ba5e0b1e7a2',
      `opened ORPHANED_INSTANCE ${ORPHAN_RUNNING}`,
      `opened ORPHANED_INSTANCE ${ORPHAN_STOPPED}`,
      `remediation-applied ORPHANED_INSTANCE ${ORPHAN_RUNNING}`,
      `remediation-applied ORPHANED_INSTANCE ${ORPHAN_STOPPED}`,
      // The retry's scan finds them shutting down: the findings resolve.
      `resolved ORPHANED_INSTANCE ${ORPHAN_RUNNING}`,
      `resolved ORPHANED_INSTANCE ${ORPHAN_STOPPED}`,
    ]);
  });
});

describe('scan: one scan per cluster at a time', () => {
  it('a second scan of the cluster while the first is still running steps aside: one set of alerts, one restart', async () => {
    let reached!: () => void;
    let resume!: () => void;
    const firstPublishReached = new Promise<void>((resolve) => (reached = resolve));
    const resumed = new Promise<void>((resolve) => (resume = resolve));
    let paused = false;
    // The first scan stops at its first publish: it has acted, and not yet saved what it alerted.
    const pausingFirstPublish = (alerts: AlertPublisher): AlertPublisher => ({
      publish: async (batch) => {
        if (!paused) {
          paused = true;
          reached();
          await resumed;
        }
        return alerts.publish(batch);
      },
    });
    const service = await start({ clusters: [FARGATE], wrap: { alerts: pausingFirstPublish } });

    const first = service.invoke(scanMessage(FARGATE, TICK));
    await firstPublishReached;
    const second = await service.invoke(scanMessage(FARGATE, minutesAfterTick(1)));
    resume();
    await first;

    expect(second).toEqual({ batchItemFailures: [] });
    expect(channel(service.alerts.published)).toEqual([
      'opened KARPENTER_CONTROLLER_PENDING',
      'remediation-applied KARPENTER_CONTROLLER_PENDING',
    ]);
    expect(service.connects.get(FARGATE)).toBe(1);
    expect(service.logs.filter((l) => l.message === STEPPED_ASIDE)).toEqual([
      expect.objectContaining({ cluster: FARGATE, requestedAt: minutesAfterTick(1) }),
    ]);
    // The scan that stepped aside measured nothing: no second metrics write, no double count.
    expect(service.metrics.calls).toHaveLength(1);
  });

  it('two requests for one cluster in one batch: one is scanned, the other steps aside', async () => {
    const service = await start({ clusters: [FARGATE] });
    const event: SQSEvent = {
      Records: [...scanMessage(FARGATE, TICK).Records, ...scanMessage(FARGATE, minutesAfterTick(1)).Records],
    };

    const response = await service.invoke(event);

    expect(response).toEqual({ batchItemFailures: [] });
    expect(channel(service.alerts.published)).toEqual([
      'opened KARPENTER_CONTROLLER_PENDING',
      'remediation-applied KARPENTER_CONTROLLER_PENDING',
    ]);
    expect(service.logs.filter((l) => l.message === STEPPED_ASIDE)).toHaveLength(1);
  });

  it('a lease left by a crashed scan blocks the cluster until it lapses; the next scan then proceeds', async () => {
    const service = await start({ clusters: [FARGATE], env: { SCAN_LEASE_DURATION: '2m30s' } });
    // A scan took the lease at 01:00:05 and was killed (Lambda timeout) before releasing it.
    await service.state.acquireLease(FARGATE, 'killed-invocation/m-0', service.clock.now(), 150_000);

    service.clock.set(minutesAfterTick(1, 5));
    const whileHeld = await service.invoke(scanMessage(FARGATE, minutesAfterTick(1)));
    const alertsWhileHeld = service.alerts.published.length;
    service.clock.set(minutesAfterTick(2, 35));
    await service.invoke(scanMessage(FARGATE, minutesAfterTick(2)));

    expect(whileHeld).toEqual({ batchItemFailures: [] });
    expect(alertsWhileHeld).toBe(0);
    expect(service.logs.find((l) => l.message === STEPPED_ASIDE)).toMatchObject({ leaseHolder: 'killed-invocation/m-0' });
    expect(service.connects.get(FARGATE)).toBe(1);
    expect(channel(service.alerts.published)).toEqual([
      'opened KARPENTER_CONTROLLER_PENDING',
      'remediation-applied KARPENTER_CONTROLLER_PENDING',
    ]);
  });
});
