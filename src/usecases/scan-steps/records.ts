/**
 * What a scan reads of its cluster's records before it scans, and the summary it leaves with the
 * lease for the next scan (docs/service.md, "State round trips"): a partition the last complete
 * scan left empty is not queried again. Without a summary (the last scan failed, a lease of an
 * older version) everything is read, as before summaries.
 */
import type { ClusterRecordsSummary, ClusterStatus, OpenAlert, OutboxEntry, RemediationCooldown } from '../../ports/state.ts';
import type { ScanStateStore } from './context.ts';

/** What the scan needs of its cluster's records before it acts. */
export interface ClusterRecords {
  undelivered: OutboxEntry[];
  cooldowns: RemediationCooldown[];
}

/** The outbox and the cooldowns, each if the summary says it may hold something, queried at once. */
export async function readClusterRecords(
  state: ScanStateStore,
  cluster: string,
  now: Date,
  summary: ClusterRecordsSummary | undefined,
): Promise<ClusterRecords> {
  const cooling = summary?.cooldownsUntil !== undefined && Date.parse(summary.cooldownsUntil) > now.getTime();
  const [undelivered, cooldowns] = await Promise.all([
    !summary || summary.outbox ? state.undelivered(cluster) : [],
    !summary || cooling ? state.activeCooldowns(cluster, now) : [],
  ]);
  return { undelivered, cooldowns };
}

/**
 * The open alerts, if the summary says some may be open: read by the alert step, after the scan
 * acted and saved the controller status, so a failing read fails only the alerts (the retry sends them).
 */
export async function readOpenAlerts(
  state: ScanStateStore,
  cluster: string,
  summary: ClusterRecordsSummary | undefined,
): Promise<OpenAlert[]> {
  return !summary || summary.openAlerts ? state.openAlerts(cluster) : [];
}

/** What a complete scan leaves: each field as the records are now. */
export interface ScanWrites {
  /** Some alerts are open after the scan's saves and clears. */
  openAlerts: boolean;
  /** This scan recorded outbox entries (those not delivered yet are there until the next scan). */
  recorded: boolean;
  /** The cooldowns running: those read and those started. */
  cooldowns: readonly RemediationCooldown[];
  /** The controller status as now saved. */
  status: ClusterStatus;
}

export function summaryAfter(now: Date, writes: ScanWrites): ClusterRecordsSummary {
  // The latest end, as written (the max, not a sort).
  const until = writes.cooldowns.reduce<string | undefined>(
    (latest, c) => (latest === undefined || Date.parse(c.until) > Date.parse(latest) ? c.until : latest),
    undefined,
  );
  return {
    scannedAt: now.toISOString(),
    openAlerts: writes.openAlerts,
    // An entry whose action's outcome the report did not carry stays pending: the next scan looks.
    outbox: writes.recorded,
    ...(until !== undefined ? { cooldownsUntil: until } : {}),
    status: writes.status,
  };
}
