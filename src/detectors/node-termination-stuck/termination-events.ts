import type { KubeEvent } from '../../domain/kube.ts';

/**
 * Karpenter's events about a node it is draining, as v1.0–v1.14 word them (core
 * `pkg/controllers/node/termination/terminator/events/events.go`, `.../terminator/eviction.go`,
 * `pkg/controllers/disruption/events/events.go`). They are quoted as evidence; the blocker itself
 * is resolved from the objects, and from these only when the objects were not captured.
 */

/** What an event says blocks the drain, and the objects it names (v1.0–v1.4 named them; v1.5+ mostly do not). */
export type EventBlocker =
  | { kind: 'pdb'; pdb?: string; pod?: string }
  | { kind: 'multiple-pdbs'; pod?: string }
  | { kind: 'do-not-disrupt'; pod?: string }
  | { kind: 'volumes'; attachments: string }
  | { kind: 'waiting'; pods: number };

const DRAIN = /^Failed to drain node, (.*)$/s;
/** v1.0–v1.4 `evicting pod ns/name violates a PDB`; v1.5+ `evicting pod violates a PDB`, the pod as a structured value if at all. */
const VIOLATES = /^evicting pod (?:(\S+\/\S+) )?violates a PDB\b(.*)$/s;
const MULTIPLE = /^eviction does not support multiple PDBs\b(.*)$/s;
const POD_VALUE = /\bPod[=:]\s*"?([^\s",)]+\/[^\s",)]+)/;
const WAITING = /^(\d+) pods? (?:are|is) waiting to be evicted/;
/** DisruptionBlocked: `Cannot disrupt Node: ` before v1.1, capitalised since; the names in quotes before v1.5. */
const BLOCKED_PREFIX = /^(?:Cannot disrupt (?:Node|NodeClaim): )?/;
const PDB_BLOCKED = /^pdb (?:"([^"]+)" )?prevents pod evictions/i;
const DND_BLOCKED = /^pod (?:"([^"]+)" )?has "karpenter\.sh\/do-not-disrupt" annotation/i;
const MULTIPLE_BLOCKED = /^eviction does not support multiple PDBs/i;
const VOLUMES = /^Awaiting deletion of bound volumeattachments \((.*)\)$/s;

/** What one of Karpenter's drain events says blocks it, or undefined for any other event. */
export function eventBlocker(event: KubeEvent): EventBlocker | undefined {
  const message = (event.message ?? '').trim();
  if (event.reason === 'FailedDraining') {
    const why = DRAIN.exec(message)?.[1]?.trim() ?? '';
    const violates = VIOLATES.exec(why);
    if (violates) return { kind: 'pdb', ...opt('pod', violates[1] ?? POD_VALUE.exec(violates[2] ?? '')?.[1]) };
    const multiple = MULTIPLE.exec(why);
    if (multiple) return { kind: 'multiple-pdbs', ...opt('pod', POD_VALUE.exec(multiple[1] ?? '')?.[1]) };
    const waiting = WAITING.exec(why);
    if (waiting) return { kind: 'waiting', pods: Number(waiting[1]) };
    return undefined;
  }
  if (event.reason === 'DisruptionBlocked') {
    const why = message.replace(BLOCKED_PREFIX, '');
    const pdb = PDB_BLOCKED.exec(why);
    if (pdb) return { kind: 'pdb', ...opt('pdb', pdb[1]) };
    const dnd = DND_BLOCKED.exec(why);
    if (dnd) return { kind: 'do-not-disrupt', ...opt('pod', dnd[1]) };
    if (MULTIPLE_BLOCKED.test(why)) return { kind: 'multiple-pdbs' };
    return undefined;
  }
  if (event.reason === 'AwaitingVolumeDetachment') {
    const volumes = VOLUMES.exec(message);
    return volumes ? { kind: 'volumes', attachments: volumes[1] ?? '' } : undefined;
  }
  return undefined;
}

function opt<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value ? ({ [key]: value } as Record<K, string>) : {};
}

/** The reasons quoted as evidence, in the order a drain goes through them. */
export const DRAIN_EVENT_REASONS = [
  'DisruptionTerminating',
  'DisruptionBlocked',
  'FailedDraining',
  'AwaitingVolumeDetachment',
  'TerminationGracePeriodExpiring',
] as const;

/** Reasons that mark when a drain started, for a tainted Node without a deletion timestamp. */
export const DRAIN_START_REASONS: readonly string[] = ['FailedDraining', 'DisruptionTerminating'];

/** `FailedDraining ×533 (last 2026-01-01T00:59:00Z): Failed to drain node, 3 pods are waiting to be evicted`. */
export function quoteEvent(event: KubeEvent): string {
  const count = (event.count ?? 1) > 1 ? ` ×${event.count}` : '';
  const last = event.lastTime ?? event.firstTime;
  return `${event.reason ?? '?'}${count}${last ? ` (last ${last})` : ''}: ${event.message ?? ''}`;
}
