/**
 * Karpenter's own words about the idle nodes: `Unconsolidatable` and `DisruptionBlocked` on their
 * Nodes and NodeClaims, and the NodePool's blocking-budget `DisruptionBlocked` for Underutilized or
 * Empty. They are evidence, never the trigger: Karpenter sends each at most every 15 minutes
 * (Unconsolidatable) or 2 minutes (DisruptionBlocked) per object whatever the text, multi-node
 * consolidation sends none, and the API server drops them after an hour, so a live cause may have
 * no event and an event may be stale (docs/findings.md#consolidation_blocked).
 */
import { eventLastSeenMs } from '../../domain/kube-helpers.ts';
import type { KubeEvent } from '../../domain/kube.ts';
import type { SnapshotIndex } from '../../domain/snapshot-index.ts';
import {
  blockedCauseOf,
  clusterScopedEvents,
  unconsolidatableCauseOf,
  type BlockedCause,
  type UnconsolidatableCause,
} from '../karpenter/disruption-messages.ts';
import type { IdleNode } from './idle-nodes.ts';

export interface KarpenterMessage {
  reason: 'Unconsolidatable' | 'DisruptionBlocked';
  /** As Karpenter wrote it, once per wording. */
  message: string;
  /** Sum of the events' counts. */
  count: number;
  /** `Node x` / `NodeClaim y` / `NodePool z` it was recorded on. */
  objects: string[];
  /** The newest sighting, ms since the epoch (0 when the capture has no time). */
  lastSeen: number;
  cause: UnconsolidatableCause | BlockedCause | undefined;
  /** `ns/name` the text names (a PDB or pod), when it does. */
  named: string | undefined;
}

const REASONS = new Set(['Unconsolidatable', 'DisruptionBlocked']);

function group(events: readonly { event: KubeEvent; object: string }[]): KarpenterMessage[] {
  const byText = new Map<string, KarpenterMessage>();
  for (const { event, object } of events) {
    const reason = event.reason as KarpenterMessage['reason'];
    const message = (event.message ?? '').trim();
    const key = `${reason}\n${message}`;
    let m = byText.get(key);
    if (!m) {
      // Before v0.32 the PDB and annotation texts came as Unconsolidatable too (`pdb ns/name prevents pod evictions`).
      const own = reason === 'Unconsolidatable' ? unconsolidatableCauseOf(message) : undefined;
      const parsed = own ? { cause: own, named: undefined } : blockedCauseOf(message);
      m = { reason, message, count: 0, objects: [], lastSeen: 0, cause: parsed.cause, named: parsed.named };
      byText.set(key, m);
    }
    m.count += Math.max(1, event.count ?? 1);
    m.lastSeen = Math.max(m.lastSeen, eventLastSeenMs(event));
    if (!m.objects.includes(object)) m.objects.push(object);
  }
  return [...byText.values()].sort((a, b) => b.lastSeen - a.lastSeen || b.count - a.count || a.message.localeCompare(b.message));
}

/** The Unconsolidatable and DisruptionBlocked texts on the idle nodes and their NodeClaims, newest first. */
export function nodeMessages(index: SnapshotIndex, nodes: readonly IdleNode[]): KarpenterMessage[] {
  const events: { event: KubeEvent; object: string }[] = [];
  for (const n of nodes) {
    if (n.claimName)
      for (const event of clusterScopedEvents(index, 'NodeClaim', n.claimName))
        if (REASONS.has(event.reason ?? '')) events.push({ event, object: `NodeClaim ${n.claimName}` });
    if (n.nodeName)
      for (const event of clusterScopedEvents(index, 'Node', n.nodeName))
        if (REASONS.has(event.reason ?? '')) events.push({ event, object: `Node ${n.nodeName}` });
  }
  return group(events);
}

/** The NodePool's blocking-budget events for consolidation (Underutilized, Empty, or no reason before v1.1). */
export function poolBudgetMessages(index: SnapshotIndex, pool: string): KarpenterMessage[] {
  const events = clusterScopedEvents(index, 'NodePool', pool)
    .filter((e) => e.reason === 'DisruptionBlocked')
    .filter((e) => {
      const parsed = blockedCauseOf(e.message ?? '');
      return parsed.cause === 'BUDGET_BLOCKS' && parsed.reason?.toLowerCase() !== 'drifted';
    })
    .map((event) => ({ event, object: `NodePool ${pool}` }));
  return group(events);
}

/** `Unconsolidatable ×47 on Node ip-…: "Can't replace with a cheaper node"` (the text as Karpenter wrote it). */
export function describeMessage(m: KarpenterMessage): string {
  const on =
    m.objects.length === 1
      ? (m.objects[0] ?? '')
      : `${m.objects.length} objects (${m.objects.slice(0, 3).join(', ')}${m.objects.length > 3 ? ', ...' : ''})`;
  return `${m.reason} ×${m.count} on ${on}: "${m.message}"`;
}
