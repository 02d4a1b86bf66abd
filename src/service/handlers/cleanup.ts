import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { parseCleanupRequest } from '../../cleanup/request.ts';
import type { CleanupProgress, CleanupResult } from '../../domain/cleanup.ts';
import { SentinelError } from '../../domain/errors.ts';
import { formatDuration } from '../../domain/settings.ts';
import type { Clock } from '../../ports/clock.ts';
import type { Logger } from '../../support/logger.ts';
import { runCleanup } from '../../usecases/cleanup.ts';
import type { ClusterConnection } from '../../ports/cluster.ts';
import { beginInvocation, serviceMiddlewares, TIMEOUT_EARLY_MS, type ServiceHooks } from '../middleware.ts';

export interface CleanupFunctionDependencies extends ServiceHooks {
  /** Any cluster of the account and region: Kubernetes is reached through the ClusterInfo the run describes. */
  connection: ClusterConnection;
  clock: Clock;
  logger: Logger;
  settings: { timeMarginMs: number; nodeClaimWaitMs: number };
}

const CLEANUP_STOP_MARGIN_MS = 5_000;

/** Manual invoke `{clusterName, dryRun, ...}` → one cleanup run that stops, resumable, before Lambda's timeout. */
export function createCleanupHandler(deps: CleanupFunctionDependencies) {
  return middy<unknown, CleanupResult>({ timeoutEarlyInMillis: TIMEOUT_EARLY_MS })
    .use(serviceMiddlewares(deps, { logger: deps.logger, functionName: 'cleanup', summarise }))
    .handler(async (event, context, options) => {
      // CLEANUP_TIME_MARGIN stops new steps; a call still hanging this close to the deadline is aborted.
      beginInvocation(deps, context, options, CLEANUP_STOP_MARGIN_MS);
      const request = parseCleanupRequest(event);
      const log = deps.logger.with({ cluster: request.clusterName, dryRun: request.dryRun });
      const result = await runCleanup(
        request,
        { connection: deps.connection, clock: deps.clock, onProgress: (progress) => logProgress(log, progress) },
        { deadline: deadlineOf(deps, context), nodeClaimWaitMs: deps.settings.nodeClaimWaitMs },
      );
      // The whole result, lists included: the log is the record of what this run deleted.
      if (result.errors.length > 0) log.warn(resultMessage(result), { ...result });
      else log.info(resultMessage(result), { ...result });
      return result;
    });
}

/** Nothing starts later than the margin before Lambda's timeout, so the run returns `complete: false` rather than being killed mid-step. */
function deadlineOf(deps: CleanupFunctionDependencies, context: Context): Date {
  const remainingMs = context.getRemainingTimeInMillis();
  const { timeMarginMs } = deps.settings;
  if (remainingMs <= timeMarginMs) {
    throw new SentinelError(
      `CLEANUP_TIME_MARGIN ${formatDuration(timeMarginMs)} leaves nothing of this invocation's ${formatDuration(remainingMs)}: raise the function's timeout`,
    );
  }
  return new Date(deps.clock.now().getTime() + remainingMs - timeMarginMs);
}

/** One JSON line per progress event: a step starting, or a wait still going. */
function logProgress(log: Logger, progress: CleanupProgress): void {
  if (progress.kind === 'step') log.info(progress.message, { step: progress.step });
  else if (progress.step === 'nodepools') log.info(`waiting for ${progress.nodeClaims} NodeClaim(s) to go`, { ...progress });
  else log.info(`waiting for ${progress.shuttingDown} instance(s) to terminate`, { ...progress });
}

function resultMessage(result: CleanupResult): string {
  const run = result.dryRun ? 'cleanup dry run' : 'cleanup';
  if (result.stoppedAt) return `${run} stopped before step ${result.stoppedAt}: time ran out, invoke again to carry on`;
  if (result.complete) return `${run} complete`;
  const notStarted = [...new Set((result.stepsNotStarted ?? []).map((s) => s.step))];
  const held = notStarted.length > 0 ? `, not started: ${notStarted.join(', ')} (see stepsNotStarted)` : '';
  return `${run} finished with ${result.errors.length} error(s)${held}`;
}

function summarise(response: unknown): Record<string, unknown> {
  const result = response as CleanupResult | undefined;
  if (!result) return {};
  return {
    complete: result.complete,
    ...(result.stoppedAt ? { stoppedAt: result.stoppedAt } : {}),
    nodePoolsDeleted: result.nodePoolsDeleted.length,
    instancesTerminated: result.instancesTerminated.length,
    instancesNotProven: result.instancesNotProven.length,
    launchTemplatesDeleted: result.launchTemplatesDeleted.length,
    instanceProfilesDeleted: result.instanceProfilesDeleted.length,
    errors: result.errors.length,
    ...(result.stepsNotStarted ? { stepsNotStarted: result.stepsNotStarted.map((s) => s.step) } : {}),
  };
}
