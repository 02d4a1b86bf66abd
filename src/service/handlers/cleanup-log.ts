/** What the cleanup function writes to its log: progress lines, the closing message, the invocation summary. */
import type { CleanupProgress, CleanupResult } from '../../domain/cleanup.ts';
import type { Logger } from '../../support/logger.ts';

/** One JSON line per progress event: a step starting, or a wait still going. */
export function logProgress(log: Logger, progress: CleanupProgress): void {
  if (progress.kind === 'step') log.info(progress.message, { step: progress.step });
  else if (progress.step === 'nodepools') log.info(`waiting for ${progress.nodeClaims} NodeClaim(s) to go`, { ...progress });
  else log.info(`waiting for ${progress.shuttingDown} instance(s) to terminate`, { ...progress });
}

export function resultMessage(result: CleanupResult): string {
  const run = result.dryRun ? 'cleanup dry run' : 'cleanup';
  if (result.stoppedAt) return `${run} stopped before step ${result.stoppedAt}: time ran out, invoke again to carry on`;
  if (result.complete) return result.notes ? `${run} complete; note: ${result.notes.join('; ')}` : `${run} complete`;
  const notStarted = [...new Set((result.stepsNotStarted ?? []).map((s) => s.step))];
  const held = notStarted.length > 0 ? `, not started: ${notStarted.join(', ')} (see stepsNotStarted)` : '';
  return `${run} finished with ${result.errors.length} error(s)${held}`;
}

export function summarise(result: CleanupResult | undefined): Record<string, unknown> {
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
    ...(result.notes ? { notes: result.notes } : {}),
    ...(result.stepsNotStarted ? { stepsNotStarted: result.stepsNotStarted.map((s) => s.step) } : {}),
  };
}
