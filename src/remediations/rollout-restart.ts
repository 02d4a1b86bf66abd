import { formatDuration } from '../domain/settings.ts';
import { ageMs } from '../domain/kube-helpers.ts';
import type { ActionPlanner } from './plan-context.ts';
import { skipped } from './plan-context.ts';

export const RESTARTED_AT = 'kubectl.kubernetes.io/restartedAt';

/**
 * ROLLOUT_RESTART of the controller Deployment (`finding.resource`). The cooldown is read from
 * the Deployment's own restartedAt annotation, so it holds across scans and tools: if the last
 * restart was recent and the pods are still stuck, restarting again will not help.
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
    const restartedAt = deployment?.spec?.template?.metadata?.annotations?.[RESTARTED_AT];
    const since = ageMs(restartedAt, ctx.now);
    if (since !== undefined && since >= 0 && since < ctx.actions.restartCooldownMs) {
      return skipped(
        r,
        `restarted ${formatDuration(since)} ago (${restartedAt}), within the ${formatDuration(ctx.actions.restartCooldownMs)} cooldown; the restart did not help, a human must look`,
      );
    }
    return { ...r, status: 'planned', reason: '' };
  },
};
