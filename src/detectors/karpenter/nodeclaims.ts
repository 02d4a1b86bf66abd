/**
 * What DISRUPTION_BLOCKED and CONSOLIDATION_BLOCKED both read off a NodeClaim: its Node, and when it
 * expired (Karpenter then wants it replaced, DISRUPTION_BLOCKED's, never consolidation's).
 */
import type { Node, NodeClaim, NodePool } from '../../domain/kube.ts';
import { instanceIdFromProviderID, parseGoDuration } from '../../domain/kube-helpers.ts';
import type { SnapshotIndex } from '../../domain/snapshot-index.ts';

/** An RFC 3339 time in ms, undefined when absent or unreadable. */
export function timeOf(iso: string | undefined): number | undefined {
  if (iso === undefined) return undefined;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? undefined : t;
}

/** The Node of a NodeClaim: by `status.nodeName`, else by the instance in its providerID. */
export function nodeOfClaim(index: SnapshotIndex, claim: NodeClaim): Node | undefined {
  const byName = claim.status?.nodeName ? index.nodesByName.get(claim.status.nodeName) : undefined;
  if (byName) return byName;
  const id = instanceIdFromProviderID(claim.status?.providerID);
  return id ? index.nodesByInstanceId.get(id) : undefined;
}

/** `spec.template.spec.expireAfter` (v1), or v1beta1's `spec.disruption.expireAfter`, as written. */
export function expireAfterOf(pool: NodePool | undefined): string | undefined {
  return pool?.spec?.template?.spec?.expireAfter ?? pool?.spec?.disruption?.expireAfter;
}

/** When the claim expired (its creation + the NodePool's expireAfter), if it has by `nowMs`. */
export function expiryOf(claim: NodeClaim, pool: NodePool | undefined, nowMs: number): number | undefined {
  const ms = parseGoDuration(expireAfterOf(pool));
  const created = timeOf(claim.metadata?.creationTimestamp);
  if (ms === undefined || !Number.isFinite(ms) || created === undefined) return undefined;
  return created + ms <= nowMs ? created + ms : undefined;
}
