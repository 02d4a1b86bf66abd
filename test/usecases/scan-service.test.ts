/**
 * The scan use case when its own dependencies fail: the state table, the alert topic, CloudWatch.
 * A simulated cluster (examples/fargate-bootstrap-deadlock) and the in-memory state store.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RecordingAlertPublisher, RecordingMetricsSink } from '../../src/adapters/memory/outputs.ts';
import { InMemoryStateStore } from '../../src/adapters/memory/state.ts';
import { readScanConfig } from '../../src/config.ts';
import { jsonLogger } from '../../src/support/logger.ts';
import { simulatedSources, startSimulation } from '../../src/simulator/simulation.ts';
import { scanBatch, type ScanDelivery, type ScanServiceDependencies } from '../../src/usecases/scan-service.ts';
import { closedAfterEachTest } from '../support/simulation.ts';
import { NO_WAIT_CLOCK } from '../support/clock.ts';

const CLUSTER = 'pattern-infra-eks-dev';
const NOW = new Date('2026-01-01T01:00:05Z');
const running = closedAfterEachTest();

async function setup() {
  const path = fileURLToPath(new URL('../../examples/fargate-bootstrap-deadlock', import.meta.url));
  const simulation = await startSimulation([path], { kube: { clock: NO_WAIT_CLOCK } });
  running.push(simulation);
  const logs: Record<string, unknown>[] = [];
  const deps = {
    settings: readScanConfig({
      AWS_REGION: 'eu-west-1',
      STATE_TABLE: 'state',
      ALERT_TOPIC_ARN: 'arn:aws:sns:eu-west-1:111122223333:karpenter-sentinel-alerts',
      ROLLOUT_RESTART_MODE: 'dry-run',
    }),
    connect: async () => ({ ...simulation.connection, sources: simulatedSources(simulation.seed) }),
    state: new InMemoryStateStore(),
    alerts: new RecordingAlertPublisher(),
    metrics: new RecordingMetricsSink(),
    clock: { now: () => NOW, sleep: async () => undefined },
    logger: jsonLogger({}, (line) => logs.push(JSON.parse(line) as Record<string, unknown>)),
  } satisfies ScanServiceDependencies;
  return { deps, logs, simulation };
}

const delivery = (messageId: string, cluster = CLUSTER): ScanDelivery => ({
  messageId,
  body: JSON.stringify({ cluster, requestedAt: '2026-01-01T01:00:00Z' }),
  receiveCount: 1,
});
const OPTIONS = { claimHoldMs: 90_000, invocationId: 'invocation-1' };

describe('scanBatch when its own dependencies fail', () => {
  it('an alert the topic refused fails the record and frees its claim: the retry sends it', async () => {
    const { deps } = await setup();
    deps.alerts.failNext = new Error('SNS PublishBatch failed: ThrottledException');

    const first = await scanBatch(deps, [delivery('m-1')], OPTIONS);
    const retry = await scanBatch(deps, [delivery('m-1')], OPTIONS);

    expect(first.failedMessageIds).toEqual(['m-1']);
    expect(retry.failedMessageIds).toEqual([]);
    expect(deps.alerts.published.map((a) => `${a.event} ${a.code}`)).toEqual(['opened KARPENTER_CONTROLLER_PENDING']);
    expect((await deps.state.openAlerts(CLUSTER)).map((a) => a.code)).toEqual(['KARPENTER_CONTROLLER_PENDING']);
  });

  it('alerts the topic refused are named in the log, so one that is not re-sent is not silently lost', async () => {
    const { deps, logs } = await setup();
    deps.alerts.failNext = new Error('SNS PublishBatch failed: AuthorizationError');

    await scanBatch(deps, [delivery('m-1')], OPTIONS);

    expect(logs.find((l) => l.message === 'alerts not published')).toMatchObject({
      cluster: CLUSTER,
      alerts: [expect.stringMatching(/^opened KARPENTER_CONTROLLER_PENDING: /)],
    });
  });

  it('published but not recorded as open: the retry alerts again (a duplicate, never a lost alert)', async () => {
    const { deps } = await setup();
    const saveAlert = deps.state.saveAlert.bind(deps.state);
    let failSave = true;
    deps.state.saveAlert = async (alert) => {
      if (failSave) throw new Error('DynamoDB PutItem failed: ProvisionedThroughputExceededException');
      return saveAlert(alert);
    };

    const first = await scanBatch(deps, [delivery('m-1')], OPTIONS);
    failSave = false;
    await scanBatch(deps, [delivery('m-1')], OPTIONS);

    expect(first.failedMessageIds).toEqual(['m-1']);
    expect(deps.alerts.published.map((a) => a.event)).toEqual(['opened', 'opened']);
  });

  it('a state table that cannot be reached fails only that record, counted as a scan failure', async () => {
    const { deps } = await setup();
    const claim = deps.state.claimDelivery.bind(deps.state);
    deps.state.claimDelivery = async (key, now, holdMs) => {
      if (key.includes('payments-prod')) throw new Error('DynamoDB PutItem failed: RequestLimitExceeded');
      return claim(key, now, holdMs);
    };

    const result = await scanBatch(deps, [delivery('m-1', 'payments-prod'), delivery('m-2')], OPTIONS);

    expect(result.failedMessageIds).toEqual(['m-1']);
    expect(result.counts).toMatchObject({ failed: 1, scanned: 1 });
    expect(deps.metrics.datums.filter((d) => d.name === 'ScanFailures')).toEqual([
      { name: 'ScanFailures', unit: 'Count', value: 1, dimensions: { Cluster: 'payments-prod' } },
      { name: 'ScanFailures', unit: 'Count', value: 1, dimensions: {} },
    ]);
  });

  it('a request another invocation holds is retried later, not scanned twice at once', async () => {
    const { deps, simulation } = await setup();
    await deps.state.claimDelivery(`scan#${CLUSTER}#2026-01-01T01:00:00Z`, NOW, 90_000);

    const result = await scanBatch(deps, [delivery('m-1')], OPTIONS);

    expect(result.failedMessageIds).toEqual(['m-1']);
    expect(result.counts['in-progress']).toBe(1);
    expect(simulation.aws.calls).toEqual([]);
  });

  it('metrics that could not be written are a warning; the records stay done', async () => {
    const { deps, logs } = await setup();
    deps.metrics.failNext = new Error('EPIPE: broken pipe, write');

    const result = await scanBatch(deps, [delivery('m-1')], OPTIONS);

    expect(result.failedMessageIds).toEqual([]);
    expect(logs.filter((l) => l.level === 'error')).toEqual([]);
    expect(logs.find((l) => l.level === 'warn' && l.message === 'metrics not written')).toMatchObject({
      error: 'Error: EPIPE: broken pipe, write',
    });
    expect(await deps.state.claimDelivery(`scan#${CLUSTER}#2026-01-01T01:00:00Z`, NOW, 90_000)).toBe('done');
  });
});

describe('scanBatch with an object of the wrong shape from the API', () => {
  it('logs the note naming the object and field, scans the rest and reports the scan incomplete', async () => {
    const { deps, logs, simulation } = await setup();
    deps.connect = async () => ({
      ...simulation.connection,
      sources: simulatedSources(simulation.seed),
      connectKube: async (cluster) => {
        const kube = await simulation.connection.connectKube(cluster);
        return {
          list: async (query) => {
            const items = await kube.list(query);
            if (query.resource !== 'nodes') return items;
            return [...items, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'broken' }, spec: { taints: true } }];
          },
          get: (resource, name, namespace) => kube.get(resource, name, namespace),
          podLog: (query) => kube.podLog(query),
          patchDeploymentAnnotations: (patch) => kube.patchDeploymentAnnotations(patch),
          deleteNodePool: (name) => kube.deleteNodePool(name),
        };
      },
    });

    const result = await scanBatch(deps, [delivery('m-1')], OPTIONS);

    expect(result.counts.scanned).toBe(1);
    expect(logs.find((l) => l.level === 'warn')).toMatchObject({
      cluster: CLUSTER,
      message: 'note: Kubernetes API: Node broken: spec.taints is true, expected a list; object set aside',
    });
    expect(logs.find((l) => l.message === 'cluster scanned')).toMatchObject({ complete: false });
    expect(deps.alerts.published.map((a) => `${a.event} ${a.code}`)).toEqual(['opened KARPENTER_CONTROLLER_PENDING']);
  });
});
