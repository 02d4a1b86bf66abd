import { FINDING_CATALOGUE } from '../domain/finding-catalogue.ts';
import { ageMs, conditionOf, isConditionTrue, parseGoDuration } from '../domain/kube-helpers.ts';
import type { Node, NodeClaim, NodePool } from '../domain/kube.ts';
import { DEFAULT_DETECTION } from '../domain/settings.ts';
import { nodePoolOfClaim } from '../domain/tags.ts';

/** The taint Karpenter puts on a node it has chosen to disrupt (v1; v1beta1 called it `karpenter.sh/disruption`). */
export const DISRUPTED_TAINT_KEY = 'karpenter.sh/disrupted';
const LEGACY_DISRUPTION_TAINT_KEY = 'karpenter.sh/disruption';

/**
 * The nodes Karpenter is terminating or wants to disrupt, or has not initialised, by name, sorted:
 * the ones whose pods a live scan reads (what holds their drain: PodDisruptionBudgets, volumes,
 * do-not-disrupt pods; which agent that should finish initialising a node is missing from it).
 * - a Node being deleted (`metadata.deletionTimestamp`), or tainted `karpenter.sh/disrupted:NoSchedule`;
 * - the node of a NodeClaim being deleted, `Drifted`, or older than its NodePool's
 *   `spec.template.spec.expireAfter` (a Go duration; `Never` never expires);
 * - the node of a NodeClaim `Registered=True` whose `Initialized` is not True;
 * - a Karpenter node NotReady for at least NODE_NOT_READY's default threshold (notReadyNodes);
 * - up to 20 per NodePool of the nodes Karpenter could long have consolidated (consolidationCandidates).
 * In a healthy cluster only long-Consolidatable nodes are (at most 20 per NodePool), so its scan reads few pods beyond
 * the Pending and controller ones.
 */
export function nodesOfInterest(
  nodes: readonly Node[],
  nodeClaims: readonly NodeClaim[],
  nodePools: readonly NodePool[],
  now: Date,
): string[] {
  const names = new Set<string>();
  for (const node of nodes) {
    const name = node.metadata?.name;
    if (name && (node.metadata?.deletionTimestamp !== undefined || isTaintedDisrupted(node))) names.add(name);
  }
  const expiry = new Map(nodePools.map((p) => [p.metadata?.name, expireAfterMs(p)]));
  const nodeByProvider = new Map(
    nodes.flatMap((n) => (n.spec?.providerID && n.metadata?.name ? [[n.spec.providerID, n.metadata.name]] : [])),
  );
  for (const claim of nodeClaims) {
    if (!isBeingDisrupted(claim, expiry.get(nodePoolOfClaim(claim)), now) && !isUninitialized(claim)) continue;
    const name = nodeNameOfClaim(claim, nodeByProvider);
    if (name) names.add(name);
  }
  for (const name of notReadyNodes(nodes, now)) names.add(name);
  for (const name of consolidationCandidates(nodeClaims, nodePools, now, nodeByProvider)) names.add(name);
  return [...names].sort();
}

/** The later of two RFC 3339 times (an unreadable second one is ignored). */
function latest(first: string | undefined, second: string | undefined): string | undefined {
  const a = first === undefined ? NaN : Date.parse(first);
  const b = second === undefined ? NaN : Date.parse(second);
  return !Number.isNaN(b) && (Number.isNaN(a) || b > a) ? second : first;
}

/** The Node of a NodeClaim: its status names it, else the Node with its provider ID. */
function nodeNameOfClaim(claim: NodeClaim, nodeByProvider: ReadonlyMap<string, string>): string | undefined {
  return claim.status?.nodeName ?? (claim.status?.providerID ? nodeByProvider.get(claim.status.providerID) : undefined);
}

/** How many idle-looking nodes per NodePool a live scan reads the pods of, oldest first (docs/findings.md#consolidation_blocked). */
const CONSOLIDATION_CANDIDATES_PER_POOL = 20;

/**
 * The nodes CONSOLIDATION_BLOCKED judges by their pods: a NodeClaim `Consolidatable=True` since at
 * least the default threshold; where the condition is absent because consolidation is off
 * (`consolidateAfter: Never`, `WhenEmpty`) or predates it (v1beta1), one initialised that long
 * ago. At most 20 per NodePool, those waiting longest, so a big stable cluster (every node of
 * which may be Consolidatable) is never listed whole; the detector reports an unread node only
 * when Karpenter sent an event about it. The default threshold, not a `--consolidation-blocked`
 * given: a shorter one sees the rest only through those events.
 */
function consolidationCandidates(
  nodeClaims: readonly NodeClaim[],
  nodePools: readonly NodePool[],
  now: Date,
  nodeByProvider: ReadonlyMap<string, string>,
): string[] {
  const off = new Set(
    nodePools
      .filter((p) => p.spec?.disruption?.consolidateAfter === 'Never' || p.spec?.disruption?.consolidationPolicy === 'WhenEmpty')
      .map((p) => p.metadata?.name),
  );
  const byPool = new Map<string, { name: string; age: number }[]>();
  for (const claim of nodeClaims) {
    if (claim.metadata?.deletionTimestamp !== undefined || isConditionTrue(claim, 'Drifted')) continue;
    const pool = nodePoolOfClaim(claim);
    const consolidatable = conditionOf(claim, 'Consolidatable');
    const initialized = conditionOf(claim, 'Initialized');
    // With consolidateAfter 0s the condition never turns False: a later pod event restarts the wait.
    const since =
      consolidatable?.status === 'True'
        ? latest(consolidatable.lastTransitionTime, claim.status?.lastPodEventTime)
        : consolidatable === undefined && (off.has(pool) || (claim.apiVersion ?? '').endsWith('/v1beta1'))
          ? initialized?.status === 'True'
            ? initialized.lastTransitionTime
            : undefined
          : undefined;
    const age = ageMs(since, now);
    const name = nodeNameOfClaim(claim, nodeByProvider);
    if (!pool || !name || age === undefined || age < DEFAULT_DETECTION.consolidationBlockedMs) continue;
    const list = byPool.get(pool);
    if (list) list.push({ name, age });
    else byPool.set(pool, [{ name, age }]);
  }
  return [...byPool.values()].flatMap((list) =>
    list
      .sort((a, b) => b.age - a.age || a.name.localeCompare(b.name))
      .slice(0, CONSOLIDATION_CANDIDATES_PER_POOL)
      .map((c) => c.name),
  );
}

/**
 * NODE_NOT_READY's nodes: Karpenter's (labelled `karpenter.sh/nodepool`), `Ready` False or Unknown
 * since at least the threshold's default (`--not-ready` 10m; a scan collects before it knows a
 * lower setting), so their pods stuck Terminating and the pods that starve them are read.
 */
const NOT_READY_AFTER_MS = FINDING_CATALOGUE.NODE_NOT_READY.thresholds[0].default;

function notReadyNodes(nodes: readonly Node[], now: Date): string[] {
  return nodes.flatMap((node) => {
    const ready = conditionOf(node, 'Ready');
    const name = node.metadata?.name;
    if (!name || !ready || ready.status === 'True' || node.metadata?.labels?.['karpenter.sh/nodepool'] === undefined) return [];
    const age = ageMs(ready.lastTransitionTime, now);
    return age !== undefined && age >= NOT_READY_AFTER_MS ? [name] : [];
  });
}

function isTaintedDisrupted(node: Node): boolean {
  return (node.spec?.taints ?? []).some(
    (t) => (t.key === DISRUPTED_TAINT_KEY || t.key === LEGACY_DISRUPTION_TAINT_KEY) && t.effect === 'NoSchedule',
  );
}

function isUninitialized(claim: NodeClaim): boolean {
  return isConditionTrue(claim, 'Registered') && !isConditionTrue(claim, 'Initialized');
}

function isBeingDisrupted(claim: NodeClaim, expireAfter: number | undefined, now: Date): boolean {
  if (claim.metadata?.deletionTimestamp !== undefined || isConditionTrue(claim, 'Drifted')) return true;
  if (expireAfter === undefined || !Number.isFinite(expireAfter)) return false;
  const age = ageMs(claim.metadata?.creationTimestamp, now);
  return age !== undefined && age >= expireAfter;
}

/** v1 `spec.template.spec.expireAfter`, or v1beta1 `spec.disruption.expireAfter`. */
function expireAfterMs(pool: NodePool): number | undefined {
  const legacy = pool.spec?.disruption?.expireAfter;
  return parseGoDuration(pool.spec?.template?.spec?.expireAfter ?? (typeof legacy === 'string' ? legacy : undefined));
}
