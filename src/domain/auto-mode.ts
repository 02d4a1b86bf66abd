import type { NodeClassRef } from './kube.ts';
import type { ClusterSnapshot } from './snapshot.ts';

/**
 * EKS Auto Mode: AWS runs Karpenter outside the cluster. No controller pod exists, its NodePools
 * (`karpenter.sh/v1`) reference `eks.amazonaws.com` NodeClasses instead of EC2NodeClasses, its
 * node role needs an access entry of type `EC2`, and its instances are EC2 managed instances
 * tagged `eks:kubernetes-node-pool-name` (not `karpenter.sh/nodepool`). A cluster may run a
 * self-managed Karpenter next to it (during a migration), so the NodePools and NodeClaims say
 * per object which Karpenter owns them.
 */

export const AUTO_MODE_GROUP = 'eks.amazonaws.com';
export const EC2NODECLASS_GROUP = 'karpenter.k8s.aws';
export const AUTO_NODE_POLICY_ARN = 'arn:aws:eks::aws:cluster-access-policy/AmazonEKSAutoNodePolicy';

function groupOf(ref: NodeClassRef): string | undefined {
  if (ref.group) return ref.group;
  const slash = ref.apiVersion?.indexOf('/') ?? -1;
  return slash > 0 ? ref.apiVersion?.slice(0, slash) : undefined;
}

/** A nodeClassRef to an EKS Auto Mode NodeClass. */
export function isAutoModeRef(ref: NodeClassRef | undefined): boolean {
  return ref !== undefined && groupOf(ref) === AUTO_MODE_GROUP;
}

/** A nodeClassRef to a karpenter-provider-aws EC2NodeClass (v1 form, or the v1beta1 form with only a name). */
export function isEc2NodeClassRef(ref: NodeClassRef | undefined): boolean {
  if (!ref) return true;
  const group = groupOf(ref);
  return (group === undefined || group === EC2NODECLASS_GROUP) && (ref.kind === undefined || ref.kind === 'EC2NodeClass');
}

/** What the referenced node class is called, and its kubectl resource name, for titles and steps. */
export function nodeClassKind(ref: NodeClassRef | undefined): { kind: string; resource: string } {
  if (isAutoModeRef(ref)) return { kind: 'NodeClass', resource: 'nodeclasses.eks.amazonaws.com' };
  return { kind: 'EC2NodeClass', resource: 'ec2nodeclass' };
}

/**
 * True when AWS runs a Karpenter for this cluster: describe-cluster says Auto Mode is on
 * (`ClusterInfo.autoMode`), or a NodePool or NodeClaim references an Auto Mode NodeClass.
 */
export function awsRunsKarpenter(snapshot: ClusterSnapshot): boolean {
  return (
    snapshot.cluster?.autoMode === true ||
    snapshot.nodePools.some((p) => isAutoModeRef(p.spec?.template?.spec?.nodeClassRef)) ||
    snapshot.nodeClaims.some((c) => isAutoModeRef(c.spec?.nodeClassRef))
  );
}
