import { describe, expect, it } from 'vitest';
import { collectSnapshot } from '../../../src/collect/collect.ts';
import type { KubeListQuery } from '../../../src/ports/kubernetes.ts';
import { karpenterDeployment, karpenterPod, node, pod, T0 } from '../../factories/kube.ts';
import { closedAfterEachTest, simulatedDemo } from '../../support/simulation.ts';

const simulations = closedAfterEachTest();

/** A healthy controller; `disrupted` nodes Karpenter is draining (tainted), and 20 others, one pod each. */
async function cluster(disrupted: number) {
  const taints = [{ key: 'karpenter.sh/disrupted', effect: 'NoSchedule' as const }];
  const drained = Array.from({ length: disrupted }, (_, i) => node({ name: `drained-${i}`, taints }));
  const others = Array.from({ length: 20 }, (_, i) => node({ name: `other-${i}` }));
  const pods = [...drained, ...others].map((n, i) => pod({ name: `web-${i}`, namespace: 'shop', nodeName: n.metadata!.name! }));
  const simulation = await simulatedDemo(simulations, {
    nodes: [...drained, ...others],
    pods: [...pods, karpenterPod({ name: 'karpenter-1', createdAt: T0, nodeName: 'system-0', ready: true })],
    deployments: [karpenterDeployment()],
  });
  const queries: KubeListQuery[] = [];
  const connection = {
    aws: simulation.connection.aws,
    connectKube: async (c: Parameters<typeof simulation.connection.connectKube>[0]) => {
      const kube = await simulation.connection.connectKube(c);
      return { ...kube, list: async (q: KubeListQuery) => (queries.push(q), kube.list(q)) };
    },
  };
  const { snapshot } = await collectSnapshot(connection, { clusterName: 'demo' });
  const podLists = queries.filter((q) => q.resource === 'pods');
  return {
    perNode: podLists.filter((q) => q.fieldSelector?.startsWith('spec.nodeName=')).length,
    everyPod: podLists.filter((q) => !q.fieldSelector && !q.labelSelector).length,
    onDrained: snapshot.pods.filter((p) => p.spec?.nodeName?.startsWith('drained-')).length,
    onOthers: snapshot.pods.filter((p) => p.spec?.nodeName?.startsWith('other-')).length,
  };
}

describe('collectSnapshot: the pods of nodes of interest, in a bounded number of requests', () => {
  it('a few nodes of interest: one list per node', async () => {
    expect(await cluster(3)).toEqual({ perNode: 3, everyPod: 0, onDrained: 3, onOthers: 0 });
  });

  it('past 100 nodes of interest (a zone outage): every pod once, the same pods kept', async () => {
    expect(await cluster(150)).toEqual({ perNode: 0, everyPod: 1, onDrained: 150, onOthers: 0 });
  });
});
