/**
 * The actions' announcements (the outbox of ports/state.ts): recorded before an action, their
 * outcome after it, delivered once SNS takes them. A failure or crash anywhere after an action
 * leaves its announcement for the retry, or the next scan, to deliver, once.
 */
import type { Finding, Remediation } from '../../domain/finding.ts';
import type { Report } from '../../domain/report.ts';
import { remediationAlert } from '../../notify/remediation-alerts.ts';
import type { OutboxEntry } from '../../ports/state.ts';
import type { Logger } from '../../support/logger.ts';
import type { ScanServiceDependencies } from './context.ts';

/** One outbox entry per finding about to be acted on (the first of an id, as the alerts count findings). */
export function announcementsOf(cluster: string, attempts: readonly Finding[], now: Date): OutboxEntry[] {
  const recordedAt = now.toISOString();
  const byId = new Map<string, OutboxEntry>();
  for (const finding of attempts) {
    const id = `${recordedAt}#${finding.id}#${finding.remediation!.action}`;
    if (!byId.has(id)) byId.set(id, { cluster, id, recordedAt, finding });
  }
  return [...byId.values()];
}

export function notAttempted(finding: Finding): Remediation {
  return { ...finding.remediation!, status: 'skipped', reason: 'not attempted: its alert could not be recorded first' };
}

/**
 * What each recorded action did, from the executed report: `applied` or `failed` stays in the
 * outbox to be announced; `skipped` (the executor's fresh re-check said no) did nothing and goes.
 */
export async function recordOutcomes(
  deps: ScanServiceDependencies,
  entries: readonly OutboxEntry[],
  report: Report,
  log: Logger,
): Promise<OutboxEntry[]> {
  const settled = await Promise.all(
    entries.map(async (entry) => {
      const outcome = report.findings.find((f) => f.id === entry.finding.id)?.remediation;
      if (!outcome || outcome.action === 'MANUAL') return undefined;
      if (!(await deps.state.recordOutcome(entry, outcome))) {
        log.warn('action outcome not recorded: its announcement was already delivered', { outbox: entry.id });
        return undefined;
      }
      return outcome.status === 'applied' || outcome.status === 'failed' ? { ...entry, outcome } : undefined;
    }),
  );
  return settled.filter((e) => e !== undefined);
}

/**
 * Publishes each action's alert on its own, then removes its entry: an entry is gone only once SNS
 * took its alert, and one SNS took is never listed again. Stops at the first refusal (the scan
 * fails; the retry or the next scan delivers the rest). Returns how many went out.
 */
export async function deliverAnnouncements(
  deps: ScanServiceDependencies,
  entries: readonly OutboxEntry[],
  log: Logger,
): Promise<number> {
  for (const entry of entries) {
    const alert = remediationAlert(entry);
    await deps.alerts.publish([alert]).catch((error: unknown) => {
      log.error('action alert not published; the next scan delivers it', {
        alert: `${alert.event} ${alert.code}: ${alert.title}`,
      });
      throw error;
    });
    if (!(await deps.state.markDelivered(entry.cluster, entry.id))) {
      log.warn('action alert delivered, its outbox entry was already gone', { outbox: entry.id });
    }
  }
  return entries.length;
}
