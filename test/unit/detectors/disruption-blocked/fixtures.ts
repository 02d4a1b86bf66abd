/** Objects of DISRUPTION_BLOCKED's tests and scenarios: drifted/expired NodeClaims, their Nodes and pods. */
import type { NodeClaim, NodePool, NodePoolDisruption } from '../../../../src/domain/kube.ts';
import { nodeClaim, nodePool } from '../../../factories/karpenter.ts';
import { T0, condition, node, pod, withAnnotations } from '../../../factories/kube.ts';

const READY = () => [
  condition('Launched', 'True'),
  condition('Registered', 'True'),
  condition('Initialized', 'True'),
  condition('Ready', 'True'),
];

/** A running NodeClaim of `pool` on Node `ip-…-<n>`, Drifted=True for `reason` since `at` (or not drifted). */
export function runningClaim(input: {
  name: string;
  pool?: string;
  node?: string;
  drift?: { reason: string; at?: string };
  createdAt?: string;
}): NodeClaim {
  const conditions = READY();
  if (input.drift)
    conditions.push(condition('Drifted', 'True', { reason: input.drift.reason, lastTransitionTime: input.drift.at ?? T0 }));
  return nodeClaim({
    name: input.name,
    nodePool: input.pool ?? 'default',
    nodeName: input.node ?? nodeNameOf(input.name),
    createdAt: input.createdAt ?? T0,
    conditions,
  });
}

function nodeNameOf(claim: string): string {
  return `node-of-${claim}`;
}

/** The Node of `runningClaim(name)`, labelled with its NodePool. */
export function claimNode(claim: string, pool = 'default') {
  return node({ name: nodeNameOf(claim), labels: { 'karpenter.sh/nodepool': pool } });
}

export function poolWith(input: {
  name?: string;
  disruption?: NodePoolDisruption;
  expireAfter?: string;
  tgp?: string;
}): NodePool {
  const np = nodePool({ name: input.name ?? 'default', ...(input.disruption ? { disruption: input.disruption } : {}) });
  const spec = np.spec?.template?.spec;
  if (spec && input.expireAfter !== undefined) spec.expireAfter = input.expireAfter;
  if (spec && input.tgp !== undefined) spec.terminationGracePeriod = input.tgp;
  return np;
}

export function beingDeleted<T extends { metadata?: { deletionTimestamp?: string } }>(o: T, at = T0): T {
  return { ...o, metadata: { ...o.metadata, deletionTimestamp: at } };
}

/** A web pod of Deployment `web` in `shop` on the claim's node. */
export function webPod(claim: string, name = 'web-7d4b9c8f6d-x2x9k', annotations?: Record<string, string>) {
  const p = pod({
    name,
    namespace: 'shop',
    nodeName: nodeNameOf(claim),
    labels: { app: 'web', 'pod-template-hash': '7d4b9c8f6d' },
    ownerReplicaSet: 'web-7d4b9c8f6d',
  });
  return annotations ? withAnnotations(p, annotations) : p;
}
