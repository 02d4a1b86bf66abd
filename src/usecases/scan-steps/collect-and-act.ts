/**
 * Collect → detect → plan (minus the actions still cooling down) → record the actions'
 * announcements → apply: the scan proper, timed. An action is never taken unless its announcement
 * was recorded first (the outbox).
 */
import { performance } from 'node:perf_hooks';
import type { OutboxEntry, RemediationCooldown } from '../../ports/state.ts';
import { holdBackCoolingDown } from '../../remediations/cooldowns.ts';
import { InvocationTimeoutError } from '../../support/abort.ts';
import { scanCluster, type ScanClusterResult } from '../scan-cluster.ts';
import type { ClusterScan } from './context.ts';
import { announcementsOf, notAttempted } from './outbox.ts';

export interface CollectedScan {
  scan: ScanClusterResult;
  /** The announcements recorded before acting (none when nothing was acted on). */
  announcements: OutboxEntry[];
  durationMs: number;
  /** EKS's ResourceNotFoundException: the cluster does not exist there. */
  notFound: { region: string } | undefined;
}

export async function collectAndAct(
  { deps, cluster, now, log, signal }: ClusterScan,
  cooldowns: readonly RemediationCooldown[],
): Promise<CollectedScan> {
  const { settings, state } = deps;
  const connection = await deps.connect(cluster);
  const started = performance.now();
  let announcements: OutboxEntry[] = [];
  const scan = await scanCluster(connection, {
    clusterName: cluster,
    detection: settings.detection,
    actions: settings.actions,
    now,
    reviewPlan: (planned) => holdBackCoolingDown(planned, cooldowns),
    beforeActing: async (attempts) => {
      announcements = announcementsOf(cluster, attempts, now);
      await state.recordPending(announcements).catch(async (error: unknown) => {
        // Nothing was done: those recorded go again (best effort), else the next scan says "outcome unknown".
        await Promise.allSettled(announcements.map((e) => state.recordOutcome(e, notAttempted(e.finding))));
        throw error;
      });
    },
    ...(connection.sources ? { sources: connection.sources } : {}),
  });
  const durationMs = Math.round(performance.now() - started);
  // What the abort cut short reads as gaps: no alert, status or cooldown is drawn from it.
  if (signal?.aborted)
    throw new InvocationTimeoutError('scan stopped before the invocation’s deadline', { cause: signal.reason });
  // What the CLI prints as `note:` lines (objects set aside as malformed, ...): the report's gaps point here.
  for (const notice of scan.notices) log.warn(`note: ${notice}`);
  // EKS's ResourceNotFoundException: not a healthy cluster with nothing to report, nothing to monitor at all.
  const notFound = scan.snapshot.cluster?.gone === true ? { region: connection.aws.region } : undefined;
  return { scan, announcements, durationMs, notFound };
}
