import { performance } from 'node:perf_hooks';
import type { AlertSettings } from '../config.ts';
import { METRIC, type MetricDatum } from '../domain/metric.ts';
import type { ActionSettings, DetectionSettings } from '../domain/settings.ts';
import type { SourceName } from '../domain/snapshot.ts';
import { planScanAlerts } from '../notify/finding-alerts.ts';
import { scanMetrics } from '../notify/scan-metrics.ts';
import type { Clock } from '../ports/clock.ts';
import type { AlertPublisher, MetricsSink, ScanRequest } from '../ports/notify.ts';
import type { StateStore } from '../ports/state.ts';
import { cooldownsAfter, holdBackCoolingDown } from '../remediations/cooldowns.ts';
import type { Logger } from '../support/logger.ts';
import { errorFields } from '../support/logger.ts';
import { mapBounded } from '../support/concurrency.ts';
import { controllerStatusOf } from './controller-status.ts';
import { scanCluster, type ClusterConnection } from './scan-cluster.ts';
import { parseScanRequest, scanDeliveryKey } from './scan-request.ts';

/** Clusters scanned at once by one invocation: each scan already runs 8 calls in parallel. */
export const SCAN_CONCURRENCY = 4;

/** The controller status stays readable for a day; the interruptions function judges its age by `observedAt`. */
export const CLUSTER_STATUS_TTL_MS = 24 * 3_600_000;

/** One scan-queue message as the handler decoded it from SQS. */
export interface ScanDelivery {
  messageId: string;
  body: string;
  /** SQS ApproximateReceiveCount (1 on the first delivery). */
  receiveCount: number;
}

export interface ScanServiceSettings {
  alerts: AlertSettings;
  detection: DetectionSettings;
  actions: ActionSettings;
  scanMaxAgeMs: number;
  idempotencyTtlMs: number;
}

/** A cluster as the service reaches it. */
export interface ServiceConnection extends ClusterConnection {
  /** Only these sources (a simulated cluster knows only what its capture held); default: all. */
  sources?: ReadonlySet<SourceName>;
}

export interface ScanServiceDependencies {
  settings: ScanServiceSettings;
  /** The cluster's AWS and Kubernetes access (connections are reused across invocations). */
  connect(clusterName: string): Promise<ServiceConnection>;
  state: StateStore;
  alerts: AlertPublisher;
  metrics: MetricsSink;
  clock: Clock;
  logger: Logger;
}

export interface ScanBatchOptions {
  /** How long a claimed delivery stays ours: about the invocation's remaining time (a crash frees it then). */
  claimHoldMs: number;
}

export type ScanOutcome = 'scanned' | 'unreadable' | 'duplicate' | 'stale' | 'in-progress' | 'malformed' | 'failed';

export interface ScanBatchResult {
  /** Message ids to report as batch item failures (SQS delivers them again, then to the DLQ). */
  failedMessageIds: string[];
  counts: Record<ScanOutcome, number>;
}

interface RecordResult {
  outcome: ScanOutcome;
  datums: MetricDatum[];
}

/** Outcomes SQS must deliver again. */
const RETRY: ReadonlySet<ScanOutcome> = new Set(['malformed', 'failed', 'in-progress']);

/**
 * One invocation of the scan function: every record on its own (one cluster failing never blocks
 * another), then one PutMetricData for the whole batch.
 */
export async function scanBatch(
  deps: ScanServiceDependencies,
  deliveries: readonly ScanDelivery[],
  options: ScanBatchOptions,
): Promise<ScanBatchResult> {
  const startedAt = deps.clock.now();
  const results = await mapBounded(deliveries, SCAN_CONCURRENCY, (delivery) => processDelivery(deps, delivery, options));
  const counts: Record<ScanOutcome, number> = {
    scanned: 0,
    unreadable: 0,
    duplicate: 0,
    stale: 0,
    'in-progress': 0,
    malformed: 0,
    failed: 0,
  };
  for (const r of results) counts[r.outcome] += 1;
  const datums = results.flatMap((r) => r.datums);
  if (datums.length > 0) {
    // Metrics are not worth a retry of the batch (its scans are done): a failed put is logged only.
    await deps.metrics.put(datums, startedAt).catch((error: unknown) => {
      deps.logger.error('metrics not sent', { datums: datums.length, ...errorFields(error) });
    });
  }
  return {
    failedMessageIds: deliveries.filter((_, i) => RETRY.has(results[i]!.outcome)).map((d) => d.messageId),
    counts,
  };
}

async function processDelivery(
  deps: ScanServiceDependencies,
  delivery: ScanDelivery,
  options: ScanBatchOptions,
): Promise<RecordResult> {
  const parsed = parseScanRequest(delivery.body);
  if (!parsed.ok) {
    deps.logger.warn(`malformed scan request: ${parsed.problem}`, {
      messageId: delivery.messageId,
      receiveCount: delivery.receiveCount,
    });
    return { outcome: 'malformed', datums: [] };
  }
  const request = parsed.request;
  const log = deps.logger.with({ cluster: request.cluster, requestedAt: request.requestedAt, messageId: delivery.messageId });
  const now = deps.clock.now();
  const ageMs = now.getTime() - Date.parse(request.requestedAt);
  if (ageMs > deps.settings.scanMaxAgeMs) {
    // The schedule has queued a newer request for this cluster; scanning this one too is waste.
    log.info('stale scan request skipped', { ageMs });
    return { outcome: 'stale', datums: [] };
  }
  const key = scanDeliveryKey(request);
  try {
    const claim = await deps.state.claimDelivery(key, now, options.claimHoldMs);
    if (claim === 'done') {
      log.info('duplicate scan request acknowledged: already scanned');
      return { outcome: 'duplicate', datums: [] };
    }
    if (claim === 'in-progress') {
      log.info('scan request held by another invocation; retried later');
      return { outcome: 'in-progress', datums: [] };
    }
  } catch (error) {
    log.error('scan request not claimed', errorFields(error));
    return { outcome: 'failed', datums: scanFailure(request.cluster) };
  }
  try {
    const result = await scanOne(deps, request, now, log);
    await deps.state.completeDelivery(key, deps.clock.now(), deps.settings.idempotencyTtlMs);
    return result;
  } catch (error) {
    log.error('scan failed', { receiveCount: delivery.receiveCount, ...errorFields(error) });
    // If this fails too, the claim lapses after claimHoldMs and a retry proceeds then.
    await deps.state.releaseDelivery(key).catch((e: unknown) => log.warn('scan claim not released', errorFields(e)));
    return { outcome: 'failed', datums: scanFailure(request.cluster) };
  }
}

/**
 * collect → detect → plan (minus cooldowns) → apply, then cooldowns, the controller status and the
 * alerts. Alerts are published before the open-alert records are written: a crash in between
 * sends one alert twice on the retry, never loses one.
 */
async function scanOne(deps: ScanServiceDependencies, request: ScanRequest, now: Date, log: Logger): Promise<RecordResult> {
  const { settings, state } = deps;
  const cluster = request.cluster;
  const cooldowns = await state.activeCooldowns(cluster, now);
  const connection = await deps.connect(cluster);
  const started = performance.now();
  const scan = await scanCluster(connection, {
    clusterName: cluster,
    detection: settings.detection,
    actions: settings.actions,
    now,
    reviewPlan: (planned) => holdBackCoolingDown(planned, cooldowns),
    ...(connection.sources ? { sources: connection.sources } : {}),
  });
  const durationMs = Math.round(performance.now() - started);
  const { report, snapshot, unreadable } = scan;
  // What the CLI prints as `note:` lines (objects set aside as malformed, ...): the report's gaps point here.
  for (const notice of scan.notices) log.warn(`note: ${notice}`);
  // Written first: whatever fails later, the retry must not repeat what was just done.
  await Promise.all(cooldownsAfter(report, now, settings.actions.restartCooldownMs).map((c) => state.startCooldown(c)));
  await state.saveClusterStatus(controllerStatusOf(snapshot, now), CLUSTER_STATUS_TTL_MS);

  const plan = planScanAlerts({
    cluster,
    report,
    ...(unreadable !== undefined ? { unreadable } : {}),
    open: await state.openAlerts(cluster),
    now,
    settings: settings.alerts,
  });
  if (plan.alerts.length > 0) {
    await deps.alerts.publish(plan.alerts).catch((error: unknown) => {
      // The retry re-sends finding alerts, but not a remediation's: cooldowns stop it being redone.
      log.error('alerts not published', { alerts: plan.alerts.map((a) => `${a.event} ${a.code}: ${a.title}`) });
      throw error;
    });
  }
  await Promise.all([...plan.save.map((a) => state.saveAlert(a)), ...plan.clear.map((key) => state.clearAlert(cluster, key))]);

  const outcomes = report.findings.flatMap((f) => (f.remediation && f.remediation.action !== 'MANUAL' ? [f.remediation] : []));
  log.info(unreadable ? 'cluster unreadable' : 'cluster scanned', {
    ...(unreadable !== undefined ? { unreadable } : {}),
    complete: report.complete,
    findings: report.findings.length,
    applied: outcomes.filter((r) => r.status === 'applied').length,
    failedRemediations: outcomes.filter((r) => r.status === 'failed').length,
    alerts: plan.alerts.length,
    durationMs,
  });
  // An unreadable cluster's empty snapshot would read as "0 pending pods": only the failure counts.
  if (unreadable !== undefined) return { outcome: 'unreadable', datums: scanFailure(cluster) };
  return {
    outcome: 'scanned',
    datums: scanMetrics({ cluster, snapshot, report, durationMs, now, detection: settings.detection }),
  };
}

/** Per cluster for the dashboard, and account-wide for the alarm (alarms cannot SEARCH across clusters). */
function scanFailure(cluster: string): MetricDatum[] {
  return [
    { name: METRIC.scanFailures, unit: 'Count', value: 1, dimensions: { Cluster: cluster } },
    { name: METRIC.scanFailures, unit: 'Count', value: 1, dimensions: {} },
  ];
}
