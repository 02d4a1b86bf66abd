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
import { instanceIdFromProviderID } from '../../domain/kube-helpers.ts';
import type { SnapshotIndex } from '../../domain/snapshot-index.ts';

const INSTANCE_TYPE_LABELS = ['node.kubernetes.io/instance-type', 'beta.kubernetes.io/instance-type'];
const CAPACITY_TYPE_LABEL = 'karpenter.sh/capacity-type';
const ZONE_LABELS = ['topology.kubernetes.io/zone', 'failure-domain.beta.kubernetes.io/zone'];

/**
 * Values from a capture end up in a finding's basis and, through the price book, in a Spot price
 * lookup: only names of the shape EC2 and Karpenter use are taken (`m7i-flex.large`, `us-east-1a`,
 * `us-west-2-lax-1a`, `spot`), so a forged label can neither grow the basis nor carry control
 * characters into it; anything else counts as not known.
 */
const INSTANCE_TYPE_SHAPE = /^[a-z0-9][a-z0-9-]{0,31}\.[a-z0-9-]{1,32}$/;
const ZONE_SHAPE = /^[a-z0-9][a-z0-9-]{0,39}$/;
const CAPACITY_SHAPE = /^[a-z][a-z-]{0,31}$/;

function shaped(value: string | undefined, shape: RegExp): string | undefined {
  return value !== undefined && shape.test(value) ? value : undefined;
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
    instanceType: shaped(instance.instanceType, INSTANCE_TYPE_SHAPE),
    capacityType: capacityOf(instance),
    zone: shaped(instance.availabilityZone, ZONE_SHAPE),
  };
}

/** EC2's `InstanceLifecycle` as a capacity type: absent means on-demand; `spot`, `capacity-block` as they are. */
function capacityOf(instance: Instance): string | undefined {
  return instance.lifecycle === undefined ? 'on-demand' : shaped(instance.lifecycle, CAPACITY_SHAPE);
}

/**
 * The instance behind a NodeClaim and/or its Node. Undefined when its captured instance does not
 * run; when the instance was not captured, what the labels say (an instance not captured is
 * assumed to run: the NodeClaim or Node says it launched).
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
  const label = (keys: readonly string[]) => {
    for (const labels of [claim?.metadata?.labels, node?.metadata?.labels])
      for (const key of keys) if (labels?.[key]) return labels[key];
    return undefined;
  };
  return {
    instanceType: shaped(instance?.instanceType ?? label(INSTANCE_TYPE_LABELS), INSTANCE_TYPE_SHAPE),
    capacityType: shaped(label([CAPACITY_TYPE_LABEL]), CAPACITY_SHAPE) ?? (instance ? capacityOf(instance) : undefined),
    zone: shaped(
      instance?.availabilityZone ?? label(ZONE_LABELS) ?? /^aws:\/\/\/([^/]+)\//.exec(providerID ?? '')?.[1],
      ZONE_SHAPE,
    ),
  };
}

/** Those that run, for costOf. */
export function billed(instances: readonly (PricedInstance | undefined)[]): PricedInstance[] {
  return instances.filter((i): i is PricedInstance => i !== undefined);
}
