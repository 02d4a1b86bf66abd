import type { InstanceTypeInfo } from '../../domain/instance-types.ts';
import type { LabelSelectorRequirement } from '../../domain/kube.ts';
import { requirementMatches } from '../scheduling/scheduling.ts';
import type { ResourceAmounts } from '../scheduling/quantity.ts';
import { allocatable, shortOf, type Allocatable, type CapacitySettings } from './capacity.ts';
import { capacityTypes, instanceTypeLabels, MODELLED_LABELS } from './labels.ts';

/**
 * Which instance types a set of requirements (a NodePool's, with the pod's own node selector) lets
 * Karpenter launch, and which of those it believes could hold the requests: our own answer when
 * Karpenter's is not in the capture (docs/instance-types.md). It errs towards "fits": requirements on
 * labels it does not model are ignored, and a request for a resource it does not model is not judged.
 */

export interface TypeFit {
  /** Types the requirements allow. */
  allowed: InstanceTypeInfo[];
  /** Allowed types Karpenter would believe large enough. */
  fitting: InstanceTypeInfo[];
  /** When none fits: the allowed type that comes closest, and what it lacks. */
  closest?: { type: InstanceTypeInfo; allocatable: Allocatable; short: string[] };
  /** Names in `instance-type`/`instance-family` In-lists the table does not hold (a newer type?). */
  unknownNames: string[];
  /** Requirements that exclude every type on their own, for the words. */
  excludesAll: LabelSelectorRequirement[];
}

function judged(r: LabelSelectorRequirement): boolean {
  if (!MODELLED_LABELS.has(r.key)) return false;
  // Reserved capacity depends on the account's reservations, which no table holds.
  return !(r.key === 'karpenter.sh/capacity-type' && (r.values ?? []).includes('reserved'));
}

function allows(t: InstanceTypeInfo, labels: Map<string, string>, r: LabelSelectorRequirement): boolean {
  if (r.key === 'karpenter.sh/capacity-type') {
    const offered = capacityTypes(t);
    if (r.operator === 'In') return offered.some((c) => (r.values ?? []).includes(c));
    if (r.operator === 'NotIn') return offered.some((c) => !(r.values ?? []).includes(c));
    return requirementMatches(r, offered[0]);
  }
  return requirementMatches(r, labels.get(r.key));
}

/** Type and family names once per list of types, like the labels. */
const NAMES = new WeakMap<readonly InstanceTypeInfo[], { names: Set<string>; families: Set<string> }>();

function unknownNamesOf(requirements: readonly LabelSelectorRequirement[], types: readonly InstanceTypeInfo[]): string[] {
  const named = requirements.filter(
    (r) =>
      r.operator === 'In' &&
      (r.key === 'node.kubernetes.io/instance-type' ||
        r.key === 'beta.kubernetes.io/instance-type' ||
        r.key === 'karpenter.k8s.aws/instance-family'),
  );
  if (named.length === 0) return [];
  let known = NAMES.get(types);
  if (!known) {
    known = { names: new Set(types.map((t) => t.name)), families: new Set(types.map((t) => t.name.split('.')[0] ?? '')) };
    NAMES.set(types, known);
  }
  const { names, families } = known;
  return named.flatMap((r) =>
    (r.values ?? []).filter((v) => !(r.key === 'karpenter.k8s.aws/instance-family' ? families : names).has(v)),
  );
}

/** How near an allowed type comes: the smallest share of a short resource it covers. */
function nearness(requests: ResourceAmounts, alloc: Allocatable, short: string[]): number {
  return Math.min(...short.map((k) => (alloc.amounts[k] ?? 0) / (requests[k] || 1)));
}

/** Labels once per list of types: a scan evaluates many workloads against the same list. */
const LABELLED = new WeakMap<readonly InstanceTypeInfo[], { t: InstanceTypeInfo; labels: Map<string, string> }[]>();

function labelledTypes(types: readonly InstanceTypeInfo[]): { t: InstanceTypeInfo; labels: Map<string, string> }[] {
  let labelled = LABELLED.get(types);
  if (!labelled) {
    labelled = types.map((t) => ({ t, labels: instanceTypeLabels(t) }));
    LABELLED.set(types, labelled);
  }
  return labelled;
}

export function evaluateTypes(
  requirements: readonly LabelSelectorRequirement[],
  requests: ResourceAmounts,
  types: readonly InstanceTypeInfo[],
  settings: CapacitySettings,
): TypeFit {
  const relevant = requirements.filter(judged);
  const labelled = labelledTypes(types);
  const allowed = labelled.filter(({ t, labels }) => relevant.every((r) => allows(t, labels, r))).map(({ t }) => t);
  // Only read when nothing is allowed: which requirement alone leaves no type.
  const excludesAll = allowed.length ? [] : relevant.filter((r) => !labelled.some(({ t, labels }) => allows(t, labels, r)));
  const fitting: InstanceTypeInfo[] = [];
  let closest: TypeFit['closest'];
  let best = -Infinity;
  for (const t of allowed) {
    const alloc = allocatable(t, settings);
    const short = shortOf(requests, alloc.amounts);
    if (short.length === 0) {
      fitting.push(t);
      continue;
    }
    // Fewer resources short first, then the nearest: a type short of cpu alone beats one short of cpu and memory.
    const near = nearness(requests, alloc, short) - short.length;
    if (near > best) {
      best = near;
      closest = { type: t, allocatable: alloc, short };
    }
  }
  return {
    allowed,
    fitting,
    ...(fitting.length === 0 && closest ? { closest } : {}),
    unknownNames: unknownNamesOf(relevant, types),
    excludesAll,
  };
}
