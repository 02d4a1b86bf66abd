/**
 * The state table in memory, for local invokes and tests: the same semantics as the DynamoDB
 * adapter (a shared contract test runs against both), expiry of claims, cooldowns and leases
 * included (an undelivered outbox entry stays for the life of the process).
 */
import type { Remediation } from '../../domain/finding.ts';
import type {
  ClusterRecordsSummary,
  ClusterStatus,
  DeliveryClaim,
  LeaseClaim,
  OpenAlert,
  OutboxEntry,
  RemediationCooldown,
  StateStore,
} from '../../ports/state.ts';

interface Delivery {
  status: 'in-progress' | 'done';
  expiresAt: number;
}

export class InMemoryStateStore implements StateStore {
  private readonly deliveries = new Map<string, Delivery>();
  private readonly alerts = new Map<string, Map<string, OpenAlert>>();
  private readonly cooldowns = new Map<string, RemediationCooldown>();
  private readonly statuses = new Map<string, ClusterStatus>();
  /** The key names its window, so a counter never needs to expire here. */
  private readonly windows = new Map<string, number>();
  /** A released lease keeps only the summary its holder left (no holder). */
  private readonly leases = new Map<string, { holder?: string; expiresAt: number; summary?: ClusterRecordsSummary }>();
  /** Per cluster, by entry id; `pending`: no outcome recorded yet. */
  private readonly outbox = new Map<string, Map<string, OutboxEntry>>();

  async claimDelivery(key: string, now: Date, holdMs: number): Promise<DeliveryClaim> {
    const existing = this.deliveries.get(key);
    if (existing && existing.expiresAt > now.getTime()) return existing.status;
    this.deliveries.set(key, { status: 'in-progress', expiresAt: now.getTime() + holdMs });
    return 'claimed';
  }

  async completeDelivery(key: string, now: Date, ttlMs: number): Promise<void> {
    this.deliveries.set(key, { status: 'done', expiresAt: now.getTime() + ttlMs });
  }

  async releaseDelivery(key: string): Promise<void> {
    this.deliveries.delete(key);
  }

  async openAlerts(cluster: string): Promise<OpenAlert[]> {
    return [...(this.alerts.get(cluster)?.values() ?? [])].map((a) => ({ ...a }));
  }

  async saveAlert(alert: OpenAlert): Promise<void> {
    const ofCluster = this.alerts.get(alert.cluster) ?? new Map<string, OpenAlert>();
    ofCluster.set(alert.key, { ...alert });
    this.alerts.set(alert.cluster, ofCluster);
  }

  async clearAlert(cluster: string, key: string): Promise<void> {
    this.alerts.get(cluster)?.delete(key);
  }

  async activeCooldowns(cluster: string, now: Date): Promise<RemediationCooldown[]> {
    return [...this.cooldowns.values()]
      .filter((c) => c.cluster === cluster && Date.parse(c.until) > now.getTime())
      .map((c) => ({ ...c }));
  }

  async startCooldown(cooldown: RemediationCooldown): Promise<void> {
    this.cooldowns.set(`${cooldown.cluster}\u0000${cooldown.findingId}\u0000${cooldown.action}`, { ...cooldown });
  }

  async saveClusterStatus(status: ClusterStatus): Promise<void> {
    this.statuses.set(status.cluster, { ...status });
  }

  async clusterStatuses(clusters: readonly string[]): Promise<Map<string, ClusterStatus>> {
    const found = new Map<string, ClusterStatus>();
    for (const cluster of clusters) {
      const status = this.statuses.get(cluster);
      if (status) found.set(cluster, { ...status });
    }
    return found;
  }

  async addToWindow(key: string, amount: number): Promise<number> {
    const total = (this.windows.get(key) ?? 0) + amount;
    this.windows.set(key, total);
    return total;
  }

  async acquireLease(cluster: string, holder: string, now: Date, durationMs: number): Promise<LeaseClaim> {
    const lease = this.leases.get(cluster);
    if (lease?.holder !== undefined && lease.expiresAt > now.getTime()) return { acquired: false, holder: lease.holder };
    this.leases.set(cluster, { holder, expiresAt: now.getTime() + durationMs });
    if (lease?.holder !== undefined) return { acquired: true, lapsedHolder: lease.holder };
    return lease?.summary ? { acquired: true, summary: structuredClone(lease.summary) } : { acquired: true };
  }

  async releaseLease(cluster: string, holder: string, summary?: ClusterRecordsSummary): Promise<void> {
    if (this.leases.get(cluster)?.holder !== holder) return;
    if (summary) this.leases.set(cluster, { expiresAt: 0, summary: structuredClone(summary) });
    else this.leases.delete(cluster);
  }

  async recordPending(entries: readonly OutboxEntry[]): Promise<void> {
    for (const entry of entries) {
      const ofCluster = this.outbox.get(entry.cluster) ?? new Map<string, OutboxEntry>();
      if (ofCluster.has(entry.id)) throw new Error(`outbox entry ${entry.cluster}/${entry.id} already recorded`);
      const { outcome: _ignored, ...pending } = structuredClone(entry);
      ofCluster.set(entry.id, pending);
      this.outbox.set(entry.cluster, ofCluster);
    }
  }

  async recordOutcome(entry: OutboxEntry, outcome: Remediation): Promise<boolean> {
    const ofCluster = this.outbox.get(entry.cluster);
    const stored = ofCluster?.get(entry.id);
    if (!ofCluster || !stored || stored.outcome) return false;
    if (outcome.status === 'applied' || outcome.status === 'failed') {
      ofCluster.set(entry.id, { ...stored, outcome: structuredClone(outcome) });
    } else ofCluster.delete(entry.id);
    return true;
  }

  async undelivered(cluster: string): Promise<OutboxEntry[]> {
    return [...(this.outbox.get(cluster)?.values() ?? [])]
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((e) => structuredClone(e));
  }

  async markDelivered(cluster: string, id: string): Promise<boolean> {
    return this.outbox.get(cluster)?.delete(id) ?? false;
  }
}
