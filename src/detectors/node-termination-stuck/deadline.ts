/**
 * When Karpenter stops waiting on a blocked drain: the NodeClaim's
 * `karpenter.sh/nodeclaim-termination-timestamp`, else its deletion timestamp plus the
 * terminationGracePeriod of the NodeClaim or its NodePool. Past it Karpenter deletes the pods left,
 * bypassing PDBs and do-not-disrupt, so the evidence says when that is, or that nothing bounds the
 * drain and the steps must end the block by hand.
 */
import { isoSeconds, parseGoDuration, toIsoSeconds } from '../../domain/kube-helpers.ts';
import { formatDuration } from '../../domain/settings.ts';
import type { DetectContext } from '../detector.ts';
import type { Terminating } from './terminating.ts';

const TERMINATION_TIMESTAMP_ANNOTATION = 'karpenter.sh/nodeclaim-termination-timestamp';

/** The terminationGracePeriod bounding this drain, and the line saying when (or that nothing does). */
export function deadlineOf(ctx: DetectContext, t: Terminating): { at: string | undefined; line: string } {
  const pool = t.pool ? ctx.index.nodePoolsByName.get(t.pool) : undefined;
  const fromClaim = t.claim?.spec?.terminationGracePeriod;
  const grace = fromClaim ?? pool?.spec?.template?.spec?.terminationGracePeriod;
  const where = fromClaim ? `NodeClaim ${t.claim?.metadata?.name ?? '?'}` : `NodePool ${t.pool ?? '?'}`;
  const annotated = t.claim?.metadata?.annotations?.[TERMINATION_TIMESTAMP_ANNOTATION];
  const graceMs = parseGoDuration(grace);
  const deleted = t.claim?.metadata?.deletionTimestamp;
  const computed =
    graceMs !== undefined && Number.isFinite(graceMs) && deleted && !Number.isNaN(Date.parse(deleted))
      ? toIsoSeconds(new Date(Date.parse(deleted) + graceMs))
      : undefined;
  const at = isoSeconds(annotated) ?? computed ?? undefined;
  if (at) {
    const left = Date.parse(at) - ctx.now.getTime();
    const when = left > 0 ? `in ${formatDuration(left)}` : `${formatDuration(-left)} ago`;
    const source = annotated ? `${TERMINATION_TIMESTAMP_ANNOTATION} on the NodeClaim` : `its deletionTimestamp + ${grace}`;
    return {
      at,
      line: `terminationGracePeriod ${grace ?? '(set)'} (${grace ? where : 'NodeClaim annotation'}): Karpenter deletes the pods left at ${at} (${when}; ${source}), bypassing PDBs and do-not-disrupt`,
    };
  }
  if (grace)
    return {
      at: undefined,
      line: `terminationGracePeriod ${grace} (${where}); the deadline is set once the NodeClaim is deleted`,
    };
  if (!ctx.snapshot.captured.has('nodepools') && !t.claim)
    return { at: undefined, line: 'NodePool not captured: its terminationGracePeriod unknown' };
  return {
    at: undefined,
    line: `no terminationGracePeriod on ${t.pool ? `NodePool ${t.pool}` : 'the NodePool'} or the NodeClaim: nothing bounds the drain, Karpenter waits for as long as it is blocked`,
  };
}
