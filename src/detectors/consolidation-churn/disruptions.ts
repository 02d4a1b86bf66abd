/**
 * Karpenter's consolidation disruptions, one per disrupted node, read from its events.
 *
 * Karpenter publishes `DisruptionTerminating` twice per disrupted node, once on the Node and once
 * on its NodeClaim (core `pkg/controllers/disruption/events/events.go`, `Terminating`):
 * `Disrupting Node: Underutilized` / `Disrupting NodeClaim: Underutilized` (v1.6+), and
 * `Disrupting Node: Underutilized/Replace` or `.../Delete` (v1.0–v1.5, where the command's
 * decision followed the reason). Replacements get `DisruptionLaunching` `Launching NodeClaim:
 * Underutilized` (the same suffix in v1.0–v1.5), published while Karpenter waits for them to
 * initialize, before it deletes the candidates.
 *
 * One disruption per node: the Node's and the NodeClaim's events are joined through the captured
 * objects (NodeClaim `status.nodeName`, or the Node's `providerID`), else, when both objects are
 * gone, by pairing a Node event with a NodeClaim event of the same reason published within
 * seconds of it. An event repeated (`count` > 1, a retried command) is still one node; it falls in
 * a window by its last time.
 */
import type { KubeEvent, Node, NodeClaim, NodePool } from '../../domain/kube.ts';
import type { SnapshotIndex } from '../../domain/snapshot-index.ts';
import { NODEPOOL_LABEL } from '../../domain/tags.ts';

export type ConsolidationReason = 'Underutilized' | 'Empty';

const INSTANCE_TYPE_LABEL = 'node.kubernetes.io/instance-type';
/** Karpenter's Node and NodeClaim events of one disruption are published together. */
const PAIR_WITHIN_MS = 10_000;
/** A replacement's Launching event comes while it initializes, before the candidate's Terminating. */
const REPLACEMENT_WITHIN_MS = 15 * 60_000;

const TERMINATING = /^Disrupting (Node|NodeClaim): ([A-Za-z]+)(?:\/([A-Za-z]+))?/;
const LAUNCHING = /^Launching NodeClaim: ([A-Za-z]+)(?:\/([A-Za-z]+))?/;

export interface Disruption {
  reason: ConsolidationReason;
  /** `Replace` / `Delete`, when the message says (v1.0–v1.5). */
  decision?: string;
  /** When it was published (the later of its events' last times), ms. */
  at: number;
  nodeClaim?: string;
  node?: string;
  nodePool?: string;
  /** How the NodePool was found: a `karpenter.sh/nodepool` label, or the NodeClaim's name. */
  attributedBy?: 'label' | 'name';
  /** The disrupted node's creation time, ms, when its Node or NodeClaim is still captured. */
  createdAt?: number;
  instanceType?: string;
  /** The messages' wording, for the evidence: `Disrupting NodeClaim: Underutilized`. */
  message: string;
}

export interface Launch {
  nodeClaim: string;
  reason: string;
  /** First time the Launching event was seen, ms. */
  at: number;
  nodePool?: string;
  instanceType?: string;
}

function capitalised(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1).toLowerCase();
}

function timeOf(event: KubeEvent, which: 'first' | 'last'): number | undefined {
  const text = which === 'first' ? (event.firstTime ?? event.lastTime) : (event.lastTime ?? event.firstTime);
  if (text === undefined) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}

function msOf(iso: string | undefined): number | undefined {
  if (iso === undefined) return undefined;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? undefined : ms;
}

interface Objects {
  nodeClaims: ReadonlyMap<string, NodeClaim>;
  nodes: ReadonlyMap<string, Node>;
  /** Node name → NodeClaim name: by the NodeClaim's `status.nodeName`, else by the Node's providerID. */
  claimOfNode(node: string): string | undefined;
  nodePools: readonly NodePool[];
}

/** Lookups over the analysis's shared index; the providerID table only if a Node no NodeClaim names is asked for. */
function objectsOf(index: SnapshotIndex, nodePools: readonly NodePool[]): Objects {
  let byProvider: Map<string, string> | undefined;
  return {
    nodeClaims: index.nodeClaimsByName,
    nodes: index.nodesByName,
    claimOfNode(node) {
      const named = index.nodeClaimsByNodeName.get(node)?.metadata?.name;
      if (named) return named;
      const providerID = index.nodesByName.get(node)?.spec?.providerID;
      if (!providerID) return undefined;
      byProvider ??= new Map(
        index.snapshot.nodeClaims.flatMap((nc): [string, string][] =>
          nc.metadata?.name && nc.status?.providerID ? [[nc.status.providerID, nc.metadata.name]] : [],
        ),
      );
      return byProvider.get(providerID);
    },
    nodePools,
  };
}

/**
 * The NodePool a NodeClaim name was generated for: `<nodepool>-<5 characters>`, the longest
 * captured NodePool name that fits.
 */
function nodePoolFromClaimName(name: string, nodePools: readonly NodePool[]): string | undefined {
  let best: string | undefined;
  for (const np of nodePools) {
    const pool = np.metadata?.name;
    if (!pool || !name.startsWith(`${pool}-`)) continue;
    if (!/^[a-z0-9]{5}$/.test(name.slice(pool.length + 1))) continue;
    if (best === undefined || pool.length > best.length) best = pool;
  }
  return best;
}

function attribute(d: Disruption, objects: Objects): void {
  const claim = d.nodeClaim ? objects.nodeClaims.get(d.nodeClaim) : undefined;
  const node = d.node ? objects.nodes.get(d.node) : undefined;
  const label = claim?.metadata?.labels?.[NODEPOOL_LABEL] ?? node?.metadata?.labels?.[NODEPOOL_LABEL];
  if (label) {
    d.nodePool = label;
    d.attributedBy = 'label';
  } else if (d.nodeClaim) {
    const pool = nodePoolFromClaimName(d.nodeClaim, objects.nodePools);
    if (pool) {
      d.nodePool = pool;
      d.attributedBy = 'name';
    }
  }
  const created = msOf(claim?.metadata?.creationTimestamp) ?? msOf(node?.metadata?.creationTimestamp);
  if (created !== undefined) d.createdAt = created;
  const type = node?.metadata?.labels?.[INSTANCE_TYPE_LABEL] ?? claim?.metadata?.labels?.[INSTANCE_TYPE_LABEL];
  if (type) d.instanceType = type;
}

interface Terminating {
  kind: 'Node' | 'NodeClaim';
  name: string;
  reason: ConsolidationReason;
  decision?: string;
  at: number;
  message: string;
}

function terminatingOf(event: KubeEvent): Terminating | undefined {
  if (event.reason !== 'DisruptionTerminating') return undefined;
  const match = TERMINATING.exec(event.message ?? '');
  if (!match) return undefined;
  const reason = capitalised(match[2] ?? '');
  if (reason !== 'Underutilized' && reason !== 'Empty') return undefined;
  const kind = event.regarding.kind === 'Node' || event.regarding.kind === 'NodeClaim' ? event.regarding.kind : match[1];
  const name = event.regarding.name;
  const at = timeOf(event, 'last');
  if (!name || at === undefined || (kind !== 'Node' && kind !== 'NodeClaim')) return undefined;
  return { kind, name, reason, ...(match[3] ? { decision: capitalised(match[3]) } : {}), at, message: match[0] };
}

/**
 * The consolidation disruptions (Underutilized, Empty) whose events' last time falls in
 * `(from, to]`, one per node, attributed to NodePools where the capture allows.
 */
export function consolidationDisruptions(
  events: readonly KubeEvent[],
  index: SnapshotIndex,
  nodePools: readonly NodePool[],
  from: number,
  to: number,
): Disruption[] {
  const byKey = new Map<string, Disruption>();
  const loneNodes: Terminating[] = [];
  const merge = (key: string, t: Terminating, patch: Partial<Disruption>) => {
    const existing = byKey.get(key);
    if (existing) {
      existing.at = Math.max(existing.at, t.at);
      existing.nodeClaim ??= patch.nodeClaim;
      existing.node ??= patch.node;
      return;
    }
    byKey.set(key, {
      reason: t.reason,
      ...(t.decision ? { decision: t.decision } : {}),
      at: t.at,
      message: t.message,
      ...patch,
    });
  };
  const terminating = events.flatMap((e) => {
    const t = terminatingOf(e);
    return t && t.at > from && t.at <= to ? [t] : [];
  });
  // Nothing consolidated in the window (the usual case): no need to look up any object.
  if (terminating.length === 0) return [];
  const objects = objectsOf(index, nodePools);
  // NodeClaim events first, so a Node event can join the NodeClaim's disruption.
  for (const t of terminating.filter((x) => x.kind === 'NodeClaim')) {
    const node = objects.nodeClaims.get(t.name)?.status?.nodeName;
    merge(`claim:${t.name}`, t, { nodeClaim: t.name, ...(node ? { node } : {}) });
  }
  for (const t of terminating.filter((x) => x.kind === 'Node')) {
    const claim = objects.claimOfNode(t.name);
    if (claim) merge(`claim:${claim}`, t, { nodeClaim: claim, node: t.name });
    else loneNodes.push(t);
  }
  // Both objects gone: pair each Node event with the nearest unpaired NodeClaim event of its reason.
  const unpaired = [...byKey.values()].filter((d) => d.node === undefined);
  for (const t of loneNodes.sort((a, b) => a.at - b.at)) {
    let best: Disruption | undefined;
    for (const d of unpaired) {
      if (d.node !== undefined || d.reason !== t.reason || Math.abs(d.at - t.at) > PAIR_WITHIN_MS) continue;
      if (!best || Math.abs(d.at - t.at) < Math.abs(best.at - t.at)) best = d;
    }
    if (best) best.node = t.name;
    else merge(`node:${t.name}`, t, { node: t.name });
  }
  const disruptions = [...byKey.values()];
  for (const d of disruptions) attribute(d, objects);
  return disruptions.sort((a, b) => a.at - b.at);
}

/** NodeClaims Karpenter launched to replace consolidated nodes (`DisruptionLaunching`), first seen in `(from, to]`. */
export function consolidationLaunches(
  events: readonly KubeEvent[],
  nodeClaims: readonly NodeClaim[],
  nodePools: readonly NodePool[],
  from: number,
  to: number,
): Launch[] {
  let claims: Map<string, NodeClaim> | undefined;
  const launches = new Map<string, Launch>();
  for (const event of events) {
    if (event.reason !== 'DisruptionLaunching' || event.regarding.kind !== 'NodeClaim') continue;
    const match = LAUNCHING.exec(event.message ?? '');
    const name = event.regarding.name;
    const at = timeOf(event, 'first');
    if (!match || !name || at === undefined || at <= from - REPLACEMENT_WITHIN_MS || at > to) continue;
    // Built at the first launch seen: most scans have none.
    claims ??= new Map(nodeClaims.map((nc) => [nc.metadata?.name ?? '', nc]));
    const claim = claims.get(name);
    const nodePool = claim?.metadata?.labels?.[NODEPOOL_LABEL] ?? nodePoolFromClaimName(name, nodePools);
    const instanceType = claim?.metadata?.labels?.[INSTANCE_TYPE_LABEL];
    const previous = launches.get(name);
    if (previous && previous.at <= at) continue;
    launches.set(name, {
      nodeClaim: name,
      reason: capitalised(match[1] ?? ''),
      at,
      ...(nodePool ? { nodePool } : {}),
      ...(instanceType ? { instanceType } : {}),
    });
  }
  return [...launches.values()].sort((a, b) => a.at - b.at);
}

/**
 * Each Underutilized disruption with the replacement launched for it: the nearest unused Launching
 * of the same NodePool first seen in the 15 minutes before it (Karpenter waits for the replacement
 * to initialize before it terminates the candidate). Pairs whose both instance types are known.
 */
export function replacements(disruptions: readonly Disruption[], launches: readonly Launch[]): { from: string; to: string }[] {
  const used = new Set<string>();
  const pairs: { from: string; to: string }[] = [];
  for (const d of disruptions) {
    if (d.reason !== 'Underutilized' || d.decision === 'Delete') continue;
    let best: Launch | undefined;
    for (const l of launches) {
      if (used.has(l.nodeClaim) || l.reason !== 'Underutilized' || l.nodePool !== d.nodePool) continue;
      if (l.at > d.at + PAIR_WITHIN_MS || l.at < d.at - REPLACEMENT_WITHIN_MS) continue;
      if (!best || Math.abs(d.at - l.at) < Math.abs(d.at - best.at)) best = l;
    }
    if (!best) continue;
    used.add(best.nodeClaim);
    if (d.instanceType && best.instanceType) pairs.push({ from: d.instanceType, to: best.instanceType });
  }
  return pairs;
}
