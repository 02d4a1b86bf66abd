import { describe, expect, it } from 'vitest';
import type { ReplicaSet } from '../../../src/domain/kube.ts';
import { controllersOf, SnapshotIndex } from '../../../src/domain/snapshot-index.ts';
import { snapshotOf } from '../../factories/aws.ts';
import { karpenterPod, pod } from '../../factories/kube.ts';

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

describe('SnapshotIndex: one walk over the pods answers three questions', () => {
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
