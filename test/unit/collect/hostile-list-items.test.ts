import { describe, expect, it } from 'vitest';
import { collectSnapshot } from '../../../src/collect/collect.ts';
import type { JsonRecord } from '../../../src/domain/shape.ts';
import type { ClusterConnection } from '../../../src/ports/cluster.ts';
import type { KubeListQuery, KubernetesPort } from '../../../src/ports/kubernetes.ts';
import type { Simulation } from '../../../src/simulator/simulation.ts';
import { karpenterDeployment, karpenterPod, pod } from '../../factories/kube.ts';
import { closedAfterEachTest, simulatedDemo } from '../../support/simulation.ts';

const simulations = closedAfterEachTest();

const isPending = (q: KubeListQuery) => q.resource === 'pods' && q.fieldSelector === 'status.phase=Pending';

/** A healthy controller and one Pending pod: the Pending list is read page by page. */
function healthyCluster(): Promise<Simulation> {
  return simulatedDemo(simulations, {
    pods: [pod({ name: 'stuck', namespace: 'shop' }), karpenterPod({ name: 'karpenter-1', nodeName: 'node-a' })],
    deployments: [karpenterDeployment()],
  });
}

/**
 * The simulator's reader, its Pending list carrying one more item, told as a page of its own that
 * the collector works on in a later turn of the event loop (as it does between the pages of a long
 * list), before the list answers.
 */
function pendingListCarrying(simulation: Simulation, extra: JsonRecord): ClusterConnection {
  const wrap = (kube: KubernetesPort): KubernetesPort => ({
    get: (resource, name, namespace) => kube.get(resource, name, namespace),
    podLog: (query) => kube.podLog(query),
    patchDeploymentAnnotations: (patch) => kube.patchDeploymentAnnotations(patch),
    deleteNodePool: (name) => kube.deleteNodePool(name),
    list: async (query) => {
      if (!isPending(query)) return kube.list(query);
      const items = [...(await kube.list({ ...query, onPage: undefined })), extra];
      query.onPage?.(items);
      await new Promise((turn) => setImmediate(turn));
      return items;
    },
  });
  return { aws: simulation.connection.aws, connectKube: async (c) => wrap(await simulation.connection.connectKube(c)) };
}

describe('collectSnapshot: hostile items in a list read page by page', () => {
  it('an apiVersion that is an object (`{"toString":1}`) crashes nothing: the pod is read as a Pod', async () => {
    // Prepare
    const simulation = await healthyCluster();
    const hostile = JSON.parse(
      '{"apiVersion":{"toString":1},"kind":"Pod","metadata":{"name":"odd","namespace":"shop"},"status":{"phase":"Pending"}}',
    ) as JsonRecord;

    // Act
    const { snapshot } = await collectSnapshot(pendingListCarrying(simulation, hostile), { clusterName: 'demo' });

    // Assess
    expect(snapshot.gaps).toEqual([]);
    expect(snapshot.pods.map((p) => p.metadata?.name).sort()).toEqual(['karpenter-1', 'odd', 'stuck']);
  });

  it('an item whose classification throws makes the pods a gap naming the error, and the scan goes on', async () => {
    // Prepare
    const simulation = await healthyCluster();
    // Any item the classification cannot read (here a field that throws when read) stands for a bug it may have.
    const unreadable = Object.defineProperty({ apiVersion: 'v1', kind: 'Pod' }, 'metadata', {
      enumerable: true,
      get: () => {
        throw new TypeError('metadata cannot be read');
      },
    }) as JsonRecord;

    // Act
    const { snapshot } = await collectSnapshot(pendingListCarrying(simulation, unreadable), { clusterName: 'demo' });

    // Assess
    expect(snapshot.gaps.filter((g) => g.source === 'pods')).toEqual([
      { source: 'pods', error: expect.stringContaining('metadata cannot be read') as string },
    ]);
    expect(snapshot.captured.has('nodes')).toBe(true);
  });
});
