/**
 * Which Karpenter cluster and NodePool an instance belongs to, from the tags Karpenter puts on
 * every instance it launches. Instances of no Karpenter cluster are counted under `none`.
 */
import type { Instance } from '../domain/aws.ts';
import { CLUSTER_TAG, foreignOwnerTag, legacyClusterTag, NODEPOOL_TAG } from '../domain/tags.ts';
import type { InterruptionEvent } from './event.ts';

/**
 * The `Cluster` and `NodePool` dimension value of events whose instance was not found (already
 * gone from DescribeInstances) or carries no Karpenter tags (a managed node group, an ASG, EKS Auto
 * Mode, something else entirely). EKS cluster names may be `none` in theory; none is expected.
 */
const NO_CLUSTER = 'none';
const NO_NODEPOOL = 'none';

export interface InstanceOwner {
  cluster: string;
  nodePool: string;
}

const LEGACY_CLUSTER_PREFIX = legacyClusterTag('');

/**
 * Karpenter's when it carries a cluster tag (`eks:eks-cluster-name`, else the pre-1.0
 * `kubernetes.io/cluster/<name>=owned`) and `karpenter.sh/nodepool`, and no other owner's tag.
 */
export function karpenterOwner(instance: Instance | undefined): InstanceOwner | undefined {
  if (!instance || foreignOwnerTag(instance.tags) !== undefined) return undefined;
  const nodePool = instance.tags[NODEPOOL_TAG];
  const cluster = instance.tags[CLUSTER_TAG] ?? legacyOwnedCluster(instance.tags);
  return nodePool && cluster ? { cluster, nodePool } : undefined;
}

function legacyOwnedCluster(tags: Record<string, string>): string | undefined {
  const owned = Object.keys(tags)
    .filter((key) => key.startsWith(LEGACY_CLUSTER_PREFIX) && tags[key] === 'owned')
    .map((key) => key.slice(LEGACY_CLUSTER_PREFIX.length))
    .filter((name) => name !== '')
    .sort();
  return owned[0];
}

/** An interruption event with the owner DescribeInstances told. */
export interface ResolvedEvent extends InterruptionEvent {
  /** A Karpenter cluster, or NO_CLUSTER. */
  cluster: string;
  /** Its NodePool, or NO_NODEPOOL. */
  nodePool: string;
  /** Only Karpenter's instances are alerted on. */
  karpenter: boolean;
  /** As DescribeInstances returned it; absent when it did not (already gone, or another account's). */
  instance?: Instance;
}

export function resolveEvent(event: InterruptionEvent, instances: ReadonlyMap<string, Instance>): ResolvedEvent {
  const instance = instances.get(event.instanceId);
  const owner = karpenterOwner(instance);
  return {
    ...event,
    cluster: owner?.cluster ?? NO_CLUSTER,
    nodePool: owner?.nodePool ?? NO_NODEPOOL,
    karpenter: owner !== undefined,
    ...(instance ? { instance } : {}),
  };
}
