import type { Subnet } from '../../domain/aws.ts';
import type { EC2NodeClass, LabelSelectorRequirement, NodePool, Pod } from '../../domain/kube.ts';
import { isEc2NodeClassRef } from '../../domain/auto-mode.ts';
import { formatRequirement, requirementMatches } from '../scheduling/scheduling.ts';
import { isZoneKey, ZONE_ID_KEY } from '../scheduling/instance-type-messages.ts';

/**
 * Which zones a NodePool can launch into: its EC2NodeClass's subnets (`status.subnets[].zone` /
 * `zoneID`, zone IDs also from `aws ec2 describe-subnets`) narrowed by the NodePool's own zone
 * requirements. And which zones a pod insists on (nodeSelector or required node affinity on
 * `topology.kubernetes.io/zone` or `topology.k8s.aws/zone-id`).
 */

interface SubnetZone {
  id: string;
  zone?: string;
  zoneId?: string;
}

export interface PoolZones {
  pool: string;
  /** The EC2NodeClass's name, when the NodePool references one. */
  nodeClass?: string;
  /** Its subnets with their zones; undefined when the capture does not say. */
  subnets: SubnetZone[] | undefined;
  /** The NodePool's own requirements on zone keys. */
  requirements: LabelSelectorRequirement[];
}

/** A zone the pod (or its volume) needs: a zone name under a zone key, or a zone ID under `topology.k8s.aws/zone-id`. */
export interface ZoneWant {
  key: string;
  values: string[];
}

export function poolZones(
  pool: NodePool,
  nodeClasses: ReadonlyMap<string, EC2NodeClass> | undefined,
  described: readonly Subnet[],
): PoolZones {
  const ref = pool.spec?.template?.spec?.nodeClassRef;
  const nodeClass = ref?.name && isEc2NodeClassRef(ref) ? ref.name : undefined;
  const status = nodeClass ? nodeClasses?.get(nodeClass)?.status?.subnets : undefined;
  const byId = new Map(described.map((s) => [s.id, s]));
  const subnets = status?.length
    ? status.map((s) => {
        const aws = s.id ? byId.get(s.id) : undefined;
        const zone = s.zone ?? aws?.availabilityZone;
        const zoneId = s.zoneID ?? aws?.availabilityZoneId;
        return { id: s.id ?? '?', ...(zone ? { zone } : {}), ...(zoneId ? { zoneId } : {}) };
      })
    : undefined;
  return {
    pool: pool.metadata?.name ?? '',
    ...(nodeClass ? { nodeClass } : {}),
    subnets,
    requirements: (pool.spec?.template?.spec?.requirements ?? []).filter((r) => isZoneKey(r.key)),
  };
}

/** The same zone under the other key (name ↔ ID), from the subnets; undefined when unknown. */
function translate(p: PoolZones, fromKey: string, value: string, toKey: string): string | undefined {
  if ((fromKey === ZONE_ID_KEY) === (toKey === ZONE_ID_KEY)) return value;
  const s = p.subnets?.find((x) => (fromKey === ZONE_ID_KEY ? x.zoneId : x.zone) === value);
  return fromKey === ZONE_ID_KEY ? s?.zone : s?.zoneId;
}

/** Can the NodePool launch a node in this zone? Undefined when the capture cannot tell. */
export function covers(p: PoolZones, key: string, value: string): boolean | undefined {
  for (const r of p.requirements) {
    const v = translate(p, key, value, r.key);
    if (v !== undefined && !requirementMatches(r, v)) return false;
  }
  if (!p.subnets) return p.requirements.some((r) => r.operator === 'In') ? true : undefined;
  const field = key === ZONE_ID_KEY ? 'zoneId' : 'zone';
  if (!p.subnets.some((s) => s[field] !== undefined)) return undefined;
  return p.subnets.some((s) => s[field] === value);
}

/**
 * The zone constraints of each alternative way the pod can be placed (one per required node
 * affinity term, the nodeSelector added to each); undefined when some alternative has none.
 */
export function podZoneWants(pod: Pod): ZoneWant[][] | undefined {
  const selector: ZoneWant[] = Object.entries(pod.spec?.nodeSelector ?? {})
    .filter(([k]) => isZoneKey(k))
    .map(([key, v]) => ({ key, values: [v] }));
  const terms = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  const alternatives = terms.length
    ? terms.map((t) => [
        ...selector,
        ...(t.matchExpressions ?? [])
          .filter((r) => isZoneKey(r.key) && r.operator === 'In' && r.values?.length)
          .map((r) => ({ key: r.key, values: r.values ?? [] })),
      ])
    : [selector];
  return alternatives.every((a) => a.length > 0) ? alternatives : undefined;
}

/**
 * The zones no pool can serve, when every way of placing the pod needs one: the wants that fail
 * for every pool (each a zone value). Undefined when some pool may serve it or the capture cannot tell.
 */
export function unservedZones(alternatives: ZoneWant[][], pools: readonly PoolZones[]): ZoneWant[] | undefined {
  if (pools.length === 0) return undefined;
  const failing: ZoneWant[] = [];
  for (const wants of alternatives) {
    const failed = wants.find((w) => pools.every((p) => w.values.every((v) => covers(p, w.key, v) === false)));
    if (!failed) return undefined;
    failing.push(failed);
  }
  return failing;
}

/** `NodePool default → EC2NodeClass default → us-east-1a (subnet-…), us-east-1b (subnet-…)`. */
export function describeCoverage(p: PoolZones): string {
  const parts = [`NodePool ${p.pool}`];
  if (p.requirements.length) parts[0] += ` (${p.requirements.map(formatRequirement).join(', ')})`;
  if (p.nodeClass) parts.push(`EC2NodeClass ${p.nodeClass}`);
  if (p.subnets) {
    const zones = new Map<string, string[]>();
    for (const s of p.subnets) {
      const zone = s.zone ? (s.zoneId ? `${s.zone}/${s.zoneId}` : s.zone) : (s.zoneId ?? 'zone unknown');
      zones.set(zone, [...(zones.get(zone) ?? []), s.id]);
    }
    parts.push(
      [...zones]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([zone, ids]) => `${zone} (${ids.join(', ')})`)
        .join(', ') || 'no subnets',
    );
  } else {
    parts.push('subnets not captured');
  }
  return parts.join(' → ');
}
