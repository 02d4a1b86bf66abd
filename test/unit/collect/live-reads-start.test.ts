/**
 * When each read of a live scan starts: as soon as what it depends on is known, at most 8 in flight
 * (src/collect/collect.ts CONCURRENCY), none waiting on a list it does not need. Observed through a
 * Kubernetes port and an AWS port that hold answers until a step happens (a gate), never by time.
 */
import { describe, expect, it } from 'vitest';
import { collectSnapshot } from '../../../src/collect/collect.ts';
import type { AwsPorts } from '../../../src/ports/aws.ts';
import type { ClusterConnection } from '../../../src/ports/cluster.ts';
import type { KubeListQuery, KubernetesPort } from '../../../src/ports/kubernetes.ts';
import { awsError } from '../../../src/simulator/in-memory-aws.ts';
import type { Simulation } from '../../../src/simulator/simulation.ts';
import { karpenterDeployment, karpenterPod, node, pod, T0 } from '../../factories/kube.ts';
import { gate } from '../../support/gate.ts';
import { closedAfterEachTest, simulatedDemo } from '../../support/simulation.ts';

const simulations = closedAfterEachTest();

const SPOT_LABELS = { 'karpenter.sh/capacity-type': 'spot', 'node.kubernetes.io/instance-type': 'm5.large' };

/** A healthy controller; `drained` Spot nodes Karpenter is draining (tainted), one pod each. */
async function healthy(drained: number): Promise<Simulation> {
  const taints = [{ key: 'karpenter.sh/disrupted', effect: 'NoSchedule' as const }];
  const nodes = Array.from({ length: drained }, (_, i) => node({ name: `drained-${i}`, taints, labels: SPOT_LABELS }));
  const pods = nodes.map((n, i) => pod({ name: `web-${i}`, namespace: 'shop', nodeName: n.metadata!.name! }));
  return simulatedDemo(simulations, {
    nodes,
    pods: [...pods, karpenterPod({ name: 'karpenter-1', createdAt: T0, nodeName: 'system-0', ready: true })],
    deployments: [karpenterDeployment()],
  });
}

const isPodsOfNode = (q: KubeListQuery) => q.resource === 'pods' && q.fieldSelector?.startsWith('spec.nodeName=') === true;
/** The lists the pods of nodes of interest wait on, and the pod lists themselves. */
const neededFirst = (q: KubeListQuery) => q.resource === 'pods' || ['nodes', 'nodeclaims', 'nodepools'].includes(q.resource);

/** The reader with its lists answered by `list` (a spread would lose the class's other methods). */
function withList(kube: KubernetesPort, list: KubernetesPort['list']): KubernetesPort {
  return {
    list,
    get: (resource, name, namespace) => kube.get(resource, name, namespace),
    podLog: (query) => kube.podLog(query),
    patchDeploymentAnnotations: (patch) => kube.patchDeploymentAnnotations(patch),
    deleteNodePool: (name) => kube.deleteNodePool(name),
  };
}

function connection(
  simulation: Simulation,
  wrapKube: (kube: KubernetesPort) => KubernetesPort,
  wrapAws: (aws: AwsPorts) => AwsPorts = (aws) => aws,
): ClusterConnection {
  return {
    aws: wrapAws(simulation.connection.aws),
    connectKube: async (c) => wrapKube(await simulation.connection.connectKube(c)),
  };
}

describe('collectSnapshot: each read starts as soon as what it depends on is known', () => {
  it('asks for NodePools before other lists take the slots, and for the pods of drained nodes once those three answered', async () => {
    // Prepare
    const simulation = await healthy(3);
    const steps: string[] = [];
    const nodePoolsAsked = gate();
    const podsOfNodeAsked = gate();
    const once = (step: string) => (steps.includes(step) ? undefined : steps.push(step));
    const held = connection(simulation, (kube) =>
      withList(kube, async (query) => {
        if (query.resource === 'nodepools') {
          once('NodePools asked for');
          nodePoolsAsked.open();
        }
        if (isPodsOfNode(query)) {
          once('pods of a node asked for');
          podsOfNodeAsked.open();
        }
        if (query.resource === 'nodes' || query.resource === 'nodeclaims') await nodePoolsAsked.opened;
        else if (!neededFirst(query)) {
          await podsOfNodeAsked.opened;
          once('another list answered');
        }
        return kube.list(query);
      }),
    );

    // Act
    const { snapshot } = await collectSnapshot(held, { clusterName: 'demo' });

    // Assess
    expect(steps).toEqual(['NodePools asked for', 'pods of a node asked for', 'another list answered']);
    expect(snapshot.pods.filter((p) => p.spec?.nodeName?.startsWith('drained-'))).toHaveLength(3);
    expect(snapshot.gaps).toEqual([]);
  });

  it('never has more than 8 reads in flight, and the pods of nodes take every slot the other reads leave', async () => {
    // Prepare
    const simulation = await healthy(12);
    let inFlight = 0;
    let most = 0;
    let podsOfNodesInFlight = 0;
    let mostPodsOfNodes = 0;
    const eightPodListsInFlight = gate();
    const counted = async <T>(read: () => Promise<T>, podsOfNode = false): Promise<T> => {
      inFlight++;
      most = Math.max(most, inFlight);
      if (podsOfNode) {
        podsOfNodesInFlight++;
        mostPodsOfNodes = Math.max(mostPodsOfNodes, podsOfNodesInFlight);
        if (podsOfNodesInFlight === 8) eightPodListsInFlight.open();
      }
      try {
        if (podsOfNode) await eightPodListsInFlight.opened;
        return await read();
      } finally {
        inFlight--;
        if (podsOfNode) podsOfNodesInFlight--;
      }
    };
    const watched = connection(simulation, (kube) => ({
      ...withList(kube, (query) => counted(() => kube.list(query), isPodsOfNode(query))),
      get: (resource, name, namespace) => counted(() => kube.get(resource, name, namespace)),
      podLog: (query) => counted(() => kube.podLog(query)),
    }));

    // Act
    const { snapshot } = await collectSnapshot(watched, { clusterName: 'demo' });

    // Assess
    expect(most).toBe(8);
    expect(mostPodsOfNodes).toBe(8);
    expect(snapshot.pods.filter((p) => p.spec?.nodeName?.startsWith('drained-'))).toHaveLength(12);
  });

  it('asks the Spot prices once Nodes, NodeClaims and instances are read, not after every other list', async () => {
    // Prepare
    const simulation = await healthy(2);
    const steps: string[] = [];
    const spotAsked = gate();
    const early = connection(
      simulation,
      (kube) =>
        withList(kube, async (query) => {
          if (neededFirst(query)) return kube.list(query);
          await spotAsked.opened;
          if (!steps.includes('another list answered')) steps.push('another list answered');
          return kube.list(query);
        }),
      (aws) => ({
        ...aws,
        ec2: {
          ...aws.ec2,
          describeSpotPrices: (types) => {
            steps.push(`Spot prices asked for ${types.join(', ')}`);
            spotAsked.open();
            return aws.ec2.describeSpotPrices(types);
          },
        },
      }),
    );

    // Act
    const { snapshot } = await collectSnapshot(early, { clusterName: 'demo' });

    // Assess
    expect(steps).toEqual(['Spot prices asked for m5.large', 'another list answered']);
    expect(snapshot.captured.has('spotprices')).toBe(true);
  });

  it('a Spot price call denied early is still the last gap, after a list that failed later', async () => {
    // Prepare
    const simulation = await healthy(1);
    simulation.aws.faults.fail('DescribeSpotPriceHistory', {
      error: awsError('UnauthorizedOperation', 'You are not authorized to perform this operation.'),
    });
    const spotAsked = gate();
    const failing = connection(
      simulation,
      (kube) =>
        withList(kube, async (query) => {
          if (query.resource !== 'events') return kube.list(query);
          await spotAsked.opened;
          throw new Error('GET /apis/events.k8s.io/v1/events: 403 Forbidden');
        }),
      (aws) => ({
        ...aws,
        ec2: {
          ...aws.ec2,
          describeSpotPrices: (types) => {
            spotAsked.open();
            return aws.ec2.describeSpotPrices(types);
          },
        },
      }),
    );

    // Act
    const { snapshot } = await collectSnapshot(failing, { clusterName: 'demo' });

    // Assess
    expect(snapshot.gaps.map((g) => g.source)).toEqual(['events', 'spotprices']);
  });
});
