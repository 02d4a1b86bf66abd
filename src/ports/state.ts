/**
 * The service's state table (DynamoDB; in-memory for local runs): delivery idempotency, alert
 * dedupe, remediation cooldowns, the controller status the last scan saw, interruption windows.
 * Every record expires (TTL) so the table never needs cleaning.
 */
import type { Severity } from '../domain/codes.ts';

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

export interface StateStore extends IdempotencyStore, AlertStateStore, CooldownStore, ClusterStatusStore, WindowCounterStore {}
