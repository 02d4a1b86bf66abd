import { describe, expect, it } from 'vitest';
import { collectSnapshot } from '../../../src/collect/collect.ts';
import { SOURCE_NAMES, type ClusterSnapshot } from '../../../src/domain/snapshot.ts';
import { KubeUnreachableError } from '../../../src/ports/errors.ts';
import { simulateSnapshot, type Simulation } from '../../../src/simulator/simulation.ts';
import { snapshotOf } from '../../factories/aws.ts';
import { karpenterDeployment, karpenterPod, node, pod, T0 } from '../../factories/kube.ts';
import { closedAfterEachTest } from '../../support/simulation.ts';

const simulations = closedAfterEachTest();

/** A whole cluster (every source exists), served by the simulator. */
async function cluster(parts: Parameters<typeof snapshotOf>[0]): Promise<Simulation> {
  const seed = snapshotOf(parts, 'demo');
  seed.cluster = { name: 'demo', status: 'ACTIVE' };
  for (const source of SOURCE_NAMES) seed.captured.add(source);
  const simulation = await simulateSnapshot(seed);
  simulations.push(simulation);
  return simulation;
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
      'its Kubernetes API could not be read (deployments: TLS verification failed for https://10.0.0.1: self-signed certificate)',
    );
    expect(snapshot.gaps.map((g) => g.source).sort()).toEqual([
      'configmaps',
      'crds',
      'deployments',
      'ec2nodeclasses',
      'events',
      'logs',
      'nodeclaims',
      'nodepools',
      'nodes',
      'pods',
      'replicasets',
      'services',
    ]);
    expect(snapshot.gaps[0]?.error).toBe('TLS verification failed for https://10.0.0.1: self-signed certificate');
    expect(snapshot.captured.has('instances')).toBe(true);
  });
});
