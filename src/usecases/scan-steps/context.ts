/**
 * What the scan service's steps share: its dependencies, the state it needs (the role interfaces
 * of ports/state.ts, not the whole store) and one scan of one cluster under its lease.
 */
import type { ActionSettings, AlertSettings, DetectionSettings } from '../../domain/settings.ts';
import type { MetricDatum } from '../../domain/metric.ts';
import type { SourceName } from '../../domain/snapshot.ts';
import type { Clock } from '../../ports/clock.ts';
import type { ClusterConnection } from '../../ports/cluster.ts';
import type { AlertPublisher, MetricsSink } from '../../ports/notify.ts';
import type {
  AlertStateStore,
  ClusterStatusStore,
  CooldownStore,
  IdempotencyStore,
  OutboxStore,
  ScanLeaseStore,
} from '../../ports/state.ts';
import type { Logger } from '../../support/logger.ts';

interface ScanServiceSettings {
  alerts: AlertSettings;
  detection: DetectionSettings;
  actions: ActionSettings;
  scanMaxAgeMs: number;
  idempotencyTtlMs: number;
  /** How long a scan holds its cluster's lease: longer than the function's timeout. */
  scanLeaseMs: number;
}

/** A cluster as the service reaches it. */
export interface ServiceConnection extends ClusterConnection {
  /** Only these sources (a simulated cluster knows only what its capture held); default: all. */
  sources?: ReadonlySet<SourceName>;
}

/** The state a scan reads and writes: it never reads other clusters' statuses nor counts windows. */
export type ScanStateStore = IdempotencyStore &
  ScanLeaseStore &
  OutboxStore &
  CooldownStore &
  AlertStateStore &
  Pick<ClusterStatusStore, 'saveClusterStatus'>;

export interface ScanServiceDependencies {
  settings: ScanServiceSettings;
  /** The cluster's AWS and Kubernetes access (connections are reused across invocations). */
  connect(clusterName: string): Promise<ServiceConnection>;
  state: ScanStateStore;
  alerts: AlertPublisher;
  metrics: MetricsSink;
  clock: Clock;
  logger: Logger;
}

/** `stepped-aside`: another scan of the cluster held its lease; this request was redundant. */
/** `not-found`: EKS says the cluster does not exist (a typo, another region or account, or deleted). */
export type ScanOutcome =
  'scanned' | 'unreadable' | 'not-found' | 'duplicate' | 'stale' | 'in-progress' | 'stepped-aside' | 'malformed' | 'failed';

/** What one record came to, and the metrics it adds to the batch's. */
export interface RecordResult {
  outcome: ScanOutcome;
  datums: MetricDatum[];
}

/** One scan of one cluster, under its lease. */
export interface ClusterScan {
  deps: ScanServiceDependencies;
  cluster: string;
  /** The scan's time: every record it writes is stamped with it. */
  now: Date;
  log: Logger;
  signal: AbortSignal | undefined;
}
