import { describe, expect, it } from 'vitest';
import type { ReplicaSet } from '../../../src/domain/kube.ts';
import { controllersOf, SnapshotIndex } from '../../../src/domain/snapshot-index.ts';
import { snapshotOf } from '../../factories/aws.ts';
import { nodeClaim } from '../../factories/karpenter.ts';
import { condition, event, karpenterPod, pod } from '../../factories/kube.ts';

function replicaSet(name: string, namespace: string, deployment: string): ReplicaSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name,
      namespace,
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: deployment, uid: `uid-${deployment}` }],
    },
  };
}

describe('SnapshotIndex: one walk over the pods answers the questions asked of all of them', () => {
  const web = pod({ name: 'web-1', nodeName: 'node-a' });
  const waiting = pod({ name: 'web-2' });
  const db = pod({ name: 'db-0', nodeName: 'node-b' });
  const api = pod({ name: 'api-1', nodeName: 'node-a' });
  const controller = karpenterPod({ name: 'karpenter-5697769d6c-cdwct', nodeName: 'node-b' });
  const pendingController = karpenterPod({ name: 'karpenter-5697769d6c-x7k2p' });

  it('pods bound to no node are the unbound ones, in the capture order; bound ones are listed under their node', () => {
    const index = new SnapshotIndex(snapshotOf({ pods: [web, waiting, db, controller, api, pendingController] }));

    expect(index.unboundPods).toEqual([waiting, pendingController]);
    expect(index.podsByNode.get('node-a')).toEqual([web, api]);
    expect(index.podsByNode.get('node-b')).toEqual([db, controller]);
  });

  it("the controller's pods, bound or not, under the Deployment their ReplicaSet names, whatever other ReplicaSets exist", () => {
    const index = new SnapshotIndex(
      snapshotOf({
        pods: [web, controller, pendingController],
        replicaSets: [
          replicaSet('web-7d4b9c8f6d', 'default', 'web'),
          replicaSet('karpenter-5697769d6c', 'karpenter', 'karpenter-v1'),
          replicaSet('karpenter-5697769d6c', 'other', 'not-this-one'),
        ],
      }),
    );

    expect(index.controllers.map((c) => [c.namespace, c.deploymentName, c.pods.length])).toEqual([
      ['karpenter', 'karpenter-v1', 2],
    ]);
  });

  it("kube-system's pods (where aws-node runs), bound or not, in the capture order", () => {
    const awsNode = pod({ name: 'aws-node-x7k2p', namespace: 'kube-system', nodeName: 'node-a' });
    const coreDns = pod({ name: 'coredns-5d78c9869d-abcde', namespace: 'kube-system' });

    const index = new SnapshotIndex(snapshotOf({ pods: [web, awsNode, db, coreDns] }));

    expect(index.kubeSystemPods).toEqual([awsNode, coreDns]);
  });

  it("only the ReplicaSet the controller's pod names (namespace and name, the whole key) stands for its Deployment", () => {
    const index = new SnapshotIndex(
      snapshotOf({
        pods: [controller],
        replicaSets: [
          replicaSet('other-karpenter-5697769d6c', 'karpenter', 'not-this-one'),
          replicaSet('karpenter-5697769d6c', 'karpenter', 'karpenter-v1'),
          replicaSet('karpenter-5697769d6c', 'kube-system', 'nor-this-one'),
        ],
      }),
    );

    expect(index.controllers.map((c) => c.deploymentName)).toEqual(['karpenter-v1']);
  });

  it('controllersOf, for callers needing no index, finds the controllers the index finds', () => {
    const snapshot = snapshotOf({
      pods: [web, controller, api, pendingController],
      replicaSets: [replicaSet('karpenter-5697769d6c', 'karpenter', 'karpenter-v1')],
    });
    const index = new SnapshotIndex(snapshot);

    expect(controllersOf(snapshot)).toEqual(index.controllers);
    expect(controllersOf(snapshot).map((c) => [c.namespace, c.deploymentName, c.pods])).toEqual([
      ['karpenter', 'karpenter-v1', [controller, pendingController]],
    ]);
  });
});

describe('SnapshotIndex: events by the object they are about', () => {
  const onPod = event({ kind: 'Pod', namespace: 'shop', name: 'web-1', reason: 'FailedScheduling', message: 'a' });
  const again = event({ kind: 'Pod', namespace: 'shop', name: 'web-1', reason: 'Nominated', message: 'b' });
  const otherNamespace = event({ kind: 'Pod', namespace: 'default', name: 'web-1', reason: 'FailedScheduling', message: 'c' });
  const onNode = event({ kind: 'Node', name: 'web-1', reason: 'DisruptionBlocked', message: 'd' });

  it("each object's events in the capture order; the same name of another namespace or kind is another object", () => {
    const index = new SnapshotIndex(snapshotOf({ events: [onPod, otherNamespace, onNode, again] }));

    expect(index.eventsFor('Pod', 'shop', 'web-1')).toEqual([onPod, again]);
    expect(index.eventsFor('Pod', 'default', 'web-1')).toEqual([otherNamespace]);
    expect(index.eventsFor('Node', undefined, 'web-1')).toEqual([onNode]);
    expect(index.eventsFor('Node', 'default', 'web-1')).toEqual([]);
    expect(index.eventsFor('NodeClaim', undefined, 'web-1')).toEqual([]);
  });
});

describe('SnapshotIndex: the nodes a NodePool’s budgets count', () => {
  it('initialized NodeClaims by their NodePool; claims not (yet) initialized are not counted', () => {
    const ready = nodeClaim({ name: 'a', nodePool: 'general', conditions: [condition('Initialized', 'True')] });
    const launching = nodeClaim({ name: 'b', nodePool: 'general', conditions: [condition('Initialized', 'False')] });
    const bare = nodeClaim({ name: 'c', nodePool: 'general', conditions: [condition('Launched', 'True')] });
    const gpu = nodeClaim({ name: 'd', nodePool: 'gpu', conditions: [condition('Initialized', 'True')] });

    const index = new SnapshotIndex(snapshotOf({ nodeClaims: [ready, launching, bare, gpu] }));

    expect(index.initializedClaimsByNodePool.get('general')).toEqual([ready]);
    expect(index.initializedClaimsByNodePool.get('gpu')).toEqual([gpu]);
  });
});
