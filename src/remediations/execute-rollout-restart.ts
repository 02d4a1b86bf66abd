import type { Finding, Remediation } from '../domain/finding.ts';
import { KubeConflictError, SourceError } from '../ports/errors.ts';
import { isRecord, optNumber, optString, stringRecord, type JsonRecord } from '../domain/shape.ts';
import type { ActionExecutor, ExecutorContext } from './execute-context.ts';
import { applied, errorSummary, failed } from './execute-context.ts';
import { skipped } from './plan-context.ts';
import { RESTART_HISTORY, RESTARTED_AT, restartVerdict } from './restart-history.ts';

const CONFLICT = 'the Deployment changed during the scan (another scan or a human restarted it); not restarted twice';

/**
 * ROLLOUT_RESTART, one Deployment at a time (a second finding on the same Deployment then sees the
 * first restart on its fresh read and stops at the cooldown). Re-reads the Deployment, re-checks
 * cooldown, hourly cap and "did not help" on it, then writes restartedAt and the restart history
 * in ONE patch guarded by the fresh resourceVersion: if anyone wrote in between, nothing happens.
 */
export const rolloutRestartExecutor: ActionExecutor = {
  action: 'ROLLOUT_RESTART',
  async execute(findings, ctx) {
    const outcomes: Remediation[] = [];
    for (const finding of findings) outcomes.push(await restart(finding, ctx));
    return outcomes;
  },
};

async function restart(finding: Finding, ctx: ExecutorContext): Promise<Remediation> {
  const r = finding.remediation!;
  const { namespace, name } = finding.resource;
  if (finding.resource.kind !== 'Deployment' || !namespace || !name) {
    return skipped(r, 'controller Deployment not identified; restart it by hand');
  }
  const ref = `Deployment ${namespace}/${name}`;
  let fresh: JsonRecord | undefined;
  try {
    fresh = await ctx.kube.get('deployments', name, namespace);
  } catch (error) {
    return failed(r, `re-reading ${ref} before the restart failed: ${errorSummary(error)}`);
  }
  if (!fresh) return skipped(r, `${ref} no longer exists`);
  const deployment = readDeployment(fresh);
  if (!deployment.resourceVersion) return failed(r, `${ref} came back without a resourceVersion; not restarted blind`);
  // kubectl refuses too: a paused Deployment does not roll its pods.
  if (deployment.paused) return skipped(r, `${ref} is paused; run kubectl rollout resume, then restart it`);
  if (deployment.replicas > 0 && deployment.readyReplicas >= deployment.replicas) {
    return skipped(r, `all ${deployment.replicas} replica(s) of ${ref} are Ready now; no restart needed`);
  }
  const verdict = restartVerdict({
    restartedAt: deployment.restartedAt,
    history: deployment.history,
    pendingSince: finding.since,
    now: ctx.now,
    cooldownMs: ctx.actions.restartCooldownMs,
    maxPerHour: ctx.actions.maxRestartsPerHour,
  });
  if (!verdict.restart) return skipped(r, verdict.reason);
  try {
    await ctx.kube.patchDeploymentAnnotations({
      namespace,
      name,
      resourceVersion: deployment.resourceVersion,
      annotations: { [RESTART_HISTORY]: verdict.history },
      templateAnnotations: { [RESTARTED_AT]: verdict.stamp },
    });
  } catch (error) {
    if (error instanceof KubeConflictError) return skipped(r, CONFLICT);
    if (error instanceof SourceError && error.code === '404') return skipped(r, `${ref} no longer exists`);
    return failed(r, errorSummary(error));
  }
  return applied(
    r,
    `restartedAt=${verdict.stamp} (restart ${verdict.count} of at most ${ctx.actions.maxRestartsPerHour} in an hour)`,
  );
}

interface FreshDeployment {
  resourceVersion: string | undefined;
  paused: boolean;
  replicas: number;
  readyReplicas: number;
  restartedAt: string | undefined;
  history: string | undefined;
}

/** The few fields the restart needs, read defensively from the wire shape. */
function readDeployment(object: JsonRecord): FreshDeployment {
  const metadata = isRecord(object.metadata) ? object.metadata : {};
  const spec = isRecord(object.spec) ? object.spec : {};
  const status = isRecord(object.status) ? object.status : {};
  const template = isRecord(spec.template) && isRecord(spec.template.metadata) ? spec.template.metadata : {};
  return {
    resourceVersion: optString(metadata.resourceVersion),
    paused: spec.paused === true,
    replicas: optNumber(spec.replicas) ?? 1,
    readyReplicas: optNumber(status.readyReplicas) ?? 0,
    restartedAt: stringRecord(template.annotations)[RESTARTED_AT],
    history: stringRecord(metadata.annotations)[RESTART_HISTORY],
  };
}
