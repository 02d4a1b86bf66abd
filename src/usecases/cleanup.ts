/**
 * Destroy-time cleanup over the ports (DESIGN.md "Destroy-time cleanup"): NodePools, then
 * instances, launch templates and instance profiles, each step only once the one before leaves
 * nothing that would fight it. Stateless and idempotent: a run cut short by its deadline is
 * finished by the next one, which finds done what was done. AWS and Kubernetes failures become
 * `errors` and the run carries on with what they do not hold back; nothing is thrown for them.
 */
import { deleteInstanceProfilesStep } from '../cleanup/instance-profiles-step.ts';
import { listCleanupCandidates, terminateInstancesStep } from '../cleanup/instances-step.ts';
import { deleteLaunchTemplatesStep } from '../cleanup/launch-templates-step.ts';
import { deleteNodePoolsStep } from '../cleanup/nodepools-step.ts';
import { CleanupRun, type CleanupContext, type StepEnd } from '../cleanup/run.ts';
import type { CleanupProgress, CleanupRequest, CleanupResult } from '../domain/cleanup.ts';
import type { Clock } from '../ports/clock.ts';
import type { ClusterConnection } from '../ports/cluster.ts';

export interface CleanupDependencies {
  connection: ClusterConnection;
  clock: Clock;
  /** Called as the run goes (step started, still waiting for N NodeClaims / instances). */
  onProgress?: (progress: CleanupProgress) => void;
}

export interface CleanupSettings {
  /** No step, batch or wait starts after this; the result then says `complete: false` and `stoppedAt`. */
  deadline: Date;
  /** How long to wait for the deleted NodePools' NodeClaims to go, counted from their deletion. Default 5 min. */
  nodeClaimWaitMs?: number;
  /** Between two looks at NodeClaims or shutting-down instances. Default 10 s. */
  pollIntervalMs?: number;
}

export const DEFAULT_NODECLAIM_WAIT_MS = 5 * 60_000;
export const DEFAULT_CLEANUP_POLL_MS = 10_000;

export async function runCleanup(
  request: CleanupRequest,
  dependencies: CleanupDependencies,
  settings: CleanupSettings,
): Promise<CleanupResult> {
  const run = new CleanupRun(request, dependencies.clock, settings.deadline, dependencies.onProgress);
  const ctx: CleanupContext = {
    request,
    connection: dependencies.connection,
    run,
    nodeClaimWaitMs: settings.nodeClaimWaitMs ?? DEFAULT_NODECLAIM_WAIT_MS,
    pollIntervalMs: settings.pollIntervalMs ?? DEFAULT_CLEANUP_POLL_MS,
  };
  if (run.outOfTime(request.deleteNodePools ? 'nodepools' : 'instances')) return run.finish();
  // Listed before the NodePools go, so instances Karpenter terminates meanwhile are still reported.
  const atStart = await listCleanupCandidates(ctx);
  if ((await deleteNodePoolsStep(ctx)) === 'stopped') return run.finish();
  if ((await terminateInstancesStep(ctx, atStart)) === 'stopped') return run.finish();
  if (launchTemplatesMustWait(ctx)) return run.finish();
  const steps: ((ctx: CleanupContext) => Promise<StepEnd>)[] = [deleteLaunchTemplatesStep, deleteInstanceProfilesStep];
  for (const step of steps) {
    if ((await step(ctx)) === 'stopped') break;
  }
  return run.finish();
}

/**
 * Launch templates and instance profiles go only once every Karpenter instance of the cluster is
 * known terminated: a running node keeps its instance profile (and so its role), and Karpenter
 * launches from the templates while it runs. Otherwise both steps are reported as not started. A
 * dry run terminates nothing, so it lists them as what would follow. With a NodePool subset they
 * are left alone anyway (they serve the whole cluster).
 */
function launchTemplatesMustWait({ request, run }: CleanupContext): boolean {
  const why = run.instancesNotAllTerminated;
  if (request.dryRun || request.nodePools !== undefined || why === undefined) return false;
  const reason = `instances not all known terminated: ${why}`;
  run.notStarted('launch-templates', reason);
  run.notStarted('instance-profiles', reason);
  return true;
}
