import { describe, expect, it } from 'vitest';
import { collectSnapshot } from '../../../src/collect/collect.ts';
import type { ClusterConnection } from '../../../src/ports/cluster.ts';
import type { KubeListQuery, KubernetesPort } from '../../../src/ports/kubernetes.ts';
import type { Simulation } from '../../../src/simulator/simulation.ts';
import { karpenterDeployment, karpenterPod, pod, T0 } from '../../factories/kube.ts';
import { gate } from '../../support/gate.ts';
import { closedAfterEachTest, simulatedDemo } from '../../support/simulation.ts';

const simulations = closedAfterEachTest();

/** The controller down (its one pod Pending), and more workload pods than one page of 500. */
async function controllerDown(): Promise<Simulation> {
  const workload = Array.from({ length: 1_200 }, (_, i) => pod({ name: `web-${i}`, namespace: 'shop', nodeName: 'node-a' }));
  return simulatedDemo(simulations, {
    pods: [...workload, karpenterPod({ name: 'karpenter-1', createdAt: T0 })],
    deployments: [karpenterDeployment()],
  });
}

const isPending = (q: KubeListQuery) => q.resource === 'pods' && q.fieldSelector === 'status.phase=Pending';
const isEveryPod = (q: KubeListQuery) => q.resource === 'pods' && !q.fieldSelector && !q.labelSelector;

function withKube(simulation: Simulation, wrap: (kube: KubernetesPort) => KubernetesPort): ClusterConnection {
  return { aws: simulation.connection.aws, connectKube: async (c) => wrap(await simulation.connection.connectKube(c)) };
}

describe('collectSnapshot: what waits on what', () => {
  it('with the controller down, asks for every pod as soon as the controller pods are known, not after the Pending list', async () => {
    // Prepare
    const simulation = await controllerDown();
    const steps: string[] = [];
    const everyPodAsked = gate();
    const connection = withKube(simulation, (kube) => ({
      ...kube,
      list: async (query) => {
        if (isEveryPod(query)) {
          steps.push('every pod asked for');
          everyPodAsked.open();
        }
        const items = await kube.list(query);
        if (isPending(query)) {
          await everyPodAsked.opened;
          steps.push('Pending pods answered');
        }
        return items;
      },
    }));

    // Act
    const { snapshot } = await collectSnapshot(connection, { clusterName: 'demo' });

    // Assess
    expect(steps).toEqual(['every pod asked for', 'Pending pods answered']);
    expect(snapshot.pods).toHaveLength(1_201);
  });

  it("with the controller down, asks for the controller's log before every pod is listed and classified", async () => {
    // Prepare
    const simulation = await controllerDown();
    const steps: string[] = [];
    const logAsked = gate();
    const connection = withKube(simulation, (kube) => ({
      ...kube,
      list: async (query) => {
        const items = await kube.list(query);
        if (isEveryPod(query)) {
          await logAsked.opened;
          steps.push('every pod answered');
        }
        return items;
      },
      podLog: async (query) => {
        steps.push('log asked for');
        logAsked.open();
        return kube.podLog(query);
      },
    }));

    // Act
    const { snapshot } = await collectSnapshot(connection, { clusterName: 'demo' });

    // Assess
    expect(steps).toEqual(['log asked for', 'every pod answered']);
    expect(snapshot.captured.has('logs')).toBe(true);
  });

  it('merges the same pods whether the reader tells each page, tells none, or tells a list started over', async () => {
    // Prepare
    const simulation = await controllerDown();
    const collect = async (wrap: (kube: KubernetesPort) => KubernetesPort) =>
      (await collectSnapshot(withKube(simulation, wrap), { clusterName: 'demo' })).snapshot;
    const tellsNone = (kube: KubernetesPort): KubernetesPort => ({
      ...kube,
      list: ({ onPage: _ignored, ...query }) => kube.list(query),
    });
    // A first pass cut short by an expired continue token: its pages told, then the whole list again.
    const startsOver = (kube: KubernetesPort): KubernetesPort => ({
      ...kube,
      list: async (query) => {
        if (isEveryPod(query)) query.onPage?.((await kube.list({ ...query, onPage: undefined })).slice(0, 500));
        return kube.list(query);
      },
    });

    // Act
    const told = await collect((kube) => kube);
    const untold = await collect(tellsNone);
    const restarted = await collect(startsOver);

    // Assess
    expect(told.pods).toHaveLength(1_201);
    expect(JSON.stringify(untold.pods)).toBe(JSON.stringify(told.pods));
    expect(JSON.stringify(restarted.pods)).toBe(JSON.stringify(told.pods));
  });
});
