/**
 * The NodeClaims Karpenter wants to replace but has not: `Drifted=True`, or older than their
 * NodePool's `expireAfter`, with no deletion timestamp (those being deleted are
 * NODE_TERMINATION_STUCK's), at least the threshold after drifting or expiring.
 */
import type { Condition, Node, NodeClaim } from '../../domain/kube.ts';
import { conditionOf } from '../../domain/kube-helpers.ts';
import type { SnapshotIndex } from '../../domain/snapshot-index.ts';
import { nodePoolOfClaim } from '../../domain/tags.ts';
import { expiryOf, nodeOfClaim, timeOf } from '../karpenter/nodeclaims.ts';

export interface BlockedClaim {
  name: string;
  claim: NodeClaim;
  /** The claim's Node, when captured. */
  node: Node | undefined;
  nodeName: string | undefined;
  /** `Drifted=True`: its reason (`AMIDrift`, `NodePoolDrifted`, ...) and since when. */
  drifted: { reason: string; at: number } | undefined;
  /** When it expired (creation + the NodePool's expireAfter), if it has. */
  expiredAt: number | undefined;
  /** The earlier of drifting and expiring: since when Karpenter wants it replaced. */
  since: number;
}

function driftOf(claim: NodeClaim): BlockedClaim['drifted'] {
  const c: Condition | undefined = conditionOf(claim, 'Drifted');
  if (c?.status !== 'True') return undefined;
  const at = timeOf(c.lastTransitionTime) ?? timeOf(claim.metadata?.creationTimestamp);
  return at === undefined ? undefined : { reason: c.reason || 'Drifted', at };
}

/**
 * The blocked NodeClaims of the snapshot by NodePool. Left out: claims without a
 * `karpenter.sh/nodepool` label (Karpenter never disrupts those), and claims that never registered
 * a Node (NODECLAIM_NOT_REGISTERED's).
 */
export function blockedClaimsByPool(index: SnapshotIndex, now: Date, thresholdMs: number): Map<string, BlockedClaim[]> {
  const nowMs = now.getTime();
  const byPool = new Map<string, BlockedClaim[]>();
  for (const claim of index.snapshot.nodeClaims) {
    if (claim.metadata?.deletionTimestamp !== undefined) continue;
    const pool = nodePoolOfClaim(claim);
    if (!pool) continue;
    const drifted = driftOf(claim);
    const expiredAt = expiryOf(claim, index.nodePoolsByName.get(pool), nowMs);
    const times = [drifted?.at, expiredAt].filter((t): t is number => t !== undefined);
    if (times.length === 0) continue;
    const since = Math.min(...times);
    if (nowMs - since < thresholdMs) continue;
    const node = nodeOfClaim(index, claim);
    // Never registered: NODECLAIM_NOT_REGISTERED's (Karpenter deletes it 15 minutes after launch).
    if (!node && conditionOf(claim, 'Registered')?.status !== 'True' && !claim.status?.nodeName) continue;
    const blocked: BlockedClaim = {
      name: claim.metadata?.name ?? '?',
      claim,
      node,
      nodeName: node?.metadata?.name ?? claim.status?.nodeName,
      drifted,
      expiredAt,
      since,
    };
    const list = byPool.get(pool);
    if (list) list.push(blocked);
    else byPool.set(pool, [blocked]);
  }
  for (const list of byPool.values()) list.sort((a, b) => a.since - b.since || a.name.localeCompare(b.name));
  return byPool;
}

const DO_NOT_DISRUPT = 'karpenter.sh/do-not-disrupt';

/** Karpenter's node-level check: the annotation is exactly "true" (a duration applies to pods only). */
export function nodeDoNotDisrupt(b: BlockedClaim): { kind: 'Node' | 'NodeClaim'; name: string }[] {
  const found: { kind: 'Node' | 'NodeClaim'; name: string }[] = [];
  if (b.node?.metadata?.annotations?.[DO_NOT_DISRUPT] === 'true') found.push({ kind: 'Node', name: b.node.metadata.name ?? '?' });
  if (b.claim.metadata?.annotations?.[DO_NOT_DISRUPT] === 'true') found.push({ kind: 'NodeClaim', name: b.name });
  return found;
}

/**
 * How many nodes Karpenter's budgets count for the NodePool (initialized NodeClaims whose instance
 * is not terminating) and which of them are already disrupting (being deleted, tainted
 * `karpenter.sh/disrupted`, or NotReady): those use up the budget (core BuildDisruptionBudgetMapping).
 */
export function budgetCounts(index: SnapshotIndex, pool: string): { nodes: number; disrupting: string[] } {
  let nodes = 0;
  const disrupting: string[] = [];
  for (const claim of index.initializedClaimsByNodePool.get(pool) ?? []) {
    if (conditionOf(claim, 'InstanceTerminating')?.status === 'True') continue;
    nodes += 1;
    const node = nodeOfClaim(index, claim);
    const tainted = (node?.spec?.taints ?? []).some((t) => t.key === 'karpenter.sh/disrupted' && t.effect === 'NoSchedule');
    const ready = node ? conditionOf(node, 'Ready')?.status === 'True' : true;
    if (claim.metadata?.deletionTimestamp !== undefined || node?.metadata?.deletionTimestamp !== undefined || tainted || !ready)
      disrupting.push(claim.metadata?.name ?? '?');
  }
  return { nodes, disrupting };
}

/** `AMIDrift ×12, SubnetDrift ×1`, most frequent first. */
export function driftReasonCounts(claims: readonly BlockedClaim[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const c of claims) if (c.drifted) counts.set(c.drifted.reason, (counts.get(c.drifted.reason) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}
