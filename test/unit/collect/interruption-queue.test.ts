/**
 * The live reads of Karpenter's interruption queue (src/collect/interruption-queue.ts): through the
 * real Kubernetes adapter to the simulated API server and the in-memory AWS. The setting comes from
 * the controller's Deployment or its settings ConfigMap; every failure is a gap on its own source.
 */
import { describe, expect, it } from 'vitest';
import { collectSnapshot } from '../../../src/collect/collect.ts';
import { collectInterruptionQueue } from '../../../src/collect/interruption-queue.ts';
import type { InterruptionQueue, QueueRule } from '../../../src/domain/interruption-queue.ts';
import type { ConfigMap, Deployment, PodSpec } from '../../../src/domain/kube.ts';
import type { AwsPorts } from '../../../src/ports/aws.ts';
import type { ClusterConnection } from '../../../src/ports/cluster.ts';
import { SourceError } from '../../../src/ports/errors.ts';
import type { KubernetesReader } from '../../../src/ports/kubernetes.ts';
import type { CaptureMerger } from '../../../src/snapshot/capture-merger.ts';
import type { InMemoryAws } from '../../../src/simulator/in-memory-aws.ts';
import { karpenterDeployment } from '../../factories/kube.ts';
import { closedAfterEachTest, simulatedDemo } from '../../support/simulation.ts';

const simulations = closedAfterEachTest();
const NOW = new Date('2026-01-01T01:00:00Z');
const ARN = 'arn:aws:sqs:us-east-1:111122223333:demo';
const SPOT_RULE: QueueRule = {
  name: 'demo-SpotInterruptionRule-1A2B3C',
  state: 'ENABLED',
  eventPattern: '{"source":["aws.ec2"],"detail-type":["EC2 Spot Instance Interruption Warning"]}',
};

function queue(name: string, attributes: Record<string, string> = {}): InterruptionQueue {
  return {
    name,
    exists: true,
    url: `https://sqs.us-east-1.amazonaws.com/111122223333/${name}`,
    attributes: { QueueArn: `arn:aws:sqs:us-east-1:111122223333:${name}`, ...attributes },
  };
}

function controllerWith(container: NonNullable<PodSpec['containers']>[number]) {
  return karpenterDeployment({ spec: { containers: [{ name: 'controller', ...container }] } });
}

function globalSettings(data: Record<string, string>): ConfigMap {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'karpenter-global-settings', namespace: 'karpenter' },
    data,
  };
}

async function collect(parts: Parameters<typeof simulatedDemo>[1], wrap: (c: ClusterConnection) => ClusterConnection = (c) => c) {
  const simulation = await simulatedDemo(simulations, { queueRules: [], ...parts });
  const aws = simulation.connection.aws as InMemoryAws;
  const result = await collectSnapshot(wrap(simulation.connection), { clusterName: 'demo', now: NOW });
  return { ...result, aws };
}

/** The connection, but every ConfigMap GET is refused (RBAC without the get on karpenter-global-settings); `gets` counts them. */
function configMapsForbidden(c: ClusterConnection, gets: string[] = []): ClusterConnection {
  return {
    ...c,
    connectKube: async (info) => {
      const kube = await c.connectKube(info);
      const get: typeof kube.get = async (resource, name, namespace) => {
        if (resource === 'configmaps') {
          gets.push(name);
          throw new SourceError('configmaps "karpenter-global-settings" is forbidden');
        }
        return kube.get(resource, name, namespace);
      };
      // The adapter's own methods, bound to it (their private fields), but `get`.
      return new Proxy(kube, {
        get: (target, key) => {
          if (key === 'get') return get;
          const value: unknown = Reflect.get(target, key, target);
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      });
    },
  };
}

describe('collectSnapshot: the interruption queue', () => {
  it('looks up the queue INTERRUPTION_QUEUE names, then its rules and the age of its oldest message', async () => {
    // Act
    const { snapshot, aws } = await collect({
      deployments: [controllerWith({ env: [{ name: 'INTERRUPTION_QUEUE', value: 'demo' }] })],
      interruptionQueues: [queue('demo', { SqsManagedSseEnabled: 'true' })],
      queueRules: [SPOT_RULE],
      queueOldestMessageAgeSeconds: 4,
    });

    // Assess
    expect(snapshot.interruptionQueues).toEqual([queue('demo', { SqsManagedSseEnabled: 'true' })]);
    expect(snapshot.queueRules).toEqual([SPOT_RULE]);
    expect(snapshot.queueOldestMessageAgeSeconds).toBe(4);
    expect(snapshot.gaps).toEqual([]);
    expect(aws.callsTo('GetQueueUrl')).toEqual([{ operation: 'GetQueueUrl', input: { name: 'demo' } }]);
    expect(aws.callsTo('ListRuleNamesByTarget')).toEqual([{ operation: 'ListRuleNamesByTarget', input: { queueArn: ARN } }]);
    expect(aws.callsTo('GetMetricStatistics')).toEqual([{ operation: 'GetMetricStatistics', input: { queueName: 'demo' } }]);
  });

  it("a typo'd name: the queue does not exist, the one named after the cluster does; no rules or age are asked", async () => {
    // Act
    const { snapshot, aws } = await collect({
      deployments: [controllerWith({ env: [{ name: 'INTERRUPTION_QUEUE', value: 'dmeo' }] })],
      interruptionQueues: [queue('demo')],
    });

    // Assess
    expect(snapshot.interruptionQueues).toEqual([{ name: 'dmeo', exists: false }, queue('demo')]);
    expect(aws.callsTo('GetQueueUrl').map((c) => c.input.name)).toEqual(['dmeo', 'demo']);
    expect(aws.callsTo('ListRuleNamesByTarget')).toEqual([]);
    expect(aws.callsTo('GetMetricStatistics')).toEqual([]);
    expect(snapshot.captured.has('queuerules')).toBe(false);
    expect(snapshot.gaps).toEqual([]);
  });

  it('an ARN as the setting (the --interruption-queue flag winning over the env): the name it ends with is looked up', async () => {
    // Act
    const { snapshot, aws } = await collect({
      deployments: [
        controllerWith({ args: [`--interruption-queue=${ARN}`], env: [{ name: 'INTERRUPTION_QUEUE', value: 'other' }] }),
      ],
      interruptionQueues: [queue('demo')],
    });

    // Assess
    expect(aws.callsTo('GetQueueUrl').map((c) => c.input.name)).toEqual(['demo']);
    expect(snapshot.interruptionQueues).toEqual([queue('demo')]);
  });

  it('unset in the Deployment: the v0.19–v0.32 ConfigMap is read by name and merged, and its queue looked up', async () => {
    // Act
    const { snapshot, aws } = await collect({
      deployments: [controllerWith({ env: [] })],
      configMaps: [globalSettings({ 'aws.interruptionQueueName': 'legacy-queue' })],
      interruptionQueues: [queue('legacy-queue')],
    });

    // Assess
    expect(snapshot.configMaps.map((c) => c.metadata?.name)).toEqual(['karpenter-global-settings']);
    expect(aws.callsTo('GetQueueUrl').map((c) => c.input.name)).toEqual(['legacy-queue']);
    expect(snapshot.interruptionQueues).toEqual([queue('legacy-queue')]);
  });

  it('unset everywhere: only the queue named after the cluster is asked for, and that there is none is recorded', async () => {
    // Act
    const { snapshot, aws } = await collect({ deployments: [controllerWith({ env: [] })], interruptionQueues: [] });

    // Assess
    expect(aws.callsTo('GetQueueUrl').map((c) => c.input.name)).toEqual(['demo']);
    expect(snapshot.interruptionQueues).toEqual([{ name: 'demo', exists: false }]);
    // No queue: nothing targets it, nothing ages in it; neither is asked.
    expect(aws.callsTo('ListRuleNamesByTarget')).toEqual([]);
    expect(snapshot.gaps).toEqual([]);
  });

  it('a value set from elsewhere (valueFrom) is unknown, a gap, never "unset": no lookup is made', async () => {
    // Act
    const { snapshot, aws } = await collect({
      deployments: [
        controllerWith({ env: [{ name: 'INTERRUPTION_QUEUE', valueFrom: { configMapKeyRef: { name: 'x', key: 'q' } } }] }),
      ],
      interruptionQueues: [queue('demo')],
    });

    // Assess
    expect(aws.callsTo('GetQueueUrl')).toEqual([]);
    expect(snapshot.gaps).toEqual([
      {
        source: 'interruptionqueue',
        error: 'not read: env INTERRUPTION_QUEUE of deployment karpenter/karpenter is set from elsewhere (valueFrom)',
      },
    ]);
  });

  it('each failed read is a gap on its own source; the others are still read', async () => {
    // Prepare
    const parts = {
      deployments: [controllerWith({ env: [{ name: 'INTERRUPTION_QUEUE', value: 'demo' }] })],
      interruptionQueues: [queue('demo')],
      queueRules: [SPOT_RULE],
      queueOldestMessageAgeSeconds: 4,
    };
    const denied = (operation: 'ListRuleNamesByTarget' | 'GetQueueUrl') => (connection: ClusterConnection) => {
      (connection.aws as InMemoryAws).faults.fail(operation, { error: { code: 'AccessDeniedException', message: 'no' } });
      return connection;
    };

    // Act
    const rulesDenied = await collect(parts, denied('ListRuleNamesByTarget'));
    const queueDenied = await collect(parts, denied('GetQueueUrl'));

    // Assess
    expect(rulesDenied.snapshot.gaps).toEqual([
      { source: 'queuerules', error: 'ListRuleNamesByTarget failed: AccessDeniedException: no' },
    ]);
    expect(rulesDenied.snapshot.queueOldestMessageAgeSeconds).toBe(4);
    expect(rulesDenied.snapshot.interruptionQueues).toEqual([queue('demo')]);
    // Denied is not "does not exist": nothing is recorded of the queue, and nothing more is asked.
    expect(queueDenied.snapshot.gaps).toEqual([
      { source: 'interruptionqueue', error: 'GetQueueUrl failed: AccessDeniedException: no' },
    ]);
    expect(queueDenied.snapshot.interruptionQueues).toEqual([]);
    expect(queueDenied.aws.callsTo('ListRuleNamesByTarget')).toEqual([]);
  });

  it('a ConfigMap the scan may not read leaves an unset Deployment unknown: a gap naming the missing grant', async () => {
    // Act
    const { snapshot, aws } = await collect(
      { deployments: [controllerWith({ env: [] })], interruptionQueues: [] },
      configMapsForbidden,
    );

    // Assess
    expect(aws.callsTo('GetQueueUrl')).toEqual([]);
    expect(snapshot.gaps).toEqual([
      {
        source: 'interruptionqueue',
        error: expect.stringContaining(
          'ConfigMap karpenter/karpenter-global-settings (where v0.19–v0.32 keep it) could not be read: configmaps "karpenter-global-settings" is forbidden',
        ),
      },
    ]);
  });

  it('v0.33+ (image tag 1.0.0) setting no queue: karpenter-global-settings is never asked for, a leftover key is not the setting, no gap', async () => {
    // Prepare
    const gets: string[] = [];
    const v1 = controllerWith({ image: 'public.ecr.aws/karpenter/controller:1.0.0', env: [] });

    // Act
    const { snapshot, aws } = await collect(
      {
        deployments: [v1],
        configMaps: [globalSettings({ 'aws.interruptionQueueName': 'leftover' })],
        interruptionQueues: [queue('leftover')],
      },
      (c) => configMapsForbidden(c, gets),
    );

    // Assess
    expect(gets).toEqual([]);
    expect(snapshot.gaps).toEqual([]);
    expect(aws.callsTo('GetQueueUrl').map((c) => c.input.name)).toEqual(['demo']);
  });

  it('v0.31 (chart label) reads only the ConfigMap: an INTERRUPTION_QUEUE env is not its setting', async () => {
    // Prepare
    const v031 = controllerWith({ env: [{ name: 'INTERRUPTION_QUEUE', value: 'from-env' }] });
    v031.metadata = { ...v031.metadata, labels: { ...v031.metadata?.labels, 'helm.sh/chart': 'karpenter-v0.31.4' } };

    // Act
    const { aws } = await collect({
      deployments: [v031],
      configMaps: [globalSettings({ 'aws.interruptionQueueName': 'from-configmap' })],
      interruptionQueues: [queue('from-configmap')],
    });

    // Assess
    expect(aws.callsTo('GetQueueUrl').map((c) => c.input.name)).toEqual(['from-configmap']);
  });

  it('args that are a string, not a list (a hand-edited capture): no crash, the setting is read from the env', async () => {
    // Act
    const { snapshot, aws } = await collect({
      deployments: [
        controllerWith({
          args: '--interruption-queue=x' as unknown as string[],
          env: [{ name: 'INTERRUPTION_QUEUE', value: 'demo' }],
        }),
      ],
      interruptionQueues: [queue('demo')],
    });

    // Assess
    expect(snapshot.gaps).toEqual([]);
    expect(aws.callsTo('GetQueueUrl').map((c) => c.input.name)).toEqual(['demo']);
  });
});

describe('collectInterruptionQueue', () => {
  it('never rejects: an unexpected failure (a null Deployment in the list) is a gap on the queue', async () => {
    // Prepare
    const gaps: { source: string; error: unknown }[] = [];
    const kube = {
      reader: {} as KubernetesReader,
      deployments: Promise.resolve([null as unknown as Deployment]),
      configMapsListed: Promise.resolve(),
    };

    // Act
    const done = collectInterruptionQueue(
      {} as AwsPorts,
      kube,
      {} as CaptureMerger,
      (source, error) => gaps.push({ source, error }),
      {
        clusterName: 'demo',
        now: NOW,
        wanted: new Set(),
      },
    );

    // Assess
    await expect(done).resolves.toBeUndefined();
    expect(gaps.map((g) => g.source)).toEqual(['interruptionqueue']);
  });
});
