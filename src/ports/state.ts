/**
 * The service's state table (DynamoDB; in-memory for local runs): delivery idempotency, alert
 * dedupe, remediation cooldowns, the controller status the last scan saw, interruption windows.
 * Every record expires (TTL) so the table never needs cleaning.
 */
import type { Severity } from '../domain/codes.ts';
import type { Finding, Remediation } from '../domain/finding.ts';

/** `claimed`: go ahead. `done`: a duplicate of a processed delivery. `in-progress`: another invocation holds it. */
export type DeliveryClaim = 'claimed' | 'done' | 'in-progress';

export interface IdempotencyStore {
  /** Claims `key` until `now + holdMs` (a crashed holder's claim lapses then). */
  claimDelivery(key: string, now: Date, holdMs: number): Promise<DeliveryClaim>;
  /** Marks it processed, remembered until `now + ttlMs`. */
  completeDelivery(key: string, now: Date, ttlMs: number): Promise<void>;
  /** Gives the claim up after a failure, so the retry may process it. */
  releaseDelivery(key: string): Promise<void>;
}

/** A finding (or other problem) that has been alerted and not yet resolved. */
export interface OpenAlert {
  cluster: string;
  /** The finding id, or another stable key. */
  key: string;
  code: string;
  severity: Severity;
  title: string;
  /** ISO-8601. */
  firstSeen: string;
  /** ISO-8601: the last alert sent for it (opened or reminder). */
  lastSent: string;
}

export interface AlertStateStore {
  openAlerts(cluster: string): Promise<OpenAlert[]>;
  saveAlert(alert: OpenAlert): Promise<void>;
  clearAlert(cluster: string, key: string): Promise<void>;
}

/** After an applied or failed remediation, the same action on the same finding waits until `until`. */
export interface RemediationCooldown {
  cluster: string;
  findingId: string;
  action: string;
  /** ISO-8601. */
  until: string;
  /** What happened last time, for the skip reason: `applied at ...`, `failed at ...: reason`. */
  lastOutcome: string;
}

export interface CooldownStore {
  /** Cooldowns of the cluster still running at `now`. */
  activeCooldowns(cluster: string, now: Date): Promise<RemediationCooldown[]>;
  startCooldown(cooldown: RemediationCooldown): Promise<void>;
}

/**
 * What the last scan saw of a cluster's Karpenter controller, for the interruptions function (which
 * never talks to Kubernetes). `managed`: EKS Auto Mode runs Karpenter outside the cluster.
 */
export interface ClusterStatus {
  cluster: string;
  /** ISO-8601: when the scan read it. */
  observedAt: string;
  controller: 'available' | 'unavailable' | 'not-found' | 'managed' | 'unknown';
  readyReplicas: number;
  desiredReplicas: number;
}

export interface ClusterStatusStore {
  saveClusterStatus(status: ClusterStatus, ttlMs: number): Promise<void>;
  /** Statuses of those clusters that have one. */
  clusterStatuses(clusters: readonly string[]): Promise<Map<string, ClusterStatus>>;
}

export interface WindowCounterStore {
  /**
   * Adds `amount` to the counter `key` (created at 0, expiring at `expiresAt`); returns the new total.
   * The key names its window (e.g. its start), so an expired counter is never added to again.
   */
  addToWindow(key: string, amount: number, expiresAt: Date): Promise<number>;
}

/**
 * What the last complete scan of a cluster left in its records, kept with the cluster's lease: the
 * next scan reads only the records that may hold something (docs/service.md, "State round trips").
 * Written only by a scan that finished under its lease and took it from nobody still holding it
 * (not from a lapsed holder), so it is never older than the records it describes. A scan whose
 * steps fail leaves none, and the next scan then reads everything; one whose steps all completed
 * leaves it even when marking its message done then fails (its records are written).
 */
export interface ClusterRecordsSummary {
  /** ISO-8601: the scan's time. */
  scannedAt: string;
  /** Some alerts of the cluster are open. */
  openAlerts: boolean;
  /** The outbox may hold entries not yet delivered (the scan recorded some). */
  outbox: boolean;
  /** ISO-8601: when the last cooldown ends; absent when none was running. */
  cooldownsUntil?: string;
  /** The controller status as last saved; absent when none was. */
  status?: ClusterStatus;
}

/**
 * `acquired`: this scan may act on the cluster, with what the last complete scan left (absent:
 * unknown, read everything); otherwise another scan holds it (its holder, when known).
 * `lapsedHolder`: the lease was taken from a holder whose time was up (killed, or still running):
 * what that holder writes from now on no summary describes, so this scan leaves none.
 */
export type LeaseClaim =
  { acquired: true; summary?: ClusterRecordsSummary; lapsedHolder?: string } | { acquired: false; holder?: string };

/** One scan at a time per cluster: overlapping scans would alert and act twice. */
export interface ScanLeaseStore {
  /**
   * Takes the cluster's lease for `holder` until `now + durationMs`, if nobody holds it or its lease
   * has expired; the summary the last holder released it with comes back with it, once, and the
   * holder whose lease had expired, if any.
   */
  acquireLease(cluster: string, holder: string, now: Date, durationMs: number): Promise<LeaseClaim>;
  /**
   * Gives it up, only if `holder` still holds it (an expired lease may have been taken by another),
   * leaving `summary` for the next holder; without one the next holder reads everything.
   */
  releaseLease(cluster: string, holder: string, summary?: ClusterRecordsSummary): Promise<void>;
}

/**
 * An action's announcement, recorded before the action (the outbox): the retry, or the next scan,
 * delivers whatever a failed or killed scan did not.
 */
export interface OutboxEntry {
  cluster: string;
  /** Unique in the cluster and in time order: `<recordedAt>#<findingId>#<action>`. */
  id: string;
  /** ISO-8601, to the millisecond: when the scan recorded it, right before acting. */
  recordedAt: string;
  /** The finding as planned (its remediation `planned`): what the alert is about. */
  finding: Finding;
  /** What the action did (`applied` or `failed`), once known. Absent: the scan stopped before it knew. */
  outcome?: Remediation;
}

export interface OutboxStore {
  /** Records entries before their actions are carried out. */
  recordPending(entries: readonly OutboxEntry[]): Promise<void>;
  /**
   * Records what the action of `entry` (as recorded pending) did: `applied` or `failed` keeps the
   * entry for delivery; any other status (the executor's re-check `skipped` it: nothing happened)
   * removes it. Only an entry still pending changes; false when it was not (already delivered as
   * "outcome unknown", or gone).
   */
  recordOutcome(entry: OutboxEntry, outcome: Remediation): Promise<boolean>;
  /** Entries of the cluster not yet delivered, oldest first. */
  undelivered(cluster: string): Promise<OutboxEntry[]>;
  /** Removes a delivered entry (it is never listed, so never sent, again); false when it was already gone. */
  markDelivered(cluster: string, id: string): Promise<boolean>;
}

export interface StateStore
  extends IdempotencyStore, AlertStateStore, CooldownStore, ClusterStatusStore, WindowCounterStore, ScanLeaseStore, OutboxStore {}
