import type { Context } from 'aws-lambda';
import { parseCleanupRequest } from '../../cleanup/request.ts';
import type { CleanupResult } from '../../domain/cleanup.ts';
import { SentinelError } from '../../domain/errors.ts';
import { formatDuration } from '../../domain/settings.ts';
import type { Clock } from '../../ports/clock.ts';
import type { Logger } from '../../support/logger.ts';
import { logProgress, resultMessage, summarise } from './cleanup-log.ts';
import { runCleanup } from '../../usecases/cleanup.ts';
import type { ClusterConnection } from '../../ports/cluster.ts';
import type { ServiceHooks } from '../middleware.ts';
import { serviceHandler } from '../service-handler.ts';

export interface CleanupFunctionDependencies extends ServiceHooks {
  /** Any cluster of the account and region: Kubernetes is reached through the ClusterInfo the run describes. */
  connection: ClusterConnection;
  clock: Clock;
  logger: Logger;
  /** `clusters`: the clusters this stack serves (CLUSTERS); the role may delete only theirs (infra/iam.yml). */
  settings: { timeMarginMs: number; nodeClaimWaitMs: number; clusters: readonly string[] | undefined };
}

/** A real run for a cluster the stack does not serve: its role could delete nothing there. Nothing has been done. */
export class CleanupNotServedError extends SentinelError {
  constructor(cluster: string, clusters: readonly string[] | undefined) {
    const served = clusters === undefined ? 'serves no cluster (param clusters is unset)' : `serves only ${clusters.join(', ')}`;
    const param = [...(clusters ?? []), cluster].join(',');
    super(
      `cleanup of cluster ${cluster} refused: this stack ${served}, and its role may delete only in those; deploy with --param="clusters=${param}" (docs/deploy.md), or invoke with "dryRun": true to list what would go`,
    );
    // A setting to change, not a bug: the Lambda runtime returns `stack`, whose frames would only be noise.
    this.stack = `${this.name}: ${this.message}`;
  }
}

const CLEANUP_STOP_MARGIN_MS = 5_000;

/** Manual invoke `{clusterName, dryRun, ...}` → one cleanup run that stops, resumable, before Lambda's timeout. */
export function createCleanupHandler(deps: CleanupFunctionDependencies) {
  return serviceHandler(deps, {
    name: 'cleanup',
    // CLEANUP_TIME_MARGIN stops new steps; a call still hanging this close to the deadline is aborted.
    stopMarginMs: CLEANUP_STOP_MARGIN_MS,
    parse: parseCleanupRequest,
    run: async (request, { context }): Promise<CleanupResult> => {
      const { clusters } = deps.settings;
      if (!request.dryRun && !clusters?.includes(request.clusterName)) {
        throw new CleanupNotServedError(request.clusterName, clusters);
      }
      const log = deps.logger.with({ cluster: request.clusterName, dryRun: request.dryRun });
      const result = await runCleanup(
        request,
        { connection: deps.connection, clock: deps.clock, onProgress: (progress) => logProgress(log, progress) },
        { deadline: deadlineOf(deps, context), nodeClaimWaitMs: deps.settings.nodeClaimWaitMs },
      );
      // The whole result, lists included: the log is the record of what this run deleted.
      // A note (no such cluster) is a WARN too: under POWERTOOLS_LOG_LEVEL=WARN it must still show.
      if (result.errors.length > 0 || result.notes) log.warn(resultMessage(result), { ...result });
      else log.info(resultMessage(result), { ...result });
      return result;
    },
    summarise,
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
