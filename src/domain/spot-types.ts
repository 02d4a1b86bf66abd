import type { Instance } from './aws.ts';
import type { Node, NodeClaim } from './kube.ts';

const INSTANCE_TYPE = 'node.kubernetes.io/instance-type';
const CAPACITY_TYPE = 'karpenter.sh/capacity-type';

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
    const type = labels[INSTANCE_TYPE];
    if (labels[CAPACITY_TYPE] === 'spot' && isInstanceTypeName(type)) types.add(type);
  }
  for (const instance of parts.instances) {
    if (instance.lifecycle === 'spot' && isInstanceTypeName(instance.instanceType)) types.add(instance.instanceType);
  }
  return [...types].sort();
}

/** `m5.large`, `x8g.metal-24xl`: what EC2 accepts as a type; a label holding anything else is not asked about. */
function isInstanceTypeName(value: string | undefined): value is string {
  return value !== undefined && /^[a-z0-9-]{1,20}\.[a-z0-9-]{1,20}$/.test(value);
}
