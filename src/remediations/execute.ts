import { ACTION_KINDS, type ActionKind } from '../domain/codes.ts';
import type { Finding, Remediation } from '../domain/finding.ts';
import { completeForActions, totalCost, type Report } from '../domain/report.ts';
import type { ActionSettings } from '../domain/settings.ts';
import type { ActionExecutor, ExecuteContext } from './execute-context.ts';
import { errorSummary, failed } from './execute-context.ts';
import { rolloutRestartExecutor } from './execute-rollout-restart.ts';
import { terminateInstanceExecutor } from './execute-terminate-instance.ts';

export type { ExecuteContext } from './execute-context.ts';

const EXECUTORS: Record<ActionKind, ActionExecutor> = {
  ROLLOUT_RESTART: rolloutRestartExecutor,
  TERMINATE_INSTANCE: terminateInstanceExecutor,
};

/**
 * The one place dry-run is decided: a `planned` remediation whose action mode is `apply` is carried
 * out (after its guardrails are checked again on fresh data); in `dry-run` it stays `planned`;
 * `off` was already `skipped` by the planner. Returns the report with each outcome in its
 * finding's remediation; order and everything else unchanged.
 */
export async function executeRemediations(report: Report, ctx: ExecuteContext): Promise<Report> {
  const outcomes = new Map<number, Remediation>();
  for (const action of ACTION_KINDS) {
    const positions = report.findings.flatMap((f, i) =>
      willAttempt(f, ctx.actions) && f.remediation?.action === action ? [i] : [],
    );
    if (positions.length === 0) continue;
    const findings = positions.map((i) => report.findings[i]!);
    const results = await EXECUTORS[action]
      .execute(findings, { ...ctx, complete: completeForActions(report) })
      .catch((error: unknown) => findings.map((f) => failed(f.remediation!, errorSummary(error))));
    positions.forEach((position, k) => {
      const result = results[k];
      if (result) outcomes.set(position, result);
    });
  }
  if (outcomes.size === 0) return report;
  const findings = report.findings.map((f, i) => {
    const remediation = outcomes.get(i);
    return remediation ? { ...f, remediation } : f;
  });
  // Money a remediation just saved is no longer at stake (docs/cost.md).
  const after: Report = { ...report, findings };
  const cost = totalCost(findings);
  if (cost) after.cost = cost;
  else delete after.cost;
  return after;
}

/** The findings whose action executeRemediations will attempt (its guardrails may still skip it): planned, in `apply` mode. */
export function attemptsOf(report: Report, actions: ActionSettings): Finding[] {
  return report.findings.filter((f) => willAttempt(f, actions));
}

function willAttempt(f: Finding, actions: ActionSettings): boolean {
  const r = f.remediation;
  return !!r && r.action !== 'MANUAL' && r.status === 'planned' && actions.modes[r.action] === 'apply';
}
