/**
 * DISRUPTION_BLOCKED's Detector and the finding it assembles for each NodePool: the title (how
 * many NodeClaims, drifted or expired, for how long), the evidence in reading order (drift reasons,
 * expiry, the oldest, Karpenter's events, the cause's own lines, one line per NodeClaim) and the
 * steps every cause shares. Which NodeClaims (blocked-claims.ts) and why (explain.ts) are decided
 * apart, so this file reads as the finding's outline.
 */
import { manualRemediation, newFinding, type Finding } from '../../domain/finding.ts';
import type { NodePool } from '../../domain/kube.ts';
import { toIsoSeconds } from '../../domain/kube-helpers.ts';
import { formatDuration } from '../../domain/settings.ts';
import type { DetectContext, Detector } from '../detector.ts';
import { expireAfterOf } from '../karpenter/nodeclaims.ts';
import { blockedClaimsByPool, driftReasonCounts, type BlockedClaim } from './blocked-claims.ts';
import { claimMessages, describeMessage, poolBudgetMessages } from './blocked-events.ts';
import { explain } from './explain.ts';
import { claimsStep, eventsStep, terminationGracePeriodStep } from './fixes.ts';

type Code = 'DISRUPTION_BLOCKED';

/**
 * DISRUPTION_BLOCKED: NodeClaims Karpenter wants to replace (`Drifted=True`, or older than the
 * NodePool's `expireAfter`) still running, not being deleted, at least `settings.disruptionBlockedMs`
 * after drifting or expiring. One finding per NodePool. The cause, first that applies: a budget
 * allowing no Drifted disruption now (or the NodePool's blocking-budget event); a PDB allowing no
 * disruption, a pod under several PDBs, a do-not-disrupt pod (from the pods on those nodes, or,
 * when the pods or PDBs were not captured, from what the DisruptionBlocked events name); the Node
 * or NodeClaim annotated do-not-disrupt; else unknown. Nothing is automated.
 */
export const disruptionBlocked: Detector<Code> = {
  code: 'DISRUPTION_BLOCKED',
  // NodePools only refine (expiry, budgets): a capture of NodeClaims alone still shows drift, and
  // requiring them would make every such capture incomplete (and stop TERMINATE_INSTANCE).
  requires: ['nodeclaims'],
  refinedBy: ['nodepools', 'nodes', 'pods', 'pdbs', 'events'],
  detect(ctx) {
    const byPool = blockedClaimsByPool(ctx.index, ctx.now, ctx.settings.disruptionBlockedMs);
    return [...byPool].sort(([a], [b]) => a.localeCompare(b)).map(([pool, claims]) => findingFor(ctx, pool, claims));
  },
};

const MAX_LISTED = 10;

function iso(ms: number): string {
  return toIsoSeconds(new Date(ms));
}

function findingFor(ctx: DetectContext, pool: string, claims: BlockedClaim[]): Finding<Code> {
  const np = ctx.index.nodePoolsByName.get(pool);
  const evidence = claimEvidence(ctx, pool, np, claims);
  const poolEvents = ctx.snapshot.captured.has('events') ? poolBudgetMessages(ctx.index, pool) : [];
  const claimEvents = ctx.snapshot.captured.has('events') ? claimMessages(ctx.index, claims) : [];
  evidence.push(...poolEvents.map(describeMessage));
  evidence.push(...claimEvents.slice(0, MAX_LISTED).map(describeMessage));
  const explained = explain(ctx, pool, np, claims, poolEvents, claimEvents, evidence);
  evidence.push(...perClaimEvidence(claims));
  const steps = [claimsStep(pool), ...explained.steps];
  if (ctx.snapshot.captured.has('events') && poolEvents.length + claimEvents.length > 0) steps.push(eventsStep(pool));
  if (explained.cause !== 'BUDGET_BLOCKS' && !hasTerminationGracePeriod(np)) steps.push(terminationGracePeriodStep(pool));
  const drifted = claims.filter((c) => c.drifted).length;
  const expired = claims.filter((c) => c.expiredAt !== undefined).length;
  const what = drifted > 0 && expired > 0 ? 'drifted or expired' : drifted > 0 ? 'drifted' : 'expired';
  const oldest = claims[0];
  return newFinding({
    code: 'DISRUPTION_BLOCKED',
    severity: 'warning',
    title:
      `${claims.length} NodeClaim${claims.length === 1 ? '' : 's'} of NodePool ${pool} ${what} but not replaced` +
      (oldest ? ` (the oldest for ${formatDuration(ctx.now.getTime() - oldest.since)})` : ''),
    resource: { kind: 'NodePool', name: pool },
    since: oldest ? iso(oldest.since) : null,
    cause: { code: explained.cause, detail: explained.detail },
    evidence,
    remediation: manualRemediation(steps),
    counts: { objects: claims.length, nodePool: pool },
  });
}

function hasTerminationGracePeriod(np: NodePool | undefined): boolean {
  return np?.spec?.template?.spec?.terminationGracePeriod !== undefined;
}

function claimEvidence(ctx: DetectContext, pool: string, np: NodePool | undefined, claims: BlockedClaim[]): string[] {
  const evidence: string[] = [];
  const reasons = driftReasonCounts(claims);
  if (reasons.length > 0) evidence.push(`drift reasons: ${reasons.map(([r, n]) => `${r} ×${n}`).join(', ')}`);
  const expired = claims.filter((c) => c.expiredAt !== undefined);
  if (expired.length > 0)
    evidence.push(`${expired.length} expired: older than the NodePool's expireAfter ${expireAfterOf(np) ?? '?'}`);
  const oldest = claims[0];
  if (oldest) {
    const why = oldest.drifted && oldest.drifted.at === oldest.since ? `drifted (${oldest.drifted.reason})` : 'expired';
    evidence.push(
      `oldest: NodeClaim ${oldest.name} ${why} at ${iso(oldest.since)}, ${formatDuration(ctx.now.getTime() - oldest.since)} ago`,
    );
  }
  if (!ctx.snapshot.captured.has('nodepools'))
    evidence.push('NodePools were not captured: expiry and disruption budgets were not checked');
  else if (!np) evidence.push(`NodePool ${pool} is not in the capture: its budgets and expireAfter are unknown`);
  return evidence;
}

/** One line per blocked NodeClaim (the first ten): what Karpenter wants to replace it for. */
function perClaimEvidence(claims: BlockedClaim[]): string[] {
  const evidence: string[] = [];
  for (const c of claims.slice(0, MAX_LISTED)) {
    const parts = [
      c.drifted ? `Drifted=True ${c.drifted.reason} since ${iso(c.drifted.at)}` : '',
      c.expiredAt !== undefined ? `expired at ${iso(c.expiredAt)}` : '',
    ].filter(Boolean);
    evidence.push(`NodeClaim ${c.name}${c.nodeName ? ` (Node ${c.nodeName})` : ''}: ${parts.join(', ')}`);
  }
  if (claims.length > MAX_LISTED) evidence.push(`... and ${claims.length - MAX_LISTED} more NodeClaims`);
  return evidence;
}
