/**
 * The scan function fed events/scan.*.json: real handler and use case, the state table over
 * dynalite, clusters simulated from examples/ (real HTTPS Kubernetes API, in-memory AWS).
 */
import { readFileSync } from 'node:fs';
import type { SQSEvent } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Alert } from '../../src/domain/alert.ts';
import type { MetricDatum } from '../../src/domain/metric.ts';
import { startLocalDynamo, type LocalDynamo } from '../support/dynalite.ts';
import { sampleEvent } from '../support/lambda.ts';
import { redrive } from '../support/sqs-redrive.ts';
import { scanQueueMaxReceiveCount } from '../infra/queue-settings.ts';
import {
  FARGATE,
  HEALTHY,
  minutesAfterTick,
  ORPHANS,
  scanMessage,
  startScanService,
  TICK,
  type ScanService,
  type ScanServiceOptions,
} from './scan-harness.ts';

/** The scan queue's redrive policy (infra): receives before a message goes to the DLQ. */
/** The scan queue's redrive setting, as deployed (infra/queues.yml). */
const MAX_RECEIVE_COUNT = scanQueueMaxReceiveCount();

const ORPHAN_RUNNING = 'i-0a3f1c9e8b7d6a501';
const ORPHAN_STOPPED = 'i-0b7e2d4f6a8c9e102';
/** prod-postgres-primary: only the two tags anyone can write; alerted as not proven, never terminated. */
const FORGED_TAGS = 'i-0f00d5ba5e0b1e7a2';
/** Launched 2 min before the tick: an orphan only once the 10 min grace has passed. */
const ORPHAN_YOUNG = 'i-0c5d8a1e3f7b94263';

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
  return alerts.map((a) => {
    const instance = /i-[0-9a-f]{17}/.exec(a.title)?.[0];
    return [a.event, a.code, instance].filter(Boolean).join(' ');
  });
}

function restartedAt(service: ScanService): string | undefined {
  const stored = service.cluster(FARGATE).kubeApi.store.get('deployments', 'karpenter', 'karpenter')!.object as {
    spec: { template: { metadata: { annotations?: Record<string, string> } } };
  };
  return stored.spec.template.metadata.annotations?.['kubectl.kubernetes.io/restartedAt'];
}

function datumsOf(service: ScanService, name: string, dimensions: Record<string, string>): MetricDatum[] {
  return service.metrics.datums.filter((d) => d.name === name && JSON.stringify(d.dimensions) === JSON.stringify(dimensions));
}

describe('scan: one cluster per record', () => {
  it('restarts a controller stuck Pending, alerts the finding and the restart, starts a cooldown and saves the controller status', async () => {
    const service = await start({ clusters: [FARGATE] });

    const response = await service.invoke(sampleEvent<SQSEvent>('scan.message'));

    expect(response).toEqual({ batchItemFailures: [] });
    expect(channel(service.alerts.published).sort()).toEqual([
      'opened KARPENTER_CONTROLLER_PENDING',
      'remediation-applied KARPENTER_CONTROLLER_PENDING',
    ]);
    expect(service.alerts.published.every((a) => a.cluster === FARGATE && a.severity === 'critical')).toBe(true);
    expect(restartedAt(service)).toBe('2026-01-01T01:00:05Z');
    const now = service.clock.now();
    expect(await service.state.activeCooldowns(FARGATE, now)).toEqual([
      expect.objectContaining({
        action: 'ROLLOUT_RESTART',
        until: '2026-01-01T01:15:05Z',
        lastOutcome: 'applied at 2026-01-01T01:00:05Z',
      }),
    ]);
    expect((await service.state.clusterStatuses([FARGATE])).get(FARGATE)).toEqual({
      cluster: FARGATE,
      observedAt: '2026-01-01T01:00:05Z',
      controller: 'unavailable',
      readyReplicas: 0,
      desiredReplicas: 2,
    });
    expect((await service.state.openAlerts(FARGATE)).map((a) => a.code)).toEqual(['KARPENTER_CONTROLLER_PENDING']);
  });

  it('a duplicate delivery of a processed request makes no second alert and no second restart', async () => {
    const service = await start({ clusters: [FARGATE] });
    await service.invoke(sampleEvent<SQSEvent>('scan.message'));
    const alertsBefore = service.alerts.published.length;
    service.clock.advance(40_000);

    const response = await service.invoke(sampleEvent<SQSEvent>('scan.duplicate'));

    expect(response).toEqual({ batchItemFailures: [] });
    expect(service.alerts.published).toHaveLength(alertsBefore);
    expect(restartedAt(service)).toBe('2026-01-01T01:00:05Z');
    expect(service.connects.get(FARGATE)).toBe(1);
    // Nothing was scanned, so nothing is measured.
    expect(service.metrics.calls).toHaveLength(1);
  });

  it('the next scans hold the applied restart back while it cools down', async () => {
    const service = await start({ clusters: [FARGATE] });
    await service.invoke(sampleEvent<SQSEvent>('scan.message'));

    for (const minutes of [1, 2, 5]) {
      service.clock.set(minutesAfterTick(minutes, 5));
      await service.invoke(scanMessage(FARGATE, minutesAfterTick(minutes)));
    }

    expect(restartedAt(service)).toBe('2026-01-01T01:00:05Z');
    expect(channel(service.alerts.published).filter((a) => a.startsWith('remediation'))).toEqual([
      'remediation-applied KARPENTER_CONTROLLER_PENDING',
    ]);
  });

  it('a failed restart is alerted and not retried until its cooldown ends', async () => {
    const service = await start({ clusters: [FARGATE] });
    service.cluster(FARGATE).kubeApi.faults.add({
      method: 'PATCH',
      path: '/apis/apps/v1/namespaces/karpenter/deployments/karpenter',
      status: 403,
      message: 'deployments.apps "karpenter" is forbidden: User "karpenter-sentinel" cannot patch resource "deployments"',
      times: 1,
    });

    await service.invoke(sampleEvent<SQSEvent>('scan.message'));
    const [cooldown] = await service.state.activeCooldowns(FARGATE, service.clock.now());
    service.clock.set(minutesAfterTick(1, 5));
    await service.invoke(scanMessage(FARGATE, minutesAfterTick(1)));
    const afterOneMinute = restartedAt(service);
    service.clock.set(minutesAfterTick(16, 5));
    await service.invoke(scanMessage(FARGATE, minutesAfterTick(16)));

    expect(cooldown?.lastOutcome).toMatch(/^failed at 2026-01-01T01:00:05Z: 403 .*forbidden/);
    // The Deployment carries no restart, so only the sentinel's own cooldown held the retry back.
    expect(afterOneMinute).toBeUndefined();
    expect(restartedAt(service)).toBe('2026-01-01T01:16:05Z');
    expect(channel(service.alerts.published).filter((a) => a.startsWith('remediation'))).toEqual([
      'remediation-failed KARPENTER_CONTROLLER_PENDING',
      'remediation-applied KARPENTER_CONTROLLER_PENDING',
    ]);
  });

  it('orphaned instances: the service default plans the termination (dry run) and alerts them', async () => {
    const service = await start({ clusters: [ORPHANS] });

    await service.invoke(scanMessage(ORPHANS, TICK));

    expect(channel(service.alerts.published).sort()).toEqual([
      `opened INSTANCE_PROVENANCE_UNPROVEN ${FORGED_TAGS}`,
      `opened ORPHANED_INSTANCE ${ORPHAN_RUNNING}`,
      `opened ORPHANED_INSTANCE ${ORPHAN_STOPPED}`,
    ]);
    expect(service.cluster(ORPHANS).aws.callsTo('TerminateInstances')).toEqual([]);
    expect(await service.state.activeCooldowns(ORPHANS, service.clock.now())).toEqual([]);
    // The capture holds pods but no Deployments: whether a controller runs is not known.
    expect((await service.state.clusterStatuses([ORPHANS])).get(ORPHANS)?.controller).toBe('unknown');
  });

  it('orphaned instances with TERMINATE_INSTANCE_MODE=apply: terminated once, even when the request is delivered twice', async () => {
    const service = await start({ clusters: [ORPHANS], env: { TERMINATE_INSTANCE_MODE: 'apply' } });
    const request = scanMessage(ORPHANS, TICK);

    await service.invoke(request);
    service.clock.advance(30_000);
    await service.invoke(request);

    const terminations = service.cluster(ORPHANS).aws.callsTo('TerminateInstances');
    expect(terminations).toEqual([{ operation: 'TerminateInstances', input: { instanceIds: [ORPHAN_RUNNING, ORPHAN_STOPPED] } }]);
    expect(service.cluster(ORPHANS).aws.state.instances.get(FORGED_TAGS)?.state).toBe('running');
    expect(channel(service.alerts.published).sort()).toEqual([
      `opened INSTANCE_PROVENANCE_UNPROVEN ${FORGED_TAGS}`,
      `opened ORPHANED_INSTANCE ${ORPHAN_RUNNING}`,
      `opened ORPHANED_INSTANCE ${ORPHAN_STOPPED}`,
      `remediation-applied ORPHANED_INSTANCE ${ORPHAN_RUNNING}`,
      `remediation-applied ORPHANED_INSTANCE ${ORPHAN_STOPPED}`,
    ]);
    expect((await service.state.activeCooldowns(ORPHANS, service.clock.now())).map((c) => c.action)).toEqual([
      'TERMINATE_INSTANCE',
      'TERMINATE_INSTANCE',
    ]);
  });

  it('over a sequence of scans: opened once, silent, a reminder after the interval, resolved once fixed', async () => {
    const service = await start({ clusters: [ORPHANS], env: { ALERT_REMINDER_INTERVAL: '1h' } });
    const scanAt = async (minutes: number): Promise<string[]> => {
      const before = service.alerts.published.length;
      service.clock.set(minutesAfterTick(minutes, 5));
      const response = await service.invoke(scanMessage(ORPHANS, minutesAfterTick(minutes)));
      expect(response.batchItemFailures).toEqual([]);
      return channel(service.alerts.published.slice(before)).sort();
    };

    const first = await scanAt(0);
    const nextMinute = await scanAt(1);
    const beforeInterval = await scanAt(59);
    const afterInterval = await scanAt(60);
    const stillOpen = (await service.state.openAlerts(ORPHANS)).length;
    // Someone terminates the instances (or the service does, once its mode is apply).
    for (const id of [ORPHAN_RUNNING, ORPHAN_STOPPED, ORPHAN_YOUNG]) {
      service.cluster(ORPHANS).aws.updateInstance(id, (instance) => {
        instance.state = 'terminated';
      });
    }
    const fixed = await scanAt(61);
    const afterFix = await scanAt(62);

    expect(first).toEqual([
      `opened INSTANCE_PROVENANCE_UNPROVEN ${FORGED_TAGS}`,
      `opened ORPHANED_INSTANCE ${ORPHAN_RUNNING}`,
      `opened ORPHANED_INSTANCE ${ORPHAN_STOPPED}`,
    ]);
    expect(nextMinute).toEqual([]);
    // The young instance outlived its grace period meanwhile: a new finding, opened on its own.
    expect(beforeInterval).toEqual([`opened ORPHANED_INSTANCE ${ORPHAN_YOUNG}`]);
    expect(afterInterval).toEqual([
      `reminder INSTANCE_PROVENANCE_UNPROVEN ${FORGED_TAGS}`,
      `reminder ORPHANED_INSTANCE ${ORPHAN_RUNNING}`,
      `reminder ORPHANED_INSTANCE ${ORPHAN_STOPPED}`,
    ]);
    expect(stillOpen).toBe(4);
    expect(fixed).toEqual([
      `resolved ORPHANED_INSTANCE ${ORPHAN_RUNNING}`,
      `resolved ORPHANED_INSTANCE ${ORPHAN_STOPPED}`,
      `resolved ORPHANED_INSTANCE ${ORPHAN_YOUNG}`,
    ]);
    expect(afterFix).toEqual([]);
    // Still there and still not proven Karpenter's: its alert stays open.
    expect((await service.state.openAlerts(ORPHANS)).map((a) => a.code)).toEqual(['INSTANCE_PROVENANCE_UNPROVEN']);
  });

  it('a cluster whose Kubernetes API refuses the sentinel is alerted as unreadable; the record is done, not retried', async () => {
    const service = await start({ clusters: [HEALTHY] });
    service.cluster(HEALTHY).kubeApi.faults.add({ path: /^\//, status: 401, message: 'Unauthorized' });
    const request = scanMessage(HEALTHY, TICK);

    const response = await service.invoke(request);
    service.clock.advance(30_000);
    const again = await service.invoke(request);

    expect(response).toEqual({ batchItemFailures: [] });
    expect(again).toEqual({ batchItemFailures: [] });
    expect(channel(service.alerts.published)).toEqual(['opened CLUSTER_UNREADABLE']);
    expect(service.alerts.published[0]?.severity).toBe('critical');
    expect((await service.state.clusterStatuses([HEALTHY])).get(HEALTHY)?.controller).toBe('unknown');
    // Only the failure is measured: an empty snapshot would draw "0 pending pods".
    expect(datumsOf(service, 'ScanFailures', { Cluster: HEALTHY })).toEqual([
      { name: 'ScanFailures', unit: 'Count', value: 1, dimensions: { Cluster: HEALTHY } },
    ]);
    expect(datumsOf(service, 'PendingPods', { Cluster: HEALTHY })).toEqual([]);
  });

  it('a cluster EKS does not know is not "scanned, healthy": a WARN line, ClustersNotFound, one deduplicated alert, no gauges', async () => {
    const service = await start({ clusters: [HEALTHY], unknownNames: { 'aws-2026-eks-typo': HEALTHY } });

    const response = await service.invoke(scanMessage('aws-2026-eks-typo', TICK));
    service.clock.advance(60_000);
    const nextMinute = await service.invoke(scanMessage('aws-2026-eks-typo', minutesAfterTick(1)));

    expect(response).toEqual({ batchItemFailures: [] });
    expect(nextMinute).toEqual({ batchItemFailures: [] });
    expect(channel(service.alerts.published)).toEqual(['opened CLUSTER_NOT_FOUND']);
    expect(service.alerts.published[0]).toMatchObject({
      severity: 'critical',
      title: 'Cluster aws-2026-eks-typo does not exist in us-east-1: nothing to monitor',
    });
    expect(service.logs.filter((l) => l.message === 'cluster scanned')).toEqual([]);
    expect(service.logs.filter((l) => l.message === 'cluster not found')).toEqual([
      expect.objectContaining({ level: 'warn', cluster: 'aws-2026-eks-typo', region: 'us-east-1', findings: 0 }),
      expect.objectContaining({ level: 'warn', cluster: 'aws-2026-eks-typo', alerts: 0 }),
    ]);
    expect(datumsOf(service, 'ClustersNotFound', {})).toHaveLength(2);
    expect(datumsOf(service, 'ClustersNotFound', { Cluster: 'aws-2026-eks-typo' })[0]?.value).toBe(1);
    // Not a cluster scanned (the watchdog alarm must not be fed by it), and no Kubernetes reading.
    expect(datumsOf(service, 'ClustersScanned', {})).toEqual([]);
    for (const gauge of ['PendingPods', 'ControllerReadyReplicas', 'UnregisteredNodeClaims', 'ScanGaps', 'ScanFailures']) {
      expect(service.metrics.datums.filter((d) => d.name === gauge)).toEqual([]);
    }
  });

  it('a request older than SCAN_MAX_AGE is acknowledged without scanning: a newer one is queued', async () => {
    const service = await start({ clusters: [ORPHANS] });

    const response = await service.invoke(sampleEvent<SQSEvent>('scan.stale'));

    expect(response).toEqual({ batchItemFailures: [] });
    expect(service.connects.size).toBe(0);
    expect(service.cluster(ORPHANS).aws.calls).toEqual([]);
    expect(service.alerts.published).toEqual([]);
    expect(service.logs.find((l) => l.message === 'stale scan request skipped')).toMatchObject({
      cluster: ORPHANS,
      requestedAt: '2026-01-01T00:40:00Z',
      ageMs: 20 * 60_000 + 5_000,
    });
  });
});

describe('scan: a batch', () => {
  it('a malformed record fails only itself, with one log line naming what was wrong; the good one is scanned', async () => {
    const service = await start({ clusters: [HEALTHY] });
    const event = sampleEvent<SQSEvent>('scan.malformed');
    const [badJson, noCluster] = event.Records;

    const response = await service.invoke(event);

    expect(response.batchItemFailures).toEqual([
      { itemIdentifier: badJson!.messageId },
      { itemIdentifier: noCluster!.messageId },
    ]);
    expect(service.connects.get(HEALTHY)).toBe(1);
    expect(datumsOf(service, 'ScanDurationMs', { Cluster: HEALTHY })).toHaveLength(1);
    const warnings = service.logs.filter((l) => l.level === 'warn');
    expect(warnings.map((l) => [l.messageId, l.message])).toEqual([
      [badJson!.messageId, expect.stringMatching(/^malformed scan request: body is not JSON \(/)],
      [noCluster!.messageId, 'malformed scan request: body has no "cluster" (a cluster name)'],
    ]);
  });

  it('a cluster that cannot be scanned fails only its record; the others are scanned and alerted', async () => {
    // platform-eks-dev is not simulated here: connecting to it fails.
    const service = await start({ clusters: [FARGATE, HEALTHY] });
    const event = sampleEvent<SQSEvent>('scan.batch');
    const failing = event.Records.find((r) => r.body.includes(ORPHANS))!;

    const response = await service.invoke(event);
    const retry = await service.invoke({ Records: [failing] });

    expect(response.batchItemFailures).toEqual([{ itemIdentifier: failing.messageId }]);
    expect(channel(service.alerts.published)).toContain('remediation-applied KARPENTER_CONTROLLER_PENDING');
    expect(datumsOf(service, 'ScanFailures', { Cluster: ORPHANS })).toHaveLength(2);
    // The failed claim was released: the retry tried again instead of waiting out the claim.
    expect(retry.batchItemFailures).toEqual([{ itemIdentifier: failing.messageId }]);
    expect(service.connects.get(ORPHANS)).toBe(2);
    expect(service.logs.filter((l) => l.message === 'scan failed' && l.cluster === ORPHANS)).toHaveLength(2);
  });

  it('writes the metrics once per invocation, with each cluster its dimension', async () => {
    const service = await start({ clusters: [FARGATE, ORPHANS, HEALTHY] });

    await service.invoke(sampleEvent<SQSEvent>('scan.batch'));

    expect(service.metrics.calls).toHaveLength(1);
    expect(service.metrics.calls[0]?.timestamp).toEqual(new Date('2026-01-01T01:00:05Z'));
    for (const cluster of [FARGATE, ORPHANS, HEALTHY]) {
      expect(datumsOf(service, 'ScanDurationMs', { Cluster: cluster })).toEqual([
        expect.objectContaining({ unit: 'Milliseconds' }),
      ]);
      expect(datumsOf(service, 'PendingPods', { Cluster: cluster })).toEqual([expect.objectContaining({ unit: 'Count' })]);
    }
    expect(datumsOf(service, 'Remediations', { Cluster: FARGATE, Action: 'ROLLOUT_RESTART', Outcome: 'applied' })).toEqual([
      expect.objectContaining({ value: 1 }),
    ]);
    expect(datumsOf(service, 'OrphanedInstances', { Cluster: ORPHANS })).toEqual([expect.objectContaining({ value: 2 })]);
    expect(datumsOf(service, 'ControllerReadyReplicas', { Cluster: HEALTHY })).toEqual([expect.objectContaining({ value: 2 })]);
    // The running orphan (a Spot m7i-flex.large) costs money; the stopped one bills no compute.
    expect(datumsOf(service, 'EstimatedWasteUsdPerDay', { Cluster: ORPHANS })).toEqual([
      { name: 'EstimatedWasteUsdPerDay', unit: 'None', value: 2.3, dimensions: { Cluster: ORPHANS } },
    ]);
    expect(datumsOf(service, 'EstimatedWasteUsdPerDay', { Cluster: HEALTHY })).toEqual([
      expect.objectContaining({ unit: 'None', value: 0 }),
    ]);
    const scanned = datumsOf(service, 'ClustersScanned', {}).reduce((n, d) => n + d.value, 0);
    expect(scanned).toBe(3);
    expect(service.metrics.datums.filter((d) => d.name === 'ScanFailures')).toEqual([]);
    expect((await service.state.clusterStatuses([HEALTHY])).get(HEALTHY)).toMatchObject({
      controller: 'available',
      readyReplicas: 2,
      desiredReplicas: 2,
    });
  });

  it('metrics go out once even when a record failed, with a ScanFailures datum for its cluster', async () => {
    const service = await start({ clusters: [HEALTHY] });

    await service.invoke(sampleEvent<SQSEvent>('scan.batch'));

    expect(service.metrics.calls).toHaveLength(1);
    expect(service.metrics.datums.filter((d) => d.name === 'ScanFailures' && d.dimensions.Cluster)).toEqual([
      { name: 'ScanFailures', unit: 'Count', value: 1, dimensions: { Cluster: FARGATE } },
      { name: 'ScanFailures', unit: 'Count', value: 1, dimensions: { Cluster: ORPHANS } },
    ]);
  });
});

describe('scan: through the queue redrive policy', () => {
  it(`a poison record reaches the DLQ after ${MAX_RECEIVE_COUNT} receives; the good one is processed once`, async () => {
    const service = await start({ clusters: [HEALTHY] });
    const event = sampleEvent<SQSEvent>('scan.malformed');
    const [badJson, noCluster, good] = event.Records;

    const result = await redrive(service.invoke, event.Records, {
      maxReceiveCount: MAX_RECEIVE_COUNT,
      beforeRound: () => service.clock.advance(30_000),
    });

    expect(result.dlq.map((r) => r.messageId)).toEqual([badJson!.messageId, noCluster!.messageId]);
    expect(result.dlq.map((r) => r.attributes.ApproximateReceiveCount)).toEqual([
      String(MAX_RECEIVE_COUNT),
      String(MAX_RECEIVE_COUNT),
    ]);
    expect(result.processed).toEqual([good!.messageId]);
    expect(result.receives.get(good!.messageId)).toBe(1);
    expect(service.cluster(HEALTHY).aws.callsTo('DescribeCluster')).toHaveLength(1);
    expect(service.metrics.calls).toHaveLength(1);
  });

  it("one tick's request queued twice (a retried dispatch) in one batch: scanned once, the copy acknowledged later", async () => {
    const service = await start({ clusters: [FARGATE] });
    const copies = [...scanMessage(FARGATE, TICK).Records, ...scanMessage(FARGATE, TICK).Records];

    const result = await redrive(service.invoke, copies, {
      maxReceiveCount: MAX_RECEIVE_COUNT,
      beforeRound: () => service.clock.advance(30_000),
    });

    expect(result.dlq).toEqual([]);
    expect(result.processed.sort()).toEqual(copies.map((r) => r.messageId).sort());
    expect(service.connects.get(FARGATE)).toBe(1);
    expect(channel(service.alerts.published).sort()).toEqual([
      'opened KARPENTER_CONTROLLER_PENDING',
      'remediation-applied KARPENTER_CONTROLLER_PENDING',
    ]);
  });
});

/** The Logs Insights query of docs/service.md ("Logs"), as the doc gives it: its `filter message like /…/` regex. */
function documentedQueryRegex(): RegExp {
  const doc = readFileSync(new URL('../../docs/service.md', import.meta.url), 'utf8');
  const pattern = /\| filter message like \/(.+)\/\s*$/m.exec(doc)?.[1];
  if (!pattern) throw new Error('docs/service.md has no `filter message like /…/` query');
  return new RegExp(pattern);
}

describe('scan: the log lines of scans that did not read their cluster', () => {
  it('are WARN or ERROR, and the Logs Insights query of docs/service.md finds each of them and no cluster scanned', async () => {
    const service = await start({ clusters: [HEALTHY, ORPHANS], unknownNames: { 'shop-prd': HEALTHY } });
    service.cluster(HEALTHY).kubeApi.faults.add({ path: /^\//, status: 401, message: 'Unauthorized' });

    // Unreadable, not found, failed (no such account at all: the connection fails), and one read.
    await service.invoke(scanMessage(HEALTHY, TICK));
    await service.invoke(scanMessage('shop-prd', TICK));
    await service.invoke(scanMessage('not-simulated', TICK));
    await service.invoke(scanMessage(ORPHANS, TICK));

    const query = documentedQueryRegex();
    const byMessage = (prefix: string) => service.logs.filter((l) => String(l.message).startsWith(prefix));
    const blind = [...byMessage('cluster unreadable'), ...byMessage('cluster not found'), ...byMessage('scan failed')];
    expect(blind.map((l) => [l.message, l.level])).toEqual([
      ['cluster unreadable', 'warn'],
      ['cluster not found', 'warn'],
      ['scan failed', 'error'],
    ]);
    for (const line of blind) expect(String(line.message)).toMatch(query);
    expect(byMessage('cluster scanned')).toHaveLength(1);
    expect('cluster scanned').not.toMatch(query);
    expect('scan stopped: the invocation’s deadline').toMatch(query);
    expect('scan not started: the invocation’s deadline is near; retried').toMatch(query);
  });
});
