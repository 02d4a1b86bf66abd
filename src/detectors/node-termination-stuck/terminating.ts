/**
 * Which Nodes and NodeClaims Karpenter is terminating, and since when. A Node counts only when it
 * is Karpenter's (a NodeClaim, the `karpenter.sh/termination` finalizer, the `karpenter.sh/nodepool`
 * label or the `karpenter.sh/disrupted` taint says so), and it is timed from the earliest deletion
 * timestamp of the Node or its NodeClaim; a tainted Node without one from the first drain-start
 * event, because the taint carries no time and an untimed node cannot be called stuck. A NodeClaim
 * being deleted with no Node of its own stands alone. Only those past `terminationStuckMs` are kept.
 */
import type { KubeEvent, Node, NodeClaim } from '../../domain/kube.ts';
import { ageMs, instanceIdFromProviderID, newestFirst } from '../../domain/kube-helpers.ts';
import { nodePoolOfClaim, NODEPOOL_LABEL, TERMINATION_FINALIZER } from '../../domain/tags.ts';
import type { DetectContext } from '../detector.ts';
import { isDisruptedTaint } from '../karpenter/eviction-blockers.ts';
import { DRAIN_EVENT_REASONS, DRAIN_START_REASONS } from './termination-events.ts';

export interface Terminating {
  node: Node | undefined;
  nodeName: string | undefined;
  claim: NodeClaim | undefined;
  since: string;
  /** Where `since` comes from, for the evidence. */
  sinceFrom: string;
  ageMs: number;
  pool: string | undefined;
}

export function terminating(ctx: DetectContext): Terminating[] {
  const { snapshot, index } = ctx;
  const claimByNode = index.nodeClaimsByNodeName;
  const used = new Set<NodeClaim>();
  const found: Terminating[] = [];
  const add = (t: Omit<Terminating, 'ageMs' | 'pool'> | undefined) => {
    if (!t) return;
    const age = ageMs(t.since, ctx.now);
    if (age === undefined || age < ctx.settings.terminationStuckMs) return;
    const pool = (t.claim && nodePoolOfClaim(t.claim)) ?? t.node?.metadata?.labels?.[NODEPOOL_LABEL];
    found.push({ ...t, ageMs: age, pool });
  };
  for (const node of snapshot.nodes) {
    const name = node.metadata?.name;
    if (!name) continue;
    const claim = claimByNode.get(name) ?? claimByInstance(index, node);
    // The loop below reads only NodeClaims being deleted: only those need marking as seen.
    if (claim?.metadata?.deletionTimestamp) used.add(claim);
    add(nodeTermination(ctx, node, name, claim));
  }
  for (const claim of snapshot.nodeClaims) {
    if (used.has(claim) || !claim.metadata?.deletionTimestamp) continue;
    const nodeName = snapshot.captured.has('nodes') ? undefined : claim.status?.nodeName;
    add({
      node: undefined,
      nodeName,
      claim,
      since: claim.metadata.deletionTimestamp,
      sinceFrom: `NodeClaim ${claim.metadata.name ?? '?'} deletionTimestamp`,
    });
  }
  return found;
}

/** The NodeClaim of a Node no NodeClaim names, by the instance in its providerID. */
function claimByInstance(index: DetectContext['index'], node: Node): NodeClaim | undefined {
  const instanceId = instanceIdFromProviderID(node.spec?.providerID);
  return instanceId ? index.nodeClaimsByInstanceId.get(instanceId) : undefined;
}

function nodeTermination(
  ctx: DetectContext,
  node: Node,
  name: string,
  claim: NodeClaim | undefined,
): Omit<Terminating, 'ageMs' | 'pool'> | undefined {
  const tainted = (node.spec?.taints ?? []).some(isDisruptedTaint);
  // Most nodes: nothing is terminating them (and nothing allocated to say so).
  if (!tainted && node.metadata?.deletionTimestamp === undefined && claim?.metadata?.deletionTimestamp === undefined)
    return undefined;
  const karpenters =
    claim !== undefined ||
    tainted ||
    (node.metadata?.finalizers ?? []).includes(TERMINATION_FINALIZER) ||
    node.metadata?.labels?.[NODEPOOL_LABEL] !== undefined;
  if (!karpenters) return undefined;
  const deletions = [
    { at: node.metadata?.deletionTimestamp, from: `Node ${name} deletionTimestamp` },
    { at: claim?.metadata?.deletionTimestamp, from: `NodeClaim ${claim?.metadata?.name ?? '?'} deletionTimestamp` },
  ].filter((d): d is { at: string; from: string } => d.at !== undefined && !Number.isNaN(Date.parse(d.at)));
  deletions.sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
  const first = deletions[0];
  if (first) return { node, nodeName: name, claim, since: first.at, sinceFrom: first.from };
  if (!tainted) return undefined;
  const started = drainEvents(ctx, name, claim)
    .filter((e) => DRAIN_START_REASONS.includes(e.reason ?? ''))
    .map((e) => e.firstTime ?? e.lastTime)
    .filter((t): t is string => t !== undefined && !Number.isNaN(Date.parse(t)))
    .sort((a, b) => Date.parse(a) - Date.parse(b))[0];
  if (!started) return undefined;
  return {
    node,
    nodeName: name,
    claim,
    since: started,
    sinceFrom: `the first FailedDraining/DisruptionTerminating event (the karpenter.sh/disrupted taint carries no time)`,
  };
}

/** Karpenter's drain events about the Node and its NodeClaim, newest first. */
export function drainEvents(ctx: DetectContext, nodeName: string | undefined, claim: NodeClaim | undefined): KubeEvent[] {
  const reasons: readonly string[] = DRAIN_EVENT_REASONS;
  const events = [
    ...(nodeName ? ctx.index.eventsFor('Node', undefined, nodeName) : []),
    ...(claim?.metadata?.name ? ctx.index.eventsFor('NodeClaim', undefined, claim.metadata.name) : []),
  ];
  return newestFirst(events.filter((e) => reasons.includes(e.reason ?? '')));
}
