/**
 * What a scan reads of its cluster's records before it scans, and the summary it leaves with the
 * lease for the next scan (docs/service.md, "State round trips"): a partition the last complete
 * scan left empty is not queried again. Without a summary (the last scan failed, a lease of an
 * older version) everything is read, as before summaries.
 */
import type { ClusterRecordsSummary, ClusterStatus, OpenAlert, OutboxEntry, RemediationCooldown } from '../../ports/state.ts';
import type { ScanStateStore } from './context.ts';

/** What the scan needs of its cluster's records. */
export interface ClusterRecords {
  undelivered: OutboxEntry[];
  cooldowns: RemediationCooldown[];
  open: OpenAlert[];
}

/** The partitions the summary says may hold something, queried at once. */
export async function readClusterRecords(
  state: ScanStateStore,
  cluster: string,
  now: Date,
  summary: ClusterRecordsSummary | undefined,
): Promise<ClusterRecords> {
  const cooling = summary?.cooldownsUntil !== undefined && Date.parse(summary.cooldownsUntil) > now.getTime();
  const [undelivered, cooldowns, open] = await Promise.all([
    !summary || summary.outbox ? state.undelivered(cluster) : [],
    !summary || cooling ? state.activeCooldowns(cluster, now) : [],
    !summary || summary.openAlerts ? state.openAlerts(cluster) : [],
  ]);
  return { undelivered, cooldowns, open };
}

/** What a complete scan leaves: each field as the records are now. */
export interface ScanWrites {
  /** The open alerts after the scan's saves and clears. */
  openAlerts: number;
  /** The outbox entries this scan recorded (those not delivered yet are there until the next scan). */
  recorded: number;
  /** The cooldowns running: those read and those started. */
  cooldowns: readonly RemediationCooldown[];
  /** The controller status as now saved. */
  status: ClusterStatus;
}

export function summaryAfter(now: Date, writes: ScanWrites): ClusterRecordsSummary {
  const until = writes.cooldowns.map((c) => c.until).sort((a, b) => Date.parse(b) - Date.parse(a))[0];
  return {
    scannedAt: now.toISOString(),
    openAlerts: writes.openAlerts > 0,
    // An entry whose action's outcome the report did not carry stays pending: the next scan looks.
    outbox: writes.recorded > 0,
    ...(until !== undefined ? { cooldownsUntil: until } : {}),
    status: writes.status,
  };
}
