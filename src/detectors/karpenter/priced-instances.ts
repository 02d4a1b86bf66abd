/**
 * What EC2 bills for the instances behind a finding (docs/cost.md "What each finding counts"): the
 * instance's own type and zone as EC2 describes it when it was captured, else the labels Karpenter
 * puts on the NodeClaim and the Node once it launched; the capacity type from Karpenter's label,
 * else EC2's `InstanceLifecycle`. Only an instance that runs is billed for
 * its compute: a captured instance that is stopped, stopping or terminated is left out (a stopped
 * one still bills its EBS volumes, which are not priced).
 */
import type { Instance } from '../../domain/aws.ts';
import type { PricedInstance } from '../../domain/cost.ts';
import type { Node, NodeClaim } from '../../domain/kube.ts';
import { instanceIdFromProviderID, isConditionTrue } from '../../domain/kube-helpers.ts';
import type { SnapshotIndex } from '../../domain/snapshot-index.ts';
import { instanceTypeLabel, isInstanceTypeName, isZoneName } from '../../domain/spot-types.ts';

const CAPACITY_TYPE_LABEL = 'karpenter.sh/capacity-type';
const ZONE_LABELS = ['topology.kubernetes.io/zone', 'failure-domain.beta.kubernetes.io/zone'];

/** `spot`, `on-demand`, `reserved`: checked like the type and zone (domain/spot-types.ts), for the same reason. */
const CAPACITY_SHAPE = /^[a-z][a-z-]{0,31}$/;

function shaped(value: string | undefined, isShaped: (value: string | undefined) => boolean): string | undefined {
  return isShaped(value) ? value : undefined;
}

function isCapacityName(value: string | undefined): boolean {
  return value !== undefined && CAPACITY_SHAPE.test(value);
}

/** EC2 bills compute in these states (`pending` from the moment it starts booting). */
const BILLED_STATES: ReadonlySet<string> = new Set(['pending', 'running']);

/** Whether EC2 bills this instance's compute now. */
function isBilled(instance: Instance): boolean {
  return BILLED_STATES.has(instance.state);
}

/** An EC2 instance as EC2 describes it; undefined when it does not run. */
export function pricedInstance(instance: Instance): PricedInstance | undefined {
  if (!isBilled(instance)) return undefined;
  return {
    instanceType: shaped(instance.instanceType, isInstanceTypeName),
    capacityType: capacityOf(instance),
    zone: shaped(instance.availabilityZone, isZoneName),
    id: instance.id,
  };
}

/** EC2's `InstanceLifecycle` as a capacity type: absent means on-demand; `spot`, `capacity-block` as they are. */
function capacityOf(instance: Instance): string | undefined {
  return instance.lifecycle === undefined ? 'on-demand' : shaped(instance.lifecycle, isCapacityName);
}

/**
 * The instance behind a NodeClaim and/or its Node. Undefined when its captured instance does not
 * run; when the instance was not captured, what the labels say (an instance not captured is
 * assumed to run: the NodeClaim or Node says it launched), unless the NodeClaim says Karpenter
 * is terminating it.
 */
export function pricedClaim(
  index: SnapshotIndex,
  claim: NodeClaim | undefined,
  node: Node | undefined,
): PricedInstance | undefined {
  const providerID = claim?.status?.providerID ?? node?.spec?.providerID;
  const id = instanceIdFromProviderID(providerID);
  const instance = id ? index.instancesById.get(id) : undefined;
  if (instance && !isBilled(instance)) return undefined;
  // Karpenter sets InstanceTerminating once it has asked EC2 to terminate the instance: not
  // captured, it is shutting down or gone, and no longer billed.
  if (!instance && isConditionTrue(claim, 'InstanceTerminating')) return undefined;
  const label = (keys: readonly string[]) => {
    for (const labels of [claim?.metadata?.labels, node?.metadata?.labels])
      for (const key of keys) if (labels?.[key]) return labels[key];
    return undefined;
  };
  const typeLabel = instanceTypeLabel(claim?.metadata?.labels) ?? instanceTypeLabel(node?.metadata?.labels);
  return {
    instanceType: shaped(instance?.instanceType ?? typeLabel, isInstanceTypeName),
    capacityType: shaped(label([CAPACITY_TYPE_LABEL]), isCapacityName) ?? (instance ? capacityOf(instance) : undefined),
    zone: shaped(
      instance?.availabilityZone ?? label(ZONE_LABELS) ?? /^aws:\/\/\/([^/]+)\//.exec(providerID ?? '')?.[1],
      isZoneName,
    ),
    ...idOf(id, claim, node),
  };
}

/** Those that run, for costOf. */
export function billed(instances: readonly (PricedInstance | undefined)[]): PricedInstance[] {
  return instances.filter((i): i is PricedInstance => i !== undefined);
}

/** Who the instance is, so the report's total counts it once: its EC2 id, else its NodeClaim's or Node's name. */
function idOf(id: string | undefined, claim: NodeClaim | undefined, node: Node | undefined): { id?: string } {
  if (id) return { id };
  const name = claim?.metadata?.name ? `NodeClaim/${claim.metadata.name}` : node?.metadata?.name && `Node/${node.metadata.name}`;
  return name ? { id: name } : {};
}
