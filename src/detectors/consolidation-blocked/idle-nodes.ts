/**
 * The nodes CONSOLIDATION_BLOCKED is about: Karpenter nodes it could consolidate but has not for
 * at least the threshold (docs/findings.md#consolidation_blocked).
 * - Its NodeClaim is `Consolidatable=True` (Karpenter v1.0+) since at least the threshold (the
 *   condition's lastTransitionTime, which restarts on every pod bound or removed), and it is idle
 *   as below, or Karpenter sent an Unconsolidatable or DisruptionBlocked about it (its pods not
 *   captured: any; a busy node: one naming a blocker, `busy`): Karpenter sets the condition on every
 *   node whose `consolidateAfter` has passed since its last pod event, busy or not, so on its own
 *   it would name every well-packed long-lived node; its own verdict on the node is what counts.
 * - Or the condition is absent because consolidation is off for the node (`consolidateAfter: Never`
 *   removes it; `WhenEmpty` pools, and every v0.3x pool, which has no such condition) and, from the
 *   captured pods, the node is idle: no pod but DaemonSet and mirror pods, or requests under half
 *   its allocatable CPU and memory, unchanged (no pod created on it, no pod event) for the threshold.
 * Never a node being disrupted (deletion timestamp on the Node or NodeClaim, `karpenter.sh/disrupted`
 * taint): those are NODE_TERMINATION_STUCK's; nor a drifted or expired one (`Drifted=True`, older than the
 * NodePool's expireAfter), DISRUPTION_BLOCKED's; nor one whose Node is not Ready, NODE_NOT_READY's.
 */
import type { Condition, KubeEvent, Node, NodeClaim, NodePool, Pod } from '../../domain/kube.ts';
import { conditionOf, eventLastSeenMs, isNodeNotReady } from '../../domain/kube-helpers.ts';
import type { SnapshotIndex } from '../../domain/snapshot-index.ts';
import { nodePoolOfClaim } from '../../domain/tags.ts';
import { blockedCauseOf, clusterScopedEvents, unconsolidatableCauseOf } from '../karpenter/disruption-messages.ts';
import { isDisruptedTaint, waitsForDrain } from '../karpenter/eviction-blockers.ts';
import { expiryOf, nodeOfClaim, timeOf } from '../karpenter/nodeclaims.ts';
import { isDaemonSetPod } from '../scheduling/pending.ts';
import { parseResources } from '../scheduling/quantity.ts';
import { podRequests } from '../scheduling/scheduling.ts';

export interface IdleNode {
  /** Absent for a node with no NodeClaim in the capture (Provisioner era, or NodeClaims not captured). */
  claimName: string | undefined;
  claim: NodeClaim | undefined;
  node: Node | undefined;
  nodeName: string | undefined;
  /** Since when Karpenter could consolidate it (Consolidatable's transition, or the last change seen on an idle node). */
  since: number;
  /**
   * `Consolidatable=True`; judged idle from its pods because the condition is absent; or, with no
   * NodeClaim captured for it, Karpenter's Unconsolidatable/DisruptionBlocked about a node older than the threshold.
   */
  basis: 'consolidatable' | 'idle' | 'event';
  /** Its pods a drain would move (not DaemonSet, mirror or finished ones), when pods were captured. */
  workloadPods: Pod[] | undefined;
  /**
   * Consolidatable, its pods request half or more of its CPU or memory, and Karpenter's own
   * Unconsolidatable/DisruptionBlocked names what keeps it: counted on Karpenter's word, but what
   * it costs is not provable waste.
   */
  busy?: true;
}

/** How the finding's text names a node: its Node, else its NodeClaim (a claim whose Node is unknown). */
export function idleNodeName(n: IdleNode): string {
  return n.nodeName ?? n.claimName ?? '?';
}

/** Karpenter is already disrupting or deleting it. */
function beingDisrupted(claim: NodeClaim | undefined, node: Node | undefined): boolean {
  return (
    claim?.metadata?.deletionTimestamp !== undefined ||
    node?.metadata?.deletionTimestamp !== undefined ||
    (node?.spec?.taints ?? []).some(isDisruptedTaint)
  );
}

/** `consolidateAfter: Never`, or `WhenEmpty` (read as written; v1beta1 and v1 spell it the same). */
type ConsolidationOff = 'never' | 'when-empty' | undefined;

export function consolidationOff(np: NodePool | undefined): ConsolidationOff {
  const d = np?.spec?.disruption;
  if (d?.consolidateAfter === 'Never') return 'never';
  if (d?.consolidationPolicy === 'WhenEmpty') return 'when-empty';
  return undefined;
}

/** The pods a drain would move: not DaemonSet, mirror or finished ones. */
function workloadPodsOf(pods: readonly Pod[], now: Date): Pod[] {
  return pods.filter((p) => !isDaemonSetPod(p) && waitsForDrain(p, now));
}

/** No workload pod, or their requests under half the node's allocatable CPU and memory. */
function isIdle(node: Node | undefined, claim: NodeClaim | undefined, workload: readonly Pod[]): boolean {
  if (workload.length === 0) return true;
  const allocatable = parseResources(node?.status?.allocatable ?? claim?.status?.allocatable);
  const cpu = allocatable.cpu;
  const memory = allocatable.memory;
  if (!cpu || !memory) return false;
  let usedCpu = 0;
  let usedMemory = 0;
  for (const p of workload) {
    const r = podRequests(p);
    usedCpu += r.cpu ?? 0;
    usedMemory += r.memory ?? 0;
  }
  return usedCpu < cpu / 2 && usedMemory < memory / 2;
}

/** The latest change an idle node shows: its start, its last pod event, its newest workload pod. */
function idleSince(claim: NodeClaim, node: Node | undefined, workload: readonly Pod[]): number | undefined {
  const times = [
    timeOf(conditionOf(claim, 'Initialized')?.lastTransitionTime),
    timeOf(node?.metadata?.creationTimestamp),
    timeOf(claim.metadata?.creationTimestamp),
    timeOf(claim.status?.lastPodEventTime),
    ...workload.map((p) => timeOf(p.metadata?.creationTimestamp)),
  ].filter((t): t is number => t !== undefined);
  return times.length === 0 ? undefined : Math.max(...times);
}

/**
 * Whether the node's pods are in the capture: pods were captured and the node has at least one (a
 * Karpenter node always runs DaemonSet pods, kube-proxy and the CNI's, so none at all means its pods
 * were not read, as for a node a live scan does not list; src/collect/nodes-of-interest.ts).
 */
function podsKnown(index: SnapshotIndex, node: Node | undefined): boolean {
  const name = node?.metadata?.name;
  return index.snapshot.captured.has('pods') && name !== undefined && (index.podsByNode.get(name)?.length ?? 0) > 0;
}

/** Karpenter's Unconsolidatable and DisruptionBlocked on the NodeClaim or its Node: it took the node as a candidate. */
function karpenterWords(index: SnapshotIndex, claim: NodeClaim | undefined, node: Node | undefined): KubeEvent[] {
  const events = [
    ...(claim?.metadata?.name ? clusterScopedEvents(index, 'NodeClaim', claim.metadata.name) : []),
    ...(node?.metadata?.name ? clusterScopedEvents(index, 'Node', node.metadata.name) : []),
  ];
  return events.filter((e) => e.reason === 'Unconsolidatable' || e.reason === 'DisruptionBlocked');
}

function karpenterSaysWhy(index: SnapshotIndex, claim: NodeClaim | undefined, node: Node | undefined): boolean {
  return karpenterWords(index, claim, node).length > 0;
}

/** A text Karpenter sends once it evaluated the node as a candidate and found what keeps it (not a transient state). */
function karpenterNamesABlocker(index: SnapshotIndex, claim: NodeClaim | undefined, node: Node | undefined): boolean {
  return karpenterWords(index, claim, node).some((e) => {
    const message = e.message ?? '';
    if (e.reason === 'Unconsolidatable' && unconsolidatableCauseOf(message) !== undefined) return true;
    const cause = blockedCauseOf(message).cause;
    return cause !== undefined && cause !== 'NODE_NOT_INITIALIZED';
  });
}

const POOL_LABELS = ['karpenter.sh/nodepool', 'karpenter.sh/provisioner-name'];

/**
 * Karpenter's nodes with no NodeClaim in the capture (a Provisioner-era cluster, or NodeClaims not
 * captured) that Karpenter sent Unconsolidatable or DisruptionBlocked about, older than the
 * threshold: the event says it took the node as a candidate; since when it could go is unknown, so
 * the node's own age stands for the threshold, and `since` is Karpenter's first word about it.
 */
function nodesWithoutClaims(
  index: SnapshotIndex,
  now: Date,
  thresholdMs: number,
  claimed: ReadonlySet<string>,
): [string, IdleNode][] {
  const found: [string, IdleNode][] = [];
  for (const node of index.snapshot.nodes) {
    const name = node.metadata?.name;
    // Nearly every Node has its NodeClaim: asked first, the rest is read for the few without.
    if (!name || claimed.has(name)) continue;
    const pool = POOL_LABELS.map((l) => node.metadata?.labels?.[l]).find(Boolean);
    if (!pool || beingDisrupted(undefined, node) || isNodeNotReady(node)) continue;
    const created = timeOf(node.metadata?.creationTimestamp);
    const words = karpenterWords(index, undefined, node);
    if (created === undefined || now.getTime() - created < thresholdMs || words.length === 0) continue;
    const workloadPods = podsKnown(index, node) ? workloadPodsOf(index.podsByNode.get(name) ?? [], now) : undefined;
    if (workloadPods && !isIdle(node, undefined, workloadPods)) continue;
    const firsts = words.map((e) => timeOf(e.firstTime) ?? eventLastSeenMs(e)).filter((t) => t > 0);
    const since = Math.min(...firsts, now.getTime());
    found.push([pool, { claimName: undefined, claim: undefined, node, nodeName: name, since, basis: 'event', workloadPods }]);
  }
  return found;
}

/**
 * Whether the claim may count at all, from its Consolidatable condition (`condition`) and its
 * NodePool alone: True, or absent where consolidation is off or the claim predates the condition.
 * Most NodeClaims of a big cluster fail here, before anything else about them is read.
 */
function mayCount(claim: NodeClaim, condition: Condition | undefined, off: ConsolidationOff): boolean {
  if (condition !== undefined) return condition.status === 'True';
  return off !== undefined || predatesCondition(claim);
}

/** A v1beta1 NodeClaim: before v1.0 Karpenter set no Consolidatable condition. */
function predatesCondition(claim: NodeClaim): boolean {
  return (claim.apiVersion ?? '').endsWith('/v1beta1');
}

/**
 * Since when the claim could be consolidated, and how that is known; undefined when it cannot (yet).
 * `condition` is its Consolidatable condition, `off` its NodePool's consolidationOff; asked only of
 * a claim that passed mayCount.
 */
function consolidatableSince(
  index: SnapshotIndex,
  claim: NodeClaim,
  condition: Condition | undefined,
  node: Node | undefined,
  off: ConsolidationOff,
  now: Date,
): Pick<IdleNode, 'since' | 'basis' | 'workloadPods' | 'busy'> | undefined {
  // The node's pods are walked only for a claim that may count: most NodeClaims of a big cluster are
  // not Consolidatable, and their pods are most of the cluster's.
  const podsOfNode = () =>
    podsKnown(index, node) ? workloadPodsOf(index.podsByNode.get(node?.metadata?.name ?? '') ?? [], now) : undefined;
  if (condition?.status === 'True') {
    // With consolidateAfter 0s Karpenter never turns the condition False, so a pod event after its
    // transition (status.lastPodEventTime) restarts the wait.
    const transition = timeOf(condition.lastTransitionTime);
    if (transition === undefined) return undefined;
    const since = Math.max(transition, timeOf(claim.status?.lastPodEventTime) ?? transition);
    const workloadPods = podsOfNode();
    if (!workloadPods) return karpenterSaysWhy(index, claim, node) ? { since, basis: 'consolidatable', workloadPods } : undefined;
    if (isIdle(node, claim, workloadPods)) return { since, basis: 'consolidatable', workloadPods };
    // Busy by our rule, yet Karpenter evaluated it and said what keeps it: its own word counts.
    return karpenterNamesABlocker(index, claim, node) ? { since, basis: 'consolidatable', workloadPods, busy: true } : undefined;
  }
  // Absent: only where consolidation is off (or the NodeClaim predates the condition), and only from the pods.
  const predates = predatesCondition(claim);
  if (conditionOf(claim, 'Initialized')?.status !== 'True') return undefined;
  const workloadPods = podsOfNode();
  if (!workloadPods) return undefined;
  if (!isIdle(node, claim, workloadPods)) return undefined;
  // A v1beta1 NodeClaim has no lastPodEventTime, so the node's age would stand in for idle time:
  // with consolidation on, Karpenter's own event must say it took the node as a candidate; an empty
  // node of a WhenEmpty pool is idle since v1beta1's Empty condition turned True.
  if (predates && !off && !karpenterSaysWhy(index, claim, node)) return undefined;
  if (predates && off === 'when-empty' && workloadPods.length === 0) {
    const empty = conditionOf(claim, 'Empty');
    const since = empty?.status === 'True' ? timeOf(empty.lastTransitionTime) : undefined;
    return since === undefined ? undefined : { since, basis: 'idle', workloadPods };
  }
  const since = idleSince(claim, node, workloadPods);
  return since === undefined ? undefined : { since, basis: 'idle', workloadPods };
}

/** The nodes to report by NodePool, each list oldest first. */
export function idleNodesByPool(index: SnapshotIndex, now: Date, thresholdMs: number): Map<string, IdleNode[]> {
  const byPool = new Map<string, IdleNode[]>();
  // Nodes a NodeClaim owns, by its status or its instance: never judged again as claimless below.
  const claimed = new Set<string>();
  for (const claim of index.snapshot.nodeClaims) {
    const node = nodeOfClaim(index, claim);
    const statusName = claim.status?.nodeName;
    const nodeName = node?.metadata?.name;
    if (statusName) claimed.add(statusName);
    if (nodeName && nodeName !== statusName) claimed.add(nodeName);
    const pool = nodePoolOfClaim(claim);
    if (!pool) continue;
    const consolidatable = conditionOf(claim, 'Consolidatable');
    const nodePool = index.nodePoolsByName.get(pool);
    const off = consolidationOff(nodePool);
    if (!mayCount(claim, consolidatable, off)) continue;
    // A NotReady node is NODE_NOT_READY's: counting it here too would count its cost twice.
    if (beingDisrupted(claim, node) || isNodeNotReady(node) || conditionOf(claim, 'Drifted')?.status === 'True') continue;
    if (expiryOf(claim, nodePool, now.getTime()) !== undefined) continue;
    const found = consolidatableSince(index, claim, consolidatable, node, off, now);
    if (!found || now.getTime() - found.since < thresholdMs) continue;
    const idle: IdleNode = {
      claimName: claim.metadata?.name ?? '?',
      claim,
      node,
      nodeName: node?.metadata?.name ?? claim.status?.nodeName,
      ...found,
    };
    const list = byPool.get(pool);
    if (list) list.push(idle);
    else byPool.set(pool, [idle]);
  }
  for (const [pool, idle] of nodesWithoutClaims(index, now, thresholdMs, claimed)) {
    const list = byPool.get(pool);
    if (list) list.push(idle);
    else byPool.set(pool, [idle]);
  }
  const nameOf = (n: IdleNode) => n.claimName ?? n.nodeName ?? '';
  for (const list of byPool.values()) list.sort((a, b) => a.since - b.since || nameOf(a).localeCompare(nameOf(b)));
  return byPool;
}
