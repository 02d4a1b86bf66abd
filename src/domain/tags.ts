import type { NodeClaim } from './kube.ts';

/** Tags Karpenter puts on every instance it launches (karpenter-provider-aws), and EKS's own. */
export const CLUSTER_TAG = 'eks:eks-cluster-name';
export const NODEPOOL_TAG = 'karpenter.sh/nodepool';
export const NODECLAIM_TAG = 'karpenter.sh/nodeclaim';
export const NODECLASS_TAG = 'karpenter.k8s.aws/ec2nodeclass';
/** Managed node group instances are never Karpenter's, whatever else they carry. */
export const NODEGROUP_TAG = 'eks:nodegroup-name';

/** Karpenter's NodePool label on NodeClaims and Nodes (same key as the instance tag). */
export const NODEPOOL_LABEL = NODEPOOL_TAG;

/** The pre-1.0 form `kubernetes.io/cluster/<name>=owned` counts as well as `eks:eks-cluster-name`. */
export function legacyClusterTag(cluster: string): string {
  return `kubernetes.io/cluster/${cluster}`;
}

export function isTaggedForCluster(tags: Record<string, string>, cluster: string): boolean {
  return tags[CLUSTER_TAG] === cluster || tags[legacyClusterTag(cluster)] === 'owned';
}

/** The NodePool a NodeClaim belongs to: its label, else its owner reference. */
export function nodePoolOfClaim(nc: NodeClaim): string | undefined {
  return nc.metadata?.labels?.[NODEPOOL_LABEL] ?? nc.metadata?.ownerReferences?.find((o) => o.kind === 'NodePool')?.name;
}
