/**
 * One scan of a cluster under its lease, as a list of steps each returning what it did:
 *
 *   1. read the outbox and cooldowns if the last scan's summary says they may hold something (records.ts);
 *   2. deliver the announcements an earlier scan left undelivered (outbox.ts): nothing new is done
 *      while an earlier action is unannounced; if SNS refuses, the scan fails here;
 *   3. collect → detect → plan (minus cooldowns) → record announcements → apply (collect-and-act.ts);
 *   4. record the actions' outcomes, then their cooldowns: whatever fails later, the retry must not
 *      repeat what was just done;
 *   5. save the controller status when it changed (controller-status.ts);
 *   6. the finding alerts against the open ones, read only now and only if the summary says some
 *      may be open (finding-alerts.ts): a failing read cannot stop the status and cooldowns being
 *      saved; then the actions' alerts (outbox.ts);
 *   7. the log line and metrics (result.ts), and the summary left with the lease for the next scan.
 */
import type { ClusterRecordsSummary } from '../../ports/state.ts';
import { cooldownsAfter } from '../../remediations/cooldowns.ts';
import { collectAndAct } from './collect-and-act.ts';
import type { ClusterScan, RecordResult } from './context.ts';
import { saveControllerStatus } from './controller-status.ts';
import { sendFindingAlerts } from './finding-alerts.ts';
import { deliverAnnouncements, recordOutcomes } from './outbox.ts';
import { readClusterRecords, summaryAfter } from './records.ts';
import { scanResult } from './result.ts';

export interface ScannedCluster {
  result: RecordResult;
  /** What the records hold now, for the next scan. */
  summary: ClusterRecordsSummary;
}

export async function scanOne(scan: ClusterScan, lastSummary: ClusterRecordsSummary | undefined): Promise<ScannedCluster> {
  const { deps, cluster, now, log } = scan;
  const { state, settings } = deps;
  const records = await readClusterRecords(state, cluster, now, lastSummary);
  const leftOver = await deliverAnnouncements(deps, records.undelivered, log);
  const collected = await collectAndAct(scan, records.cooldowns);
  const { report, snapshot, unreadable } = collected.scan;
  const toAnnounce = await recordOutcomes(deps, collected.announcements, report, log);
  const started = cooldownsAfter(report, now, settings.actions.restartCooldownMs);
  await Promise.all(started.map((c) => state.startCooldown(c)));
  const status = await saveControllerStatus(state, snapshot, now, lastSummary?.status);
  const alerts = await sendFindingAlerts(scan, { report, unreadable, notFound: collected.notFound }, lastSummary);
  const announced = leftOver + (await deliverAnnouncements(deps, toAnnounce, log));
  return {
    result: scanResult(scan, collected, { alerts: alerts.sent, announced }),
    summary: summaryAfter(now, {
      openAlerts: alerts.anyOpen,
      recorded: collected.announcements.length > 0,
      cooldowns: [...records.cooldowns, ...started],
      status,
    }),
  };
}
