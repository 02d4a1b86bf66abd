/**
 * Objects of CONSOLIDATION_BLOCKED's tests and scenarios: NodeClaims Karpenter marked
 * Consolidatable hours ago, their Nodes (priced by their labels), the pods on them.
 */
import type { NodeClaim } from '../../../../src/domain/kube.ts';
import type { ClusterSnapshot } from '../../../../src/domain/snapshot.ts';
import { snapshotOf } from '../../../factories/aws.ts';
import { nodeClaim, nodePool } from '../../../factories/karpenter.ts';
import { T0, condition, event, minutesAfter, node, pod, withAnnotations } from '../../../factories/kube.ts';

/** Eight hours before T0: past the 6h default by any `now` from T0 on. */
const IDLE_SINCE = minutesAfter(T0, -480);

export const nodeNameOf = (claim: string) => `ip-10-0-${claim.length}-${claim.charCodeAt(claim.length - 1)}.ec2.internal`;

/** A NodeClaim of `pool`, initialised long ago, `Consolidatable=True` since `since` (absent when null). */
export function idleClaim(name: string, input: { pool?: string; since?: string | null } = {}): NodeClaim {
  const conditions = [
    condition('Launched', 'True', { lastTransitionTime: minutesAfter(T0, -1440) }),
    condition('Registered', 'True', { lastTransitionTime: minutesAfter(T0, -1440) }),
    condition('Initialized', 'True', { lastTransitionTime: minutesAfter(T0, -1440) }),
    condition('Ready', 'True', { lastTransitionTime: minutesAfter(T0, -1440) }),
  ];
  if (input.since !== null)
    conditions.push(
      condition('Consolidatable', 'True', { reason: 'Consolidatable', lastTransitionTime: input.since ?? IDLE_SINCE }),
    );
  return nodeClaim({
    name,
    nodePool: input.pool ?? 'default',
    nodeName: nodeNameOf(name),
    createdAt: minutesAfter(T0, -1441),
    conditions,
  });
}

/** The Node of `idleClaim(name)`: an m5.xlarge (4 vCPU) of `capacity` in us-east-1a. */
export function idleNode(claim: string, input: { pool?: string; capacity?: string } = {}) {
  return node({
    name: nodeNameOf(claim),
    createdAt: minutesAfter(T0, -1440),
    labels: {
      'karpenter.sh/nodepool': input.pool ?? 'default',
      'node.kubernetes.io/instance-type': 'm5.xlarge',
      'karpenter.sh/capacity-type': input.capacity ?? 'on-demand',
      'topology.kubernetes.io/zone': 'us-east-1a',
    },
    allocatable: { cpu: '3920m', memory: '15136776Ki', pods: '58' },
  });
}

/** aws-node, the DaemonSet pod every EKS node runs. */
export function daemonPod(claim: string) {
  return pod({
    name: `aws-node-${claim.slice(-5)}`,
    namespace: 'kube-system',
    nodeName: nodeNameOf(claim),
    ownerKind: 'DaemonSet',
    createdAt: minutesAfter(T0, -1440),
  });
}

/** A small web pod (no requests) of Deployment `web` in `shop`, started a day ago. */
export function webPodOn(claim: string, name = 'web-7d4b9c8f6d-x2x9k', annotations?: Record<string, string>) {
  const p = pod({
    name,
    namespace: 'shop',
    nodeName: nodeNameOf(claim),
    labels: { app: 'web', 'pod-template-hash': '7d4b9c8f6d' },
    ownerReplicaSet: 'web-7d4b9c8f6d',
    createdAt: minutesAfter(T0, -1000),
  });
  return annotations ? withAnnotations(p, annotations) : p;
}

/** Karpenter's event (source karpenter, namespace default) on a Node, NodeClaim or NodePool. */
export function karpenterEvent(kind: string, name: string, reason: string, message: string, count = 1) {
  return event({ kind, name, namespace: 'default', reason, message, type: 'Normal', source: 'karpenter', count });
}

export const IDLE = 'default-x7k2p';

/** NodePool `default` with one idle node running one web pod (and aws-node), Consolidatable for 8h; parts override. */
export function idlePool(parts: Parameters<typeof snapshotOf>[0] = {}): ClusterSnapshot {
  return snapshotOf({
    nodeClaims: [idleClaim(IDLE)],
    nodePools: [
      nodePool({ name: 'default', disruption: { consolidationPolicy: 'WhenEmptyOrUnderutilized', consolidateAfter: '5m' } }),
    ],
    nodes: [idleNode(IDLE)],
    pods: [daemonPod(IDLE), webPodOn(IDLE)],
    pdbs: [],
    events: [],
    ...parts,
  });
}
