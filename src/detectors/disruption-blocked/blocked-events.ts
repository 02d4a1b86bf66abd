/**
 * Karpenter's `DisruptionBlocked` events, in the wording of every v1 release (core
 * `pkg/controllers/disruption/events/events.go`, `pkg/controllers/state/statenode.go`):
 * - NodePool: `No allowed disruptions due to blocking budget`,
 *   `No allowed disruptions for disruption reason Drifted due to blocking budget`.
 * - Node / NodeClaim: v1.0 prefixes `Cannot disrupt Node: ` / `Cannot disrupt NodeClaim: `;
 *   v1.0–v1.4 name the object (`pdb "ns/name" prevents pod evictions`,
 *   `pod "ns/name" has "karpenter.sh/do-not-disrupt" annotation`), capitalised from v1.2;
 *   v1.5+ do not (`Pdb prevents pod evictions`, `Pod has "karpenter.sh/do-not-disrupt" annotation`,
 *   `Eviction does not support multiple PDBs`); the node-level annotation in all:
 *   `Disruption is blocked through the "karpenter.sh/do-not-disrupt" annotation`;
 *   an uninitialized node: v1.0 `state node isn't initialized`, later `node isn't initialized`
 *   (`Node isn't initialized` from v1.2).
 */
import type { CauseCodeOf } from '../../domain/codes.ts';
import type { KubeEvent } from '../../domain/kube.ts';
import type { SnapshotIndex } from '../../domain/snapshot-index.ts';
import type { BlockedClaim } from './blocked-claims.ts';
import { blockedCauseOf, clusterScopedEvents } from '../karpenter/disruption-messages.ts';

const DISRUPTION_BLOCKED = 'DisruptionBlocked';

export type EventCause = Exclude<CauseCodeOf<'DISRUPTION_BLOCKED'>, 'UNKNOWN'>;

export interface BlockedMessage {
  /** As Karpenter wrote it, once per wording. */
  message: string;
  /** Sum of the events' counts. */
  count: number;
  /** The Nodes and NodeClaims (or the NodePool) it was recorded on. */
  objects: string[];
  cause: EventCause | undefined;
  /** The object the message names (`ns/name` of a PDB or pod; v1.0–v1.4 only). */
  named: string | undefined;
}

/** What a Node/NodeClaim (or NodePool) `DisruptionBlocked` message says blocks disruption (karpenter/disruption-messages.ts). */
export function causeOfMessage(message: string): { cause: EventCause | undefined; named: string | undefined; reason?: string } {
  return blockedCauseOf(message);
}

function group(events: readonly { event: KubeEvent; object: string }[]): BlockedMessage[] {
  const byMessage = new Map<string, BlockedMessage>();
  for (const { event, object } of events) {
    const message = (event.message ?? '').trim();
    let m = byMessage.get(message);
    if (!m) {
      const { cause, named } = causeOfMessage(message);
      byMessage.set(message, (m = { message, count: 0, objects: [], cause, named }));
    }
    m.count += Math.max(1, event.count ?? 1);
    if (!m.objects.includes(object)) m.objects.push(object);
  }
  return [...byMessage.values()].sort((a, b) => b.count - a.count || a.message.localeCompare(b.message));
}

/** The NodePool's `DisruptionBlocked` events that blame a budget (for Drifted, or every reason). */
export function poolBudgetMessages(index: SnapshotIndex, pool: string): BlockedMessage[] {
  const events = clusterScopedEvents(index, 'NodePool', pool)
    .filter((e) => e.reason === DISRUPTION_BLOCKED)
    .filter((e) => {
      const parsed = causeOfMessage(e.message ?? '');
      return parsed.cause === 'BUDGET_BLOCKS' && (parsed.reason === undefined || parsed.reason.toLowerCase() === 'drifted');
    })
    .map((event) => ({ event, object: `NodePool ${pool}` }));
  return group(events);
}

/** The `DisruptionBlocked` events on the blocked NodeClaims and their Nodes, one entry per wording. */
export function claimMessages(index: SnapshotIndex, claims: readonly BlockedClaim[]): BlockedMessage[] {
  const events: { event: KubeEvent; object: string }[] = [];
  for (const c of claims) {
    for (const e of clusterScopedEvents(index, 'NodeClaim', c.name))
      if (e.reason === DISRUPTION_BLOCKED) events.push({ event: e, object: `NodeClaim ${c.name}` });
    if (c.nodeName)
      for (const e of clusterScopedEvents(index, 'Node', c.nodeName))
        if (e.reason === DISRUPTION_BLOCKED) events.push({ event: e, object: `Node ${c.nodeName}` });
  }
  return group(events);
}

/** `DisruptionBlocked ×37 on 4 Nodes/NodeClaims: "Pdb prevents pod evictions"`. */
export function describeMessage(m: BlockedMessage): string {
  const on =
    m.objects.length === 1
      ? (m.objects[0] ?? '')
      : `${m.objects.length} objects (${m.objects.slice(0, 3).join(', ')}${m.objects.length > 3 ? ', ...' : ''})`;
  return `DisruptionBlocked ×${m.count} on ${on}: "${m.message}"`;
}
