import type { Instance } from './aws.ts';
import type { Node, NodeClaim } from './kube.ts';

/** Where Karpenter and the kubelet put a node's instance type, newest label first. */
const INSTANCE_TYPE_LABELS = ['node.kubernetes.io/instance-type', 'beta.kubernetes.io/instance-type'];
const CAPACITY_TYPE = 'karpenter.sh/capacity-type';

/**
 * Values from a capture end up in a finding's cost basis and in a Spot price lookup: only names of
 * the shape EC2 uses are taken (`m7i-flex.large`, `x8g.metal-24xl`; zones `us-east-1a`,
 * `us-west-2-lax-1a`), so a forged label can neither grow the basis nor carry control characters
 * into it (docs/cost.md); anything else counts as not known.
 */
const INSTANCE_TYPE_SHAPE = /^[a-z0-9][a-z0-9-]{0,31}\.[a-z0-9-]{1,32}$/;
const ZONE_SHAPE = /^[a-z0-9][a-z0-9-]{0,39}$/;

/** `m5.large`: a name of the shape EC2 gives instance types. */
export function isInstanceTypeName(value: string | undefined): value is string {
  return value !== undefined && INSTANCE_TYPE_SHAPE.test(value);
}

/** `us-east-1a`, `us-west-2-lax-1a`: a name of the shape EC2 gives zones. */
export function isZoneName(value: string | undefined): value is string {
  return value !== undefined && ZONE_SHAPE.test(value);
}

/** The first of the instance-type labels that is set, checked or not. */
export function instanceTypeLabel(labels: Readonly<Record<string, string>> | undefined): string | undefined {
  for (const key of INSTANCE_TYPE_LABELS) if (labels?.[key]) return labels[key];
  return undefined;
}

/**
 * The instance types running as Spot (docs/cost.md, "Prices"): Nodes and NodeClaims labelled
 * `karpenter.sh/capacity-type: spot`, and EC2 instances whose `InstanceLifecycle` is `spot` (an
 * orphan has no Node). Their Spot prices are the ones a scan asks for; sorted, each once.
 */
export function spotTypesInPlay(parts: {
  nodes: readonly Node[];
  nodeClaims: readonly NodeClaim[];
  instances: readonly Instance[];
}): string[] {
  const types = new Set<string>();
  for (const object of [...parts.nodes, ...parts.nodeClaims]) {
    const labels = object.metadata?.labels ?? {};
    const type = instanceTypeLabel(labels);
    if (labels[CAPACITY_TYPE] === 'spot' && isInstanceTypeName(type)) types.add(type);
  }
  for (const instance of parts.instances) {
    if (instance.lifecycle === 'spot' && isInstanceTypeName(instance.instanceType)) types.add(instance.instanceType);
  }
  return [...types].sort();
}
