/**
 * The finding alerts: opened, reminded, resolved against the open-alert records. They are published
 * before the records are written: a crash in between sends one alert twice on the retry, never
 * loses one.
 */
import type { Report } from '../../domain/report.ts';
import { planScanAlerts } from '../../notify/finding-alerts.ts';
import type { ClusterRecordsSummary } from '../../ports/state.ts';
import type { ClusterScan } from './context.ts';
import { readOpenAlerts } from './records.ts';

export interface SentFindingAlerts {
  /** How many alerts went out. */
  sent: number;
  /** Some alerts of the cluster are open now. */
  anyOpen: boolean;
}

/** `lastSummary`: the last complete scan's, telling whether the open alerts need reading (records.ts). */
export async function sendFindingAlerts(
  { deps, cluster, now, log }: ClusterScan,
  found: { report: Report; unreadable: string | undefined; notFound: { region: string } | undefined },
  lastSummary: ClusterRecordsSummary | undefined,
): Promise<SentFindingAlerts> {
  const { report, unreadable, notFound } = found;
  const open = await readOpenAlerts(deps.state, cluster, lastSummary);
  const plan = planScanAlerts({
    cluster,
    report,
    ...(unreadable !== undefined ? { unreadable } : {}),
    ...(notFound ? { notFound } : {}),
    open,
    now,
    settings: deps.settings.alerts,
  });
  if (plan.alerts.length > 0) {
    await deps.alerts.publish(plan.alerts).catch((error: unknown) => {
      // The retry plans the finding alerts again; the actions' alerts wait in the outbox.
      log.error('alerts not published', { alerts: plan.alerts.map((a) => `${a.event} ${a.code}: ${a.title}`) });
      throw error;
    });
  }
  const { state } = deps;
  await Promise.all([...plan.save.map((a) => state.saveAlert(a)), ...plan.clear.map((key) => state.clearAlert(cluster, key))]);
  const openNow = new Set(open.map((a) => a.key));
  for (const key of plan.clear) openNow.delete(key);
  for (const alert of plan.save) openNow.add(alert.key);
  return { sent: plan.alerts.length, anyOpen: openNow.size > 0 };
}
