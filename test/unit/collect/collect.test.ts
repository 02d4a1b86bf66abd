import { describe, expect, it } from 'vitest';
import { collectSnapshot } from '../../../src/collect/collect.ts';
import { SOURCE_NAMES, type ClusterSnapshot } from '../../../src/domain/snapshot.ts';
import { KubeUnreachableError } from '../../../src/ports/errors.ts';
import type { ClusterConnection } from '../../../src/ports/cluster.ts';
import type { KubeListQuery, PodLogQuery } from '../../../src/ports/kubernetes.ts';
import { awsError } from '../../../src/simulator/in-memory-aws.ts';
import { simulatedInstanceTypes } from '../../../src/simulator/instance-types.ts';
import { simulateSnapshot, type Simulation } from '../../../src/simulator/simulation.ts';
import { instanceProfile, snapshotOf, subnet } from '../../factories/aws.ts';
import { ec2NodeClass, nodeClaim, nodePool } from '../../factories/karpenter.ts';
import {
  condition,
  containerStatus,
  karpenterDeployment,
  karpenterPod,
  node,
  pdb,
  pod,
  T0,
  volumeAttachment,
} from '../../factories/kube.ts';
import { closedAfterEachTest, simulatedDemo } from '../../support/simulation.ts';

const simulations = closedAfterEachTest();

/** A whole cluster (every source exists), served by the simulator. */
function cluster(parts: Parameters<typeof snapshotOf>[0]): Promise<Simulation> {
  return simulatedDemo(simulations, parts);
}

const names = (snapshot: ClusterSnapshot) => snapshot.pods.map((p) => p.metadata?.name).sort();
const workload = Array.from({ length: 20 }, (_, i) => pod({ name: `web-${i}`, namespace: 'shop', nodeName: 'node-a' }));

describe('collectSnapshot', () => {
  it('with a healthy controller reads only Pending pods and the controller pods, not the running workload', async () => {
    const simulation = await cluster({
      pods: [...workload, pod({ name: 'stuck', namespace: 'shop' }), karpenterPod({ name: 'karpenter-1', nodeName: 'node-a' })],
      deployments: [karpenterDeployment()],
    });

    const result = await collectSnapshot(simulation.connection, { clusterName: 'demo' });
    const { snapshot } = result;

    expect(names(snapshot)).toEqual(['karpenter-1', 'stuck']);
    expect(snapshot.gaps).toEqual([]);
    expect(result.unreadable).toBeUndefined();
  });

  it('with the controller Pending reads every pod: judging where it could run needs them all', async () => {
    const simulation = await cluster({
      pods: [...workload, karpenterPod({ name: 'karpenter-1', createdAt: T0 })],
      deployments: [karpenterDeployment()],
    });

    const { snapshot } = await collectSnapshot(simulation.connection, { clusterName: 'demo' });

    expect(snapshot.pods).toHaveLength(21);
  });

  it('reads the running controller pod log, each line traced to its pod', async () => {
    const seed = snapshotOf({ pods: [karpenterPod({ name: 'karpenter-1', nodeName: 'node-a' })] }, 'demo');
    seed.logs = [
      { level: 'ERROR', message: 'AccessDenied', fields: { level: 'ERROR', message: 'AccessDenied' }, origin: 'x.log:1' },
    ];
    seed.captured.add('logs');
    const simulation = await simulateSnapshot(seed);
    simulations.push(simulation);

    const { snapshot } = await collectSnapshot(simulation.connection, {
      clusterName: 'demo',
      sources: new Set(['pods', 'logs']),
    });

    expect(snapshot.logs.map((l) => [l.message, l.origin])).toEqual([['AccessDenied', 'karpenter/karpenter-1:1']]);
  });

  it('for a cluster AWS says is gone, contacts no Kubernetes API and records its objects as none', async () => {
    const simulation = await cluster({ pods: [] });
    simulation.aws.state.cluster = undefined;

    const { snapshot } = await collectSnapshot(simulation.connection, { clusterName: 'demo' });

    expect(simulation.kubeApi.stats.requests).toBe(0);
    expect(snapshot.cluster?.gone).toBe(true);
    expect(['pods', 'nodeclaims', 'nodepools'].every((s) => snapshot.captured.has(s as never))).toBe(true);
    expect(snapshot.gaps).toEqual([]);
  });

  it('sets aside an object the API returns with a field of the wrong type, names it in a note and keeps the rest', async () => {
    const broken = node({ name: 'node-b' });
    (broken.spec as Record<string, unknown>).taints = true;
    const simulation = await cluster({ nodes: [node({ name: 'node-a' }), broken], pods: [] });

    const { snapshot, notices } = await collectSnapshot(simulation.connection, { clusterName: 'demo' });

    expect(snapshot.nodes.map((n) => n.metadata?.name)).toEqual(['node-a']);
    expect(notices).toEqual(['Kubernetes API: Node node-b: spec.taints is true, expected a list; object set aside']);
    expect(snapshot.gaps).toEqual([{ source: 'nodes', error: '1 object set aside as malformed (see notes)' }]);
  });

  it('an unreachable API server is a gap for every Kubernetes source; AWS is still read', async () => {
    const simulation = await cluster({ pods: [] });
    const connection = {
      ...simulation.connection,
      connectKube: async () => {
        throw new KubeUnreachableError('TLS verification failed for https://10.0.0.1: self-signed certificate');
      },
    };

    const { snapshot, unreadable } = await collectSnapshot(connection, { clusterName: 'demo' });

    expect(unreadable).toBe(
      'its Kubernetes API could not be read (pods: TLS verification failed for https://10.0.0.1: self-signed certificate)',
    );
    expect(snapshot.gaps.map((g) => g.source).sort()).toEqual([
      'configmaps',
      'crds',
      'deployments',
      'ec2nodeclasses',
      'endpoints',
      'events',
      'logs',
      'nodeclaims',
      'nodepools',
      'nodes',
      'pdbs',
      'pods',
      'replicasets',
      'services',
      'subnets',
      'volumeattachments',
      'webhookconfigurations',
    ]);
    expect(snapshot.gaps[0]?.error).toBe('TLS verification failed for https://10.0.0.1: self-signed certificate');
    expect(snapshot.captured.has('instances')).toBe(true);
  });
});

/** The simulation's connection, recording every Kubernetes list the collector asks for. */
function recording(simulation: Simulation): { connection: ClusterConnection; lists: KubeListQuery[] } {
  const lists: KubeListQuery[] = [];
  const connection: ClusterConnection = {
    aws: simulation.connection.aws,
    connectKube: async (info) => {
      const kube = await simulation.connection.connectKube(info);
      return {
        list: (query) => {
          lists.push(query);
          return kube.list(query);
        },
        get: (resource, name, namespace) => kube.get(resource, name, namespace),
        podLog: (query) => kube.podLog(query),
        patchDeploymentAnnotations: (patch) => kube.patchDeploymentAnnotations(patch),
        deleteNodePool: (name) => kube.deleteNodePool(name),
      };
    },
  };
  return { connection, lists };
}

const podLists = (lists: readonly KubeListQuery[]) =>
  lists.filter((q) => q.resource === 'pods').map((q) => q.fieldSelector ?? q.labelSelector ?? 'all');

const SUBNET_A = 'subnet-0a1b2c3d4e5f60001';
const SUBNET_B = 'subnet-0a1b2c3d4e5f60002';

/** A NodeClass that resolved two subnets, as Karpenter writes its status. */
function nodeClassWithSubnets(ids: readonly string[] = [SUBNET_A, SUBNET_B]) {
  const nodeClass = ec2NodeClass({ name: 'default' });
  nodeClass.status = { ...nodeClass.status, subnets: ids.map((id, i) => ({ id, zone: `us-east-1${'ab'[i] ?? 'c'}` })) };
  return nodeClass;
}

/** A healthy cluster: a ready controller, two nodes running workloads, a PDB, an attached volume, two roomy subnets. */
function healthyParts() {
  return {
    pods: [...workload, karpenterPod({ name: 'karpenter-1', nodeName: 'node-a' })],
    deployments: [karpenterDeployment()],
    nodes: [node({ name: 'node-a' }), node({ name: 'node-b' })],
    nodeClaims: [nodeClaim({ name: 'default-a', nodeName: 'node-a' }), nodeClaim({ name: 'default-b', nodeName: 'node-b' })],
    nodePools: [nodePool({ name: 'default' })],
    nodeClasses: [nodeClassWithSubnets()],
    pdbs: [pdb({ name: 'web', namespace: 'shop', matchLabels: { app: 'web' } })],
    volumeAttachments: [volumeAttachment({ name: 'csi-0a1b', nodeName: 'node-a', persistentVolumeName: 'pvc-1' })],
    subnets: [subnet({ id: SUBNET_A }), subnet({ id: SUBNET_B, zone: 'us-east-1b' }), subnet({ id: 'subnet-of-another-vpc' })],
  };
}

describe('collectSnapshot: PodDisruptionBudgets, VolumeAttachments, subnets', () => {
  it('a healthy cluster costs one list each for PDBs and VolumeAttachments, one DescribeSubnets, and no extra pod list', async () => {
    // Prepare
    const simulation = await cluster(healthyParts());
    const { connection, lists } = recording(simulation);

    // Act
    const { snapshot } = await collectSnapshot(connection, { clusterName: 'demo', now: new Date('2026-01-02T00:00:00Z') });

    // Assess
    expect(snapshot.gaps).toEqual([]);
    expect(snapshot.pdbs.map((p) => p.metadata?.name)).toEqual(['web']);
    expect(snapshot.pdbs[0]?.status).toEqual({ disruptionsAllowed: 1, currentHealthy: 2, desiredHealthy: 1, expectedPods: 2 });
    expect(snapshot.volumeAttachments.map((v) => [v.metadata?.name, v.spec?.nodeName, v.status?.attached])).toEqual([
      ['csi-0a1b', 'node-a', true],
    ]);
    expect(snapshot.subnets.map((s) => s.id)).toEqual([SUBNET_A, SUBNET_B]);
    expect(lists.filter((q) => q.resource === 'poddisruptionbudgets' || q.resource === 'volumeattachments')).toEqual([
      { resource: 'poddisruptionbudgets' },
      { resource: 'volumeattachments' },
    ]);
    expect(podLists(lists).sort()).toEqual(['app.kubernetes.io/name=karpenter', 'status.phase=Pending']);
    expect(simulation.aws.callsTo('DescribeSubnets')).toEqual([
      { operation: 'DescribeSubnets', input: { subnetIds: [SUBNET_A, SUBNET_B] } },
    ]);
    expect(names(snapshot)).toEqual(['karpenter-1']);
  });

  it('reads the pods of each node Karpenter is disrupting: one list per node, merged with the others once', async () => {
    // Prepare: node-b is tainted for disruption, node-c's NodeClaim is being deleted, node-d's drifted, node-e's expired.
    const parts = healthyParts();
    const deleted = nodeClaim({ name: 'default-c', nodeName: 'node-c' });
    deleted.metadata = {
      ...deleted.metadata,
      deletionTimestamp: '2026-01-01T23:00:00Z',
      finalizers: ['karpenter.sh/termination'],
    };
    const pool = nodePool({ name: 'default' });
    if (pool.spec?.template?.spec) pool.spec.template.spec.expireAfter = '720h';
    const simulation = await cluster({
      ...parts,
      nodes: [
        node({ name: 'node-a' }),
        node({ name: 'node-b', taints: [{ key: 'karpenter.sh/disrupted', effect: 'NoSchedule' }] }),
        node({ name: 'node-c' }),
        node({ name: 'node-d' }),
        node({ name: 'node-e' }),
      ],
      nodeClaims: [
        nodeClaim({ name: 'default-a', nodeName: 'node-a', createdAt: '2026-01-01T12:00:00Z' }),
        nodeClaim({ name: 'default-b', nodeName: 'node-b', createdAt: '2026-01-01T12:00:00Z' }),
        deleted,
        nodeClaim({
          name: 'default-d',
          nodeName: 'node-d',
          createdAt: '2026-01-01T12:00:00Z',
          conditions: [condition('Drifted', 'True')],
        }),
        nodeClaim({ name: 'default-e', nodeName: 'node-e', createdAt: '2025-11-01T00:00:00Z' }),
      ],
      nodePools: [pool],
      pods: [
        ...workload,
        karpenterPod({ name: 'karpenter-1', nodeName: 'node-a' }),
        pod({ name: 'db-0', namespace: 'shop', nodeName: 'node-b' }),
        pod({ name: 'cache-0', namespace: 'shop', nodeName: 'node-c' }),
        pod({ name: 'queue-0', namespace: 'shop', nodeName: 'node-d' }),
        pod({ name: 'old-0', namespace: 'shop', nodeName: 'node-e' }),
        // Pending and nominated to a node being drained: read by two lists, kept once.
        pod({ name: 'stuck', namespace: 'shop', nodeName: 'node-b', phase: 'Pending' }),
      ],
    });
    const { connection, lists } = recording(simulation);

    // Act
    const { snapshot } = await collectSnapshot(connection, { clusterName: 'demo', now: new Date('2026-01-02T00:00:00Z') });

    // Assess
    expect(podLists(lists).sort()).toEqual([
      'app.kubernetes.io/name=karpenter',
      'spec.nodeName=node-b',
      'spec.nodeName=node-c',
      'spec.nodeName=node-d',
      'spec.nodeName=node-e',
      'status.phase=Pending',
    ]);
    expect(names(snapshot)).toEqual(['cache-0', 'db-0', 'karpenter-1', 'old-0', 'queue-0', 'stuck']);
    expect(snapshot.gaps).toEqual([]);
  });

  it('asks DescribeSubnets nothing when no EC2NodeClass names a subnet; the source is captured, empty', async () => {
    const simulation = await cluster({ ...healthyParts(), nodeClasses: [ec2NodeClass({ name: 'default' })] });

    const { snapshot } = await collectSnapshot(simulation.connection, { clusterName: 'demo' });

    expect(simulation.aws.callsTo('DescribeSubnets')).toEqual([]);
    expect(snapshot.captured.has('subnets')).toBe(true);
    expect(snapshot.subnets).toEqual([]);
  });

  it('a denied DescribeSubnets, a PDB list or a VolumeAttachment list denied: a gap each, the rest is read', async () => {
    // Prepare
    const seed = snapshotOf(healthyParts(), 'demo');
    seed.cluster = { name: 'demo', status: 'ACTIVE' };
    for (const source of SOURCE_NAMES) seed.captured.add(source);
    const forbidden = (resource: string, group: string) =>
      `403 Forbidden: ${resource}.${group} is forbidden: User "sentinel" cannot list resource "${resource}" in API group "${group}" at the cluster scope`;
    seed.gaps.push(
      { source: 'pdbs', error: forbidden('poddisruptionbudgets', 'policy') },
      { source: 'volumeattachments', error: forbidden('volumeattachments', 'storage.k8s.io') },
    );
    const simulation = await simulateSnapshot(seed);
    simulations.push(simulation);
    simulation.aws.faults.fail('DescribeSubnets', {
      error: awsError('UnauthorizedOperation', 'You are not authorized to perform this operation.'),
    });

    // Act
    const { snapshot } = await collectSnapshot(simulation.connection, { clusterName: 'demo' });

    // Assess
    expect(snapshot.gaps.map((g) => [g.source, g.error])).toEqual(
      expect.arrayContaining([
        ['pdbs', forbidden('poddisruptionbudgets', 'policy')],
        ['volumeattachments', forbidden('volumeattachments', 'storage.k8s.io')],
        ['subnets', 'DescribeSubnets failed: UnauthorizedOperation: You are not authorized to perform this operation.'],
      ]),
    );
    expect(snapshot.gaps).toHaveLength(3);
    expect(['pdbs', 'volumeattachments', 'subnets'].some((s) => snapshot.captured.has(s as never))).toBe(false);
    expect(snapshot.nodeClasses).toHaveLength(1);
  });

  it('an instance profile whose tags could not be read makes the instance profiles a gap: untagged, it would prove nothing', async () => {
    // Prepare
    const why = 'ListInstanceProfileTags failed: AccessDenied: not authorized to perform: iam:ListInstanceProfileTags';
    const simulation = await cluster({
      ...healthyParts(),
      instanceProfiles: [{ ...instanceProfile({ name: 'demo_1', role: 'KarpenterNodeRole-demo' }), tagsUnreadable: why }],
    });

    // Act
    const { snapshot } = await collectSnapshot(simulation.connection, { clusterName: 'demo' });

    // Assess
    expect(snapshot.gaps.map((g) => [g.source, g.error])).toEqual([['instanceprofiles', why]]);
    expect(snapshot.captured.has('instanceprofiles')).toBe(false);
  });

  it("reads the region's instance types with one DescribeInstanceTypes; denied, they are a gap and the rest is read", async () => {
    // Prepare
    const m5 = { ...simulatedInstanceTypes()[0]!, name: 'm5.large' };
    const simulation = await cluster({ ...healthyParts(), instanceTypes: [m5] });
    const denied = await cluster({ ...healthyParts(), instanceTypes: [m5] });
    denied.aws.faults.fail('DescribeInstanceTypes', { error: awsError('ThrottlingException', 'Rate exceeded') });

    // Act
    const { snapshot } = await collectSnapshot(simulation.connection, { clusterName: 'demo' });
    const throttled = await collectSnapshot(denied.connection, { clusterName: 'demo' });

    // Assess
    expect(snapshot.instanceTypes).toEqual([m5]);
    expect(simulation.aws.callsTo('DescribeInstanceTypes')).toHaveLength(1);
    expect(throttled.unreadable).toBeUndefined();
    expect(throttled.snapshot.gaps).toEqual([
      { source: 'instancetypes', error: 'DescribeInstanceTypes failed: ThrottlingException: Rate exceeded' },
    ]);
    expect(throttled.snapshot.nodeClasses).toHaveLength(1);
  });

  it('describes the subnets of the EC2NodeClasses even when the EC2NodeClasses themselves are not wanted', async () => {
    const simulation = await cluster(healthyParts());

    const { snapshot } = await collectSnapshot(simulation.connection, { clusterName: 'demo', sources: new Set(['subnets']) });

    expect(snapshot.subnets.map((s) => s.id)).toEqual([SUBNET_A, SUBNET_B]);
    expect([...snapshot.captured]).toEqual(['subnets']);
  });

  it('when the EC2NodeClasses cannot be read, subnets is a gap too (which to describe is unknown)', async () => {
    const simulation = await cluster(healthyParts());
    simulation.kubeApi.faults.add({ path: '/apis/karpenter.k8s.aws/', status: 403, message: 'ec2nodeclasses is forbidden' });

    const { snapshot } = await collectSnapshot(simulation.connection, { clusterName: 'demo' });

    expect(snapshot.gaps.map((g) => g.source).sort()).toEqual(['ec2nodeclasses', 'subnets']);
    expect(simulation.aws.callsTo('DescribeSubnets')).toEqual([]);
  });
});

describe('collectSnapshot: the previous container log of restarted controller pods', () => {
  /** The simulation's connection, recording every pod log request. */
  function recordingLogs(simulation: Simulation, fail?: (query: PodLogQuery) => boolean) {
    const logs: PodLogQuery[] = [];
    const connection: ClusterConnection = {
      aws: simulation.connection.aws,
      connectKube: async (info) => {
        const kube = await simulation.connection.connectKube(info);
        return {
          list: (query) => kube.list(query),
          get: (resource, name, namespace) => kube.get(resource, name, namespace),
          podLog: async (query) => {
            logs.push(query);
            if (fail?.(query)) throw new Error('previous terminated container "controller" in pod "karpenter-2" not found');
            return kube.podLog(query);
          },
          patchDeploymentAnnotations: (patch) => kube.patchDeploymentAnnotations(patch),
          deleteNodePool: (name) => kube.deleteNodePool(name),
        };
      },
    };
    return { connection, logs };
  }

  const controllerSpec = { containers: [{ name: 'controller' }] };
  const restarted = (name: string, restarts: number) =>
    karpenterPod({
      name,
      nodeName: 'node-a',
      ready: false,
      spec: controllerSpec,
      containerStatuses: [
        containerStatus({
          restarts,
          waiting: 'CrashLoopBackOff',
          lastTerminated: { reason: 'Error', exitCode: 1, finishedAt: T0 },
        }),
      ],
    });
  const line = (message: string, origin: string, previous = false) => ({
    level: 'ERROR',
    message,
    fields: { level: 'ERROR', message },
    origin,
    ...(previous ? { previous: true as const } : {}),
  });

  async function seeded(pods: ReturnType<typeof karpenterPod>[], logs: ReturnType<typeof line>[]) {
    const seed = snapshotOf({ pods }, 'demo');
    seed.logs = logs;
    seed.captured.add('logs');
    const simulation = await simulateSnapshot(seed);
    simulations.push(simulation);
    return simulation;
  }

  it('a healthy controller costs no previous-log request', async () => {
    // Prepare
    const simulation = await seeded(
      [
        karpenterPod({ name: 'karpenter-1', nodeName: 'node-a', spec: controllerSpec, containerStatuses: [containerStatus()] }),
        karpenterPod({ name: 'karpenter-2', nodeName: 'node-b', spec: controllerSpec, containerStatuses: [containerStatus()] }),
      ],
      [line('AccessDenied', 'karpenter.log:1')],
    );
    const { connection, logs } = recordingLogs(simulation);
    // Act
    await collectSnapshot(connection, { clusterName: 'demo', sources: new Set(['pods', 'logs']) });
    // Assess
    expect(logs).toHaveLength(2);
    expect(logs.filter((q) => q.previous)).toEqual([]);
  });

  it('one more request per restarted pod, bounded in lines and bytes; its lines are marked previous', async () => {
    // Prepare
    const simulation = await seeded(
      [
        karpenterPod({ name: 'karpenter-1', nodeName: 'node-a', spec: controllerSpec, containerStatuses: [containerStatus()] }),
        restarted('karpenter-2', 4),
      ],
      [line('panic: leader election lost', 'karpenter-previous.log:1', true), line('AccessDenied', 'karpenter.log:1')],
    );
    const { connection, logs } = recordingLogs(simulation);
    // Act
    const { snapshot } = await collectSnapshot(connection, { clusterName: 'demo', sources: new Set(['pods', 'logs']) });
    // Assess
    expect(logs.filter((q) => q.previous)).toEqual([
      {
        namespace: 'karpenter',
        pod: 'karpenter-2',
        container: 'controller',
        tailLines: 500,
        previous: true,
        limitBytes: 1024 * 1024,
        onTruncated: expect.any(Function),
      },
    ]);
    expect(logs).toHaveLength(3);
    expect(snapshot.logs.filter((l) => l.previous).map((l) => [l.message, l.origin])).toEqual([
      ['panic: leader election lost', 'karpenter/karpenter-2 (previous):1'],
    ]);
    expect(snapshot.logs.filter((l) => !l.previous).map((l) => l.message)).toEqual(['AccessDenied']);
  });

  it('a previous log that cannot be read costs its lines only: no gap', async () => {
    // Prepare
    const simulation = await seeded([restarted('karpenter-2', 1)], [line('AccessDenied', 'karpenter.log:1')]);
    const { connection } = recordingLogs(simulation, (q) => q.previous === true);
    // Act
    const { snapshot } = await collectSnapshot(connection, { clusterName: 'demo', sources: new Set(['pods', 'logs']) });
    // Assess
    expect(snapshot.gaps).toEqual([]);
    expect(snapshot.logs.map((l) => l.message)).toEqual(['AccessDenied']);
  });
});
