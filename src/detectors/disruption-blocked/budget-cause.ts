/**
 * Whether the NodePool's disruption budgets hold its drifted NodeClaims back: a budget allowing 0
 * Drifted disruptions now (or one that cannot be evaluated, which Karpenter treats as allowing none),
 * the allowance used up by nodes already disrupting, or, when the objects show no block at this
 * instant, the NodePool's own blocking-budget event. Budgets gate drift only: expiry is not
 * budgeted in v1, so a group with no drifted NodeClaim is never blamed on them.
 */
import type { NodePool } from '../../domain/kube.ts';
import { toIsoSeconds } from '../../domain/kube-helpers.ts';
import { formatDuration } from '../../domain/settings.ts';
import type { DetectContext } from '../detector.ts';
import { allowedDisruptions, nextOpening, type AllowedDisruptions } from '../karpenter/disruption-budgets.ts';
import { budgetCounts, type BlockedClaim } from './blocked-claims.ts';
import type { BlockedMessage } from './blocked-events.ts';
import type { Explained } from './explanation.ts';
import { BUDGET_SEMANTICS, budgetPatchStep, budgetsViewStep, disruptingStep } from './fixes.ts';

export function budgetCause(
  ctx: DetectContext,
  pool: string,
  np: NodePool | undefined,
  claims: BlockedClaim[],
  poolEvents: BlockedMessage[],
  evidence: string[],
): Explained | undefined {
  // Budgets gate Drifted; expiry is not budgeted in v1.
  if (!claims.some((c) => c.drifted)) return undefined;
  if (np) {
    const { nodes: counted, disrupting } = budgetCounts(ctx.index, pool);
    const nodeCount = Math.max(counted, claims.length);
    const allowed = allowedDisruptions(np, 'Drifted', nodeCount, ctx.now);
    evidence.push(budgetEvidence(allowed, nodeCount, disrupting));
    if (allowed.blocking) return blockingBudget(ctx, pool, np, nodeCount, allowed);
    if (Number.isFinite(allowed.allowed) && disrupting.length >= allowed.allowed && allowed.limiting) {
      return {
        cause: 'BUDGET_BLOCKS',
        detail:
          `NodePool ${pool}'s ${allowed.limiting.text} lets ${allowed.allowed} of its ${nodeCount} nodes be disrupting at once, ` +
          `and ${disrupting.length} already are (${disrupting.slice(0, 5).join(', ')}${disrupting.length > 5 ? ', ...' : ''}: being deleted, ` +
          `tainted karpenter.sh/disrupted or NotReady), so no drifted node may start. Drift continues once they finish. ${BUDGET_SEMANTICS}`,
        steps: [disruptingStep(disrupting), budgetsViewStep(pool)],
      };
    }
  }
  const event = poolEvents[0];
  if (!event) return undefined;
  return {
    cause: 'BUDGET_BLOCKS',
    detail:
      `Karpenter reports on NodePool ${pool}: "${event.message}" (×${event.count}). ` +
      (np
        ? 'Its budgets allow Drifted at this instant, so the blocking window has passed or nodes being disrupted used up the budget. '
        : '') +
      BUDGET_SEMANTICS,
    steps: [budgetsViewStep(pool)],
  };
}

function budgetEvidence(allowed: AllowedDisruptions, nodeCount: number, disrupting: string[]): string {
  const cap = Number.isFinite(allowed.allowed) ? `${allowed.allowed}` : 'any number';
  return (
    `budgets now let ${cap} of the NodePool's ${nodeCount} nodes be disrupting at once for Drifted` +
    (allowed.limiting ? ` (${allowed.limiting.text}${allowed.defaulted ? ", Karpenter's default" : ''})` : '') +
    (disrupting.length > 0 ? `; ${disrupting.length} already disrupting` : '')
  );
}

function blockingBudget(
  ctx: DetectContext,
  pool: string,
  np: NodePool,
  nodeCount: number,
  allowed: AllowedDisruptions,
): Explained {
  const blocking = allowed.blocking;
  const invalid = allowed.invalid[0];
  if (invalid) {
    return {
      cause: 'BUDGET_BLOCKS',
      detail:
        `NodePool ${pool}'s budgets[${invalid.index}] cannot be evaluated (${invalid.error}): Karpenter then allows no ` +
        `disruption of the NodePool for any reason until it is fixed. ${BUDGET_SEMANTICS}`,
      steps: [budgetsViewStep(pool)],
    };
  }
  const opens = nextOpening(np, 'Drifted', nodeCount, ctx.now);
  const when = opens
    ? `its window next opens at ${toIsoSeconds(opens)} (in ${formatDuration(opens.getTime() - ctx.now.getTime())})`
    : blocking?.budget.schedule === undefined
      ? 'it has no schedule, so it never opens: drift waits until the budget is changed'
      : 'it does not open within a year';
  return {
    cause: 'BUDGET_BLOCKS',
    detail: `NodePool ${pool}'s ${blocking?.text ?? 'budget'} allows 0 nodes to be disrupted for Drifted now; ${when}. ${BUDGET_SEMANTICS}`,
    steps: [budgetsViewStep(pool), budgetPatchStep(pool, np, nodeCount, opens ? toIsoSeconds(opens) : undefined)],
  };
}
