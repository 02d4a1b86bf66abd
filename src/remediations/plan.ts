import type { ActionKind } from '../domain/codes.ts';
import type { Finding } from '../domain/finding.ts';
import { oneLine } from '../domain/shape.ts';
import { skipped, type ActionPlanner, type PlanContext } from './plan-context.ts';
import { rolloutRestartPlanner } from './rollout-restart.ts';
import { terminateInstancePlanner } from './terminate-instance.ts';

const PLANNERS: Record<ActionKind, ActionPlanner> = {
  ROLLOUT_RESTART: rolloutRestartPlanner,
  TERMINATE_INSTANCE: terminateInstancePlanner,
};

/**
 * Pure: decides for every proposed automated action whether it is `planned` or `skipped` by a
 * guardrail. Manual remediations pass through. Findings are planned in the order given; analyze
 * passes the report's order, so the per-run caps pick the same instances on every run.
 */
export function planRemediations(findings: readonly Finding[], ctx: PlanContext): Finding[] {
  const state = new Map<string, number>();
  return findings.map((f) => {
    const remediation = f.remediation;
    if (!remediation || remediation.action === 'MANUAL') return f;
    try {
      return { ...f, remediation: PLANNERS[remediation.action].plan(f, ctx, state) };
    } catch (error) {
      // A planner that cannot decide has not said yes: nothing is done.
      const why = error instanceof Error ? error.message : String(error);
      return { ...f, remediation: skipped(remediation, `planning failed: ${oneLine(why, 200)}`) };
    }
  });
}
