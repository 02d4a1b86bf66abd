import type { NodeClaim } from './kube.ts';

/** Tags Karpenter puts on every instance it launches (karpenter-provider-aws), and EKS's own. */
export const CLUSTER_TAG = 'eks:eks-cluster-name';
export const NODEPOOL_TAG = 'karpenter.sh/nodepool';
export const NODECLAIM_TAG = 'karpenter.sh/nodeclaim';
export const NODECLASS_TAG = 'karpenter.k8s.aws/ec2nodeclass';
/** Managed node group instances are never Karpenter's, whatever else they carry. */
export const NODEGROUP_TAG = 'eks:nodegroup-name';
/** Tag EKS Auto Mode puts on the EC2 managed instances it launches (AWS terminates those itself). */
export const AUTO_MODE_NODEPOOL_TAG = 'eks:kubernetes-node-pool-name';
/** Auto Scaling group members (self-managed node groups); Karpenter launches no ASGs. */
export const ASG_TAG = 'aws:autoscaling:groupName';

/** Instances some other owner manages, whatever Karpenter tags they carry. */
export const FOREIGN_OWNER_TAGS = [NODEGROUP_TAG, ASG_TAG, AUTO_MODE_NODEPOOL_TAG] as const;

/** The first tag that says another owner manages the instance, if any. */
export function foreignOwnerTag(tags: Record<string, string>): string | undefined {
  return FOREIGN_OWNER_TAGS.find((k) => tags[k] !== undefined);
}

/** Karpenter's NodePool label on NodeClaims and Nodes (same key as the instance tag). */
export const NODEPOOL_LABEL = 'karpenter.sh/nodepool';

/** The finalizer Karpenter puts on its Nodes and NodeClaims: it drains and terminates before removing it. */
export const TERMINATION_FINALIZER = 'karpenter.sh/termination';

/** The pre-1.0 form `kubernetes.io/cluster/<name>=owned` counts as well as `eks:eks-cluster-name`. */
export function legacyClusterTag(cluster: string): string {
  return `kubernetes.io/cluster/${cluster}`;
}

/** Karpenter tags its launch templates with the cluster: `eks:eks-cluster-name` since v1.1, before that its own key. */
export const LAUNCH_TEMPLATE_CLUSTER_TAGS = [CLUSTER_TAG, 'karpenter.k8s.aws/cluster'] as const;

/** Tagged for `cluster`; an `eks:eks-cluster-name` naming another cluster wins over a legacy `owned` tag. */
export function isTaggedForCluster(tags: Record<string, string>, cluster: string): boolean {
  if (tags[CLUSTER_TAG] !== undefined) return tags[CLUSTER_TAG] === cluster;
  return tags[legacyClusterTag(cluster)] === 'owned';
}

/** The NodePool a NodeClaim belongs to: its label, else its owner reference. */
export function nodePoolOfClaim(nc: NodeClaim): string | undefined {
  return nc.metadata?.labels?.[NODEPOOL_LABEL] ?? nc.metadata?.ownerReferences?.find((o) => o.kind === 'NodePool')?.name;
}

/** API groups of Karpenter's own resources (NodePool/NodeClaim and the AWS provider's EC2NodeClass). */
export const KARPENTER_API_GROUPS: readonly string[] = ['karpenter.sh', 'karpenter.k8s.aws'];
