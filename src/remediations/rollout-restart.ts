import type { ActionPlanner } from './plan-context.ts';
import { skipped } from './plan-context.ts';
import { RESTART_HISTORY, RESTARTED_AT, restartVerdict } from './restart-history.ts';

/**
 * ROLLOUT_RESTART of the controller Deployment (`finding.resource`). Cooldown, hourly cap and the
 * "restarts did not help" rule are read from the Deployment's own annotations (restart-history.ts),
 * so a dry run shows what apply would do and the limits hold across scans and tools. The executor
 * checks the same rules again on a fresh read before it acts.
 */
export const rolloutRestartPlanner: ActionPlanner = {
  action: 'ROLLOUT_RESTART',
  plan(finding, ctx) {
    const r = finding.remediation!;
    const mode = ctx.actions.modes.ROLLOUT_RESTART;
    if (mode === 'off') return skipped(r, 'ROLLOUT_RESTART is off');
    const { namespace, name } = finding.resource;
    if (finding.resource.kind !== 'Deployment' || !namespace || !name) {
      return skipped(r, 'controller Deployment not identified; restart it by hand');
    }
    const deployment = ctx.snapshot.deployments.find((d) => d.metadata?.namespace === namespace && d.metadata?.name === name);
    // kubectl refuses too: a paused Deployment does not roll its pods.
    if (deployment?.spec?.paused === true) {
      return skipped(r, `Deployment ${namespace}/${name} is paused; run kubectl rollout resume, then restart it`);
    }
    const verdict = restartVerdict({
      restartedAt: deployment?.spec?.template?.metadata?.annotations?.[RESTARTED_AT],
      history: deployment?.metadata?.annotations?.[RESTART_HISTORY],
      pendingSince: finding.since,
      now: ctx.now,
      cooldownMs: ctx.actions.restartCooldownMs,
      maxPerHour: ctx.actions.maxRestartsPerHour,
    });
    return verdict.restart ? { ...r, status: 'planned', reason: '' } : skipped(r, verdict.reason);
  },
};
