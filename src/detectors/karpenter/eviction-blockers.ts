/**
 * What keeps Karpenter from evicting the pods of a node: PodDisruptionBudgets and the
 * `karpenter.sh/do-not-disrupt` pod annotation, resolved from the objects (never from event text).
 * Shared by NODE_TERMINATION_STUCK (a node being drained) and DISRUPTION_BLOCKED (a node Karpenter
 * wants to replace). Pure: pods and PDBs in, blockers out.
 *
 * The rules follow Karpenter's own (kubernetes-sigs/karpenter `pkg/utils/pod/scheduling.go`,
 * `pkg/utils/pdb/pdb.go`, v1.0–v1.14):
 *
 * - `waitsForDrain(pod, now)`: the pods a drain waits for (`IsWaitingEviction`): not terminal
 *   (Succeeded/Failed), not tolerating the `karpenter.sh/disrupted:NoSchedule` taint (a toleration
 *   of every taint counts, as most DaemonSets of kube-system have), not a mirror/static pod (owned by
 *   the Node), not terminating for over a minute. DaemonSet pods that do not tolerate the taint are
 *   drained too (in the last tier), so they are not skipped here.
 * - `evictionBlockers(pods, pdbs, now?)`: among those, the pods Karpenter would call the eviction
 *   API for and cannot, each under one blocker, checked in Karpenter's order:
 *   1. `doNotDisrupt`: the pod is annotated `karpenter.sh/do-not-disrupt` with `"true"`, or (v1.12+)
 *      a positive Go duration such as `"30m"` that has not yet elapsed since `status.startTime`
 *      (no start time: still active, as Karpenter assumes). Karpenter never evicts such a pod and
 *      the drain waits for it; an unparsable value is ignored, as Karpenter ignores it. Before
 *      v1.12 only `"true"` counted: a duration value there is reported but did nothing.
 *   2. `multiplePdbs`: more than one PDB of the pod's namespace selects it; the eviction API
 *      refuses such pods whatever the budgets allow.
 *   3. `pdbBlocked`: the one PDB selecting it has `status.disruptionsAllowed` 0 (a PDB without a
 *      status counts as 0, as Karpenter reads it), unless the PDB's `unhealthyPodEvictionPolicy`
 *      is `AlwaysAllow` and the pod is not Ready. Grouped per PDB.
 *   A terminating pod is not a blocker (the eviction API does not check budgets for it), though
 *   the drain still waits for it. PDB selectors follow policy/v1: an empty selector `{}` selects
 *   every pod of the namespace, a missing one none.
 * - Text helpers: `pdbRef`, `describePdb`, `describeBudgetStatus`, `isDisruptedTaint` (a
 *   selector's `-l` value is `selectorArg` in src/domain/kube-helpers.ts, shared with the simulator).
 */
import type { Pod, PodDisruptionBudget, Taint } from '../../domain/kube.ts';
import { ageMs, conditionOf, parseGoDuration, selectorMatches } from '../../domain/kube-helpers.ts';
import { tolerates } from '../scheduling/scheduling.ts';

/** The pod (and node) annotation that keeps Karpenter from disrupting it. */
export const DO_NOT_DISRUPT_ANNOTATION = 'karpenter.sh/do-not-disrupt';

/** Karpenter v1's taint on a node it disrupts or terminates (`pkg/apis/v1/taints.go`). */
const DISRUPTED_TAINT: Taint = { key: 'karpenter.sh/disrupted', effect: 'NoSchedule' };
/** The v1beta1 form (Karpenter v0.32–v0.37), which v1.0 still recognises on old nodes. */
const LEGACY_DISRUPTING_TAINT: Taint = { key: 'karpenter.sh/disruption', value: 'disrupting', effect: 'NoSchedule' };

/** How long a terminating pod is still waited for after its deletion timestamp (`IsStuckTerminating`). */
const STUCK_TERMINATING_MS = 60_000;

export interface PdbBlock {
  pdb: PodDisruptionBudget;
  /** Its pods among those given (on the node), in the order given. */
  pods: Pod[];
}

export interface MultiplePdbs {
  pod: Pod;
  pdbs: PodDisruptionBudget[];
}

export interface DoNotDisrupt {
  pod: Pod;
  /** The annotation's value as written: `true`, or a duration such as `30m`. */
  value: string;
  /** For a duration: when it elapses (ISO-8601), from the pod's start time; undefined for `true` or no start time. */
  until?: string;
}

export interface EvictionBlockers {
  pdbBlocked: PdbBlock[];
  multiplePdbs: MultiplePdbs[];
  doNotDisrupt: DoNotDisrupt[];
}

/** Karpenter's taint saying it is disrupting the node (v1 `karpenter.sh/disrupted:NoSchedule`, or the v1beta1 form). */
export function isDisruptedTaint(taint: Taint): boolean {
  if (taint.effect !== 'NoSchedule') return false;
  if (taint.key === DISRUPTED_TAINT.key) return true;
  return taint.key === LEGACY_DISRUPTING_TAINT.key && taint.value === LEGACY_DISRUPTING_TAINT.value;
}

/** A mirror (static) pod: owned by its Node, or carrying the kubelet's mirror annotation. */
function isMirrorPod(pod: Pod): boolean {
  return (
    (pod.metadata?.ownerReferences ?? []).some((o) => o.kind === 'Node') ||
    pod.metadata?.annotations?.['kubernetes.io/config.mirror'] !== undefined
  );
}

function isTerminal(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase === 'Succeeded' || phase === 'Failed';
}

function toleratesDisruption(pod: Pod): boolean {
  return (pod.spec?.tolerations ?? []).some((t) => tolerates(t, DISRUPTED_TAINT));
}

/** A pod a drain of its node waits for (Karpenter's `IsWaitingEviction`; see the file header). */
export function waitsForDrain(pod: Pod, now?: Date): boolean {
  if (isTerminal(pod) || toleratesDisruption(pod) || isMirrorPod(pod)) return false;
  const terminating = pod.metadata?.deletionTimestamp;
  if (terminating !== undefined && now !== undefined) {
    const age = ageMs(terminating, now);
    if (age !== undefined && age > STUCK_TERMINATING_MS) return false;
  }
  return true;
}

/**
 * The pod's active `karpenter.sh/do-not-disrupt`, or undefined (absent, not `true` nor a positive
 * duration, or a duration already elapsed at `now`).
 */
export function activeDoNotDisrupt(pod: Pod, now?: Date): DoNotDisrupt | undefined {
  const value = pod.metadata?.annotations?.[DO_NOT_DISRUPT_ANNOTATION];
  if (value === undefined) return undefined;
  if (value === 'true') return { pod, value };
  const duration = parseGoDuration(value);
  if (duration === undefined || !Number.isFinite(duration) || duration <= 0) return undefined;
  const started = Date.parse(pod.status?.startTime ?? '');
  if (Number.isNaN(started)) return { pod, value };
  const until = started + duration;
  if (now !== undefined && now.getTime() >= until) return undefined;
  return { pod, value, until: new Date(until).toISOString().replace(/\.\d{3}Z$/, 'Z') };
}

/** The PDBs of the pod's namespace whose selector selects it. */
export function pdbsSelecting(pod: Pod, pdbs: readonly PodDisruptionBudget[]): PodDisruptionBudget[] {
  const ns = pod.metadata?.namespace ?? 'default';
  return pdbs.filter(
    (p) => (p.metadata?.namespace ?? 'default') === ns && selectorMatches(p.spec?.selector, pod.metadata?.labels),
  );
}

function blocks(pdb: PodDisruptionBudget, pod: Pod): boolean {
  if (pdb.spec?.unhealthyPodEvictionPolicy === 'AlwaysAllow' && conditionOf(pod, 'Ready')?.status === 'False') return false;
  return (pdb.status?.disruptionsAllowed ?? 0) === 0;
}

/** What keeps Karpenter from evicting each of these pods (see the file header for the rules and order). */
export function evictionBlockers(pods: readonly Pod[], pdbs: readonly PodDisruptionBudget[], now?: Date): EvictionBlockers {
  const result: EvictionBlockers = { pdbBlocked: [], multiplePdbs: [], doNotDisrupt: [] };
  const byPdb = new Map<PodDisruptionBudget, Pod[]>();
  for (const pod of pods) {
    if (!waitsForDrain(pod, now) || pod.metadata?.deletionTimestamp) continue;
    const dnd = activeDoNotDisrupt(pod, now);
    if (dnd) {
      result.doNotDisrupt.push(dnd);
      continue;
    }
    const selecting = pdbsSelecting(pod, pdbs);
    if (selecting.length > 1) {
      result.multiplePdbs.push({ pod, pdbs: selecting });
      continue;
    }
    const only = selecting[0];
    if (only && blocks(only, pod)) byPdb.set(only, [...(byPdb.get(only) ?? []), pod]);
  }
  result.pdbBlocked = [...byPdb].map(([pdb, blocked]) => ({ pdb, pods: blocked }));
  return result;
}

/** `ns/name` of a PDB. */
export function pdbRef(pdb: PodDisruptionBudget): string {
  return `${pdb.metadata?.namespace ?? 'default'}/${pdb.metadata?.name ?? '?'}`;
}

/** `minAvailable 1` / `maxUnavailable 10%` / `no minAvailable or maxUnavailable`. */
function describeBudgetSpec(pdb: PodDisruptionBudget): string {
  const spec = pdb.spec;
  if (spec?.minAvailable !== undefined) return `minAvailable ${spec.minAvailable}`;
  if (spec?.maxUnavailable !== undefined) return `maxUnavailable ${spec.maxUnavailable}`;
  return 'no minAvailable or maxUnavailable';
}

/** `disruptionsAllowed 0, currentHealthy 1, desiredHealthy 1, expectedPods 1` (the fields the status has). */
function describeBudgetStatus(pdb: PodDisruptionBudget): string {
  const s = pdb.status;
  if (!s) return 'no status (the disruption controller has not computed it)';
  const fields = ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods'] as const;
  return fields.flatMap((f) => (s[f] === undefined ? [] : [`${f} ${s[f]}`])).join(', ');
}

/** `PDB shop/web (minAvailable 1; disruptionsAllowed 0, currentHealthy 1, desiredHealthy 1, expectedPods 1)`. */
export function describePdb(pdb: PodDisruptionBudget): string {
  return `PDB ${pdbRef(pdb)} (${describeBudgetSpec(pdb)}; ${describeBudgetStatus(pdb)})`;
}
