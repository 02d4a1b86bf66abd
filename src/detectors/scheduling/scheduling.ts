import type { LabelSelectorRequirement, Node, NodeSelectorTerm, Pod, Taint, Toleration } from '../../domain/kube.ts';
import { isConditionTrue, selectorMatches } from '../../domain/kube-helpers.ts';
import { isFargateNode } from './fargate.ts';
import { formatQuantity, parseResources, type ResourceAmounts } from './quantity.ts';

/**
 * Would kube-scheduler place this pod on this node now? The filters that keep Karpenter's
 * controller off nodes in practice: node readiness and cordons, nodeSelector, required node
 * affinity, NoSchedule/NoExecute taints, required pod anti-affinity, and requested cpu/memory/pods.
 * A simplified model of the scheduler's Filter plugins, enough to name the blocker.
 */

type FitFailureKind =
  'not-ready' | 'unschedulable' | 'fargate' | 'node-selector' | 'node-affinity' | 'taint' | 'anti-affinity' | 'resources';

export interface FitFailure {
  kind: FitFailureKind;
  /** Short fact for evidence: `taint workload-type=system:NoSchedule`. */
  detail: string;
  taint?: Taint;
  /** nodeSelector key the node lacks or has another value for. */
  label?: string;
}

export interface NodeFit {
  node: Node;
  name: string;
  failures: FitFailure[];
}

export interface FitOptions {
  /** Pods bound to each node (SnapshotIndex.podsByNode). */
  podsByNode: ReadonlyMap<string, readonly Pod[]>;
  nodesByName: ReadonlyMap<string, Node>;
  /** Bound pods the pending pod's anti-affinity terms are checked against (the controller's own replicas). */
  antiAffinityPeers: readonly Pod[];
  /** Compare requests with free allocatable only when every pod bound to the node was captured. */
  checkResources: boolean;
}

/** Failures that make a node unusable whatever the pod's replicas do: the node is not a candidate at all. */
const PLACEMENT_KINDS: ReadonlySet<FitFailureKind> = new Set([
  'not-ready',
  'unschedulable',
  'fargate',
  'node-selector',
  'node-affinity',
  'taint',
]);

export function evaluateNode(pod: Pod, node: Node, options: FitOptions): NodeFit {
  const name = node.metadata?.name ?? '';
  const failures: FitFailure[] = [];
  if (isFargateNode(node)) failures.push({ kind: 'fargate', detail: 'Fargate node (runs exactly one pod)' });
  if (!isConditionTrue(node, 'Ready')) failures.push({ kind: 'not-ready', detail: 'node is not Ready' });
  if (node.spec?.unschedulable) failures.push({ kind: 'unschedulable', detail: 'node is cordoned (spec.unschedulable)' });
  failures.push(...nodeSelectorFailures(pod, node));
  const affinity = requiredNodeAffinityFailure(pod, node);
  if (affinity) failures.push(affinity);
  for (const taint of untoleratedTaints(pod.spec?.tolerations, node.spec?.taints)) {
    failures.push({ kind: 'taint', detail: `taint ${formatTaint(taint)}`, taint });
  }
  failures.push(...antiAffinityConflicts(pod, node, options));
  if (options.checkResources) failures.push(...resourceShortfalls(pod, name, node, options.podsByNode.get(name) ?? []));
  return { node, name, failures };
}

/** A node every replica could use: only anti-affinity or capacity stand in the way, if anything. */
export function isCandidate(fit: NodeFit): boolean {
  return !fit.failures.some((f) => PLACEMENT_KINDS.has(f.kind));
}

// --- taints -----------------------------------------------------------------------------------

export function formatTaint(taint: Taint): string {
  return `${taint.key}${taint.value ? `=${taint.value}` : ''}:${taint.effect}`;
}

/** Kubernetes toleration semantics (k8s.io/api/core/v1 Toleration.ToleratesTaint). */
export function tolerates(toleration: Toleration, taint: Taint): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  // An empty key matches every taint's (the API server lets it be empty only with Exists).
  if (toleration.key && toleration.key !== taint.key) return false;
  if (toleration.operator === 'Exists') return true;
  if (toleration.operator && toleration.operator !== 'Equal') return false;
  return (toleration.value ?? '') === (taint.value ?? '');
}

/** NoSchedule/NoExecute taints no toleration covers (PreferNoSchedule never blocks). */
export function untoleratedTaints(tolerations: readonly Toleration[] | undefined, taints: readonly Taint[] | undefined): Taint[] {
  return (taints ?? []).filter(
    (t) => (t.effect === 'NoSchedule' || t.effect === 'NoExecute') && !(tolerations ?? []).some((tol) => tolerates(tol, t)),
  );
}

// --- node selection ---------------------------------------------------------------------------

function nodeSelectorFailures(pod: Pod, node: Node): FitFailure[] {
  const labels = node.metadata?.labels ?? {};
  const failures: FitFailure[] = [];
  for (const [key, want] of Object.entries(pod.spec?.nodeSelector ?? {})) {
    const have = labels[key];
    if (have === want) continue;
    const detail =
      have === undefined
        ? `nodeSelector ${key}=${want}: node has no ${key} label`
        : `nodeSelector ${key}=${want}: node has ${key}=${have}`;
    failures.push({ kind: 'node-selector', detail, label: key });
  }
  return failures;
}

/** Node affinity operators, including Gt/Lt (integer comparison), on labels or `metadata.name`. */
export function requirementMatches(req: LabelSelectorRequirement, value: string | undefined): boolean {
  const values = req.values ?? [];
  switch (req.operator) {
    case 'In':
      return value !== undefined && values.includes(value);
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    case 'Gt':
    case 'Lt': {
      const have = Number.parseInt(value ?? '', 10);
      const bound = Number.parseInt(values[0] ?? '', 10);
      if (Number.isNaN(have) || Number.isNaN(bound)) return false;
      return req.operator === 'Gt' ? have > bound : have < bound;
    }
    default:
      return false;
  }
}

export function formatRequirement(req: LabelSelectorRequirement): string {
  return req.values?.length ? `${req.key} ${req.operator} [${req.values.join(' ')}]` : `${req.key} ${req.operator}`;
}

function firstUnmet(term: NodeSelectorTerm, node: Node): LabelSelectorRequirement | undefined {
  const labels = node.metadata?.labels ?? {};
  const fields: Record<string, string | undefined> = { 'metadata.name': node.metadata?.name };
  return (
    (term.matchExpressions ?? []).find((r) => !requirementMatches(r, labels[r.key])) ??
    (term.matchFields ?? []).find((r) => !requirementMatches(r, fields[r.key]))
  );
}

function requiredNodeAffinityFailure(pod: Pod, node: Node): FitFailure | undefined {
  const terms = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  if (terms.length === 0) return undefined;
  const unmet = terms.map((t) => firstUnmet(t, node));
  if (unmet.some((u) => u === undefined)) return undefined;
  const first = unmet[0];
  return {
    kind: 'node-affinity',
    detail: `required node affinity ${first ? formatRequirement(first) : '(empty term)'} not met`,
    label: first?.key,
  };
}

// --- inter-pod anti-affinity ------------------------------------------------------------------

function antiAffinityConflicts(pod: Pod, node: Node, options: FitOptions): FitFailure[] {
  const terms = pod.spec?.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? [];
  const failures: FitFailure[] = [];
  for (const term of terms) {
    const domain = node.metadata?.labels?.[term.topologyKey];
    if (domain === undefined) continue;
    const namespaces = term.namespaces?.length ? term.namespaces : [pod.metadata?.namespace ?? 'default'];
    const peer = options.antiAffinityPeers.find((p) => {
      if (p === pod || !p.spec?.nodeName || p.metadata?.uid === pod.metadata?.uid) return false;
      if (!namespaces.includes(p.metadata?.namespace ?? 'default') || !selectorMatches(term.labelSelector, p.metadata?.labels))
        return false;
      return options.nodesByName.get(p.spec.nodeName)?.metadata?.labels?.[term.topologyKey] === domain;
    });
    if (peer) {
      const where = term.topologyKey === 'kubernetes.io/hostname' ? `on this node` : `in ${term.topologyKey}=${domain}`;
      failures.push({
        kind: 'anti-affinity',
        detail: `required pod anti-affinity (topologyKey ${term.topologyKey}): ${peer.metadata?.namespace}/${peer.metadata?.name} already runs ${where}`,
      });
    }
  }
  return failures;
}

// --- resources --------------------------------------------------------------------------------

/** Effective requests: the larger of the app containers' sum and any single init container. */
export function podRequests(pod: Pod): ResourceAmounts {
  const total: ResourceAmounts = {};
  for (const c of pod.spec?.containers ?? []) {
    for (const [k, v] of Object.entries(parseResources(c.resources?.requests))) total[k] = (total[k] ?? 0) + v;
  }
  for (const c of pod.spec?.initContainers ?? []) {
    for (const [k, v] of Object.entries(parseResources(c.resources?.requests))) total[k] = Math.max(total[k] ?? 0, v);
  }
  return total;
}

function isTerminal(pod: Pod): boolean {
  return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
}

interface NodeUsage {
  used: ResourceAmounts;
  pods: number;
}

/** Requests already placed on a node, summed once per bound-pod list (the index hands out the same list). */
const usageCache = new WeakMap<readonly Pod[], NodeUsage>();

function usageOf(bound: readonly Pod[]): NodeUsage {
  let usage = usageCache.get(bound);
  if (!usage) {
    const used: ResourceAmounts = {};
    const active = bound.filter((p) => !isTerminal(p));
    for (const p of active) for (const [k, v] of Object.entries(podRequests(p))) used[k] = (used[k] ?? 0) + v;
    usage = { used, pods: active.length };
    usageCache.set(bound, usage);
  }
  return usage;
}

function resourceShortfalls(pod: Pod, nodeName: string, node: Node, bound: readonly Pod[]): FitFailure[] {
  const allocatable = parseResources(node.status?.allocatable);
  const requests = podRequests(pod);
  const { used: placed, pods: placedPods } = usageOf(bound);
  // A pod already bound here counts once, as the pod being placed.
  const self = bound.includes(pod) && !isTerminal(pod);
  const used: ResourceAmounts = { ...placed };
  if (self) for (const [k, v] of Object.entries(requests)) used[k] = (used[k] ?? 0) - v;
  const others = placedPods - (self ? 1 : 0);
  const failures: FitFailure[] = [];
  for (const [resource, wanted] of Object.entries(requests)) {
    const capacity = allocatable[resource];
    if (capacity === undefined || wanted <= 0) continue;
    const free = capacity - (used[resource] ?? 0);
    if (wanted > free) {
      failures.push({
        kind: 'resources',
        detail: `Insufficient ${resource} on ${nodeName}: requests ${formatQuantity(resource, wanted)}, free ${formatQuantity(resource, Math.max(free, 0))} of ${formatQuantity(resource, capacity)} allocatable`,
      });
    }
  }
  const maxPods = allocatable.pods;
  if (maxPods !== undefined && others + 1 > maxPods) {
    failures.push({ kind: 'resources', detail: `Too many pods on ${nodeName}: ${others} of ${maxPods} allowed` });
  }
  return failures;
}
