import { performance } from 'node:perf_hooks';
import type { AlertSettings } from '../domain/settings.ts';
import { METRIC, type MetricDatum } from '../domain/metric.ts';
import type { ActionSettings, DetectionSettings } from '../domain/settings.ts';
import type { SourceName } from '../domain/snapshot.ts';
import type { Finding, Remediation } from '../domain/finding.ts';
import { planScanAlerts } from '../notify/finding-alerts.ts';
import { remediationAlert } from '../notify/remediation-alerts.ts';
import { notFoundMetrics, scanMetrics } from '../notify/scan-metrics.ts';
import { clusterNotFoundText } from '../domain/errors.ts';
import type { Clock } from '../ports/clock.ts';
import type { AlertPublisher, MetricsSink, ScanRequest } from '../ports/notify.ts';
import type { OutboxEntry, StateStore } from '../ports/state.ts';
import type { Report } from '../domain/report.ts';
import { cooldownsAfter, holdBackCoolingDown } from '../remediations/cooldowns.ts';
import type { Logger } from '../support/logger.ts';
import { errorFields } from '../support/logger.ts';
import { InvocationTimeoutError, isInvocationTimeout } from '../support/abort.ts';
import { mapBounded } from '../support/concurrency.ts';
import { controllerStatusOf } from './controller-status.ts';
import type { ClusterConnection } from '../ports/cluster.ts';
import { scanCluster } from './scan-cluster.ts';
import { parseScanRequest, scanDeliveryKey } from './scan-request.ts';

/** Clusters scanned at once by one invocation: each scan already runs 8 calls in parallel. */
const SCAN_CONCURRENCY = 4;

/** The controller status stays readable for a day; the interruptions function judges its age by `observedAt`. */
export const CLUSTER_STATUS_TTL_MS = 24 * 3_600_000;

/** One scan-queue message as the handler decoded it from SQS. */
export interface ScanDelivery {
  messageId: string;
  body: string;
  /** SQS ApproximateReceiveCount (1 on the first delivery). */
  receiveCount: number;
}

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
  /** Names this invocation in the cluster leases it takes (the Lambda request id). */
  invocationId: string;
  /**
   * Aborted when the invocation must stop (its deadline is near): a scan not started is not started,
   * a running one stops as an InvocationTimeoutError; both fail (retried) and count as ScanFailures.
   */
  signal?: AbortSignal;
}

/** `stepped-aside`: another scan of the cluster held its lease; this request was redundant. */
/** `not-found`: EKS says the cluster does not exist (a typo, another region or account, or deleted). */
type ScanOutcome =
  'scanned' | 'unreadable' | 'not-found' | 'duplicate' | 'stale' | 'in-progress' | 'stepped-aside' | 'malformed' | 'failed';

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
 * another), then the whole batch's metrics at once.
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
    'not-found': 0,
    duplicate: 0,
    stale: 0,
    'in-progress': 0,
    'stepped-aside': 0,
    malformed: 0,
    failed: 0,
  };
  for (const r of results) counts[r.outcome] += 1;
  const datums = results.flatMap((r) => r.datums);
  if (datums.length > 0) {
    // Metrics are not worth a retry of the batch (its scans are done): a failure is a warning only.
    try {
      await deps.metrics.put(datums, startedAt);
    } catch (error) {
      deps.logger.warn('metrics not written', { datums: datums.length, ...errorFields(error) });
    }
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
  if (options.signal?.aborted) {
    log.error('scan not started: the invocation’s deadline is near; retried', { receiveCount: delivery.receiveCount });
    return { outcome: 'failed', datums: scanFailure(request.cluster) };
  }
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
    // One lease per delivery, not per invocation: one batch may hold two requests for one cluster.
    return await scanUnderLease(deps, request, `${options.invocationId}/${delivery.messageId}`, now, log, options.signal);
  } catch (error) {
    if (isInvocationTimeout(error, options.signal)) {
      const timeout =
        error instanceof InvocationTimeoutError
          ? error
          : new InvocationTimeoutError('stopped before the invocation’s deadline', { cause: error });
      // No state call can be made now: the claim and the lease lapse on their own, then the retry scans.
      log.error('scan stopped: the invocation’s deadline', { receiveCount: delivery.receiveCount, ...errorFields(timeout) });
      return { outcome: 'failed', datums: scanFailure(request.cluster) };
    }
    log.error('scan failed', { receiveCount: delivery.receiveCount, ...errorFields(error) });
    // If this fails too, the claim lapses after claimHoldMs and a retry proceeds then.
    await deps.state.releaseDelivery(key).catch((e: unknown) => log.warn('scan claim not released', errorFields(e)));
    return { outcome: 'failed', datums: scanFailure(request.cluster) };
  }
}

/**
 * One scan of a cluster at a time: the request is scanned only if it gets the cluster's lease.
 * Otherwise another scan is running; a newer request is queued every minute, so this one is
 * answered (done, not retried) and measures nothing (the scan that holds the lease does).
 */
async function scanUnderLease(
  deps: ScanServiceDependencies,
  request: ScanRequest,
  holder: string,
  now: Date,
  log: Logger,
  signal: AbortSignal | undefined,
): Promise<RecordResult> {
  const { state, settings, clock } = deps;
  const key = scanDeliveryKey(request);
  const lease = await state.acquireLease(request.cluster, holder, clock.now(), settings.scanLeaseMs);
  if (!lease.acquired) {
    log.info('scan skipped: another scan of the cluster holds its lease', { leaseHolder: lease.holder ?? 'unknown' });
    await state.completeDelivery(key, clock.now(), settings.idempotencyTtlMs);
    return { outcome: 'stepped-aside', datums: [] };
  }
  try {
    const result = await scanOne(deps, request, now, log, signal);
    await state.completeDelivery(key, clock.now(), settings.idempotencyTtlMs);
    return result;
  } finally {
    // If this fails, the lease lapses after scanLeaseMs: the next scans step aside until then.
    await state.releaseLease(request.cluster, holder).catch((e: unknown) => log.warn('scan lease not released', errorFields(e)));
  }
}

/**
 * Under the cluster's lease: first the announcements an earlier scan left undelivered (the outbox),
 * then collect → detect → plan (minus cooldowns) → record the actions' announcements → apply →
 * record their outcomes, then cooldowns, the controller status, the finding alerts and the
 * actions' alerts. Finding alerts are published before the open-alert records are written: a crash
 * in between sends one alert twice on the retry, never loses one. An action's alert is recorded
 * before the action and removed once SNS took it: a failure or crash anywhere after the action
 * leaves it for the retry, or the next scan, to deliver, once.
 */
async function scanOne(
  deps: ScanServiceDependencies,
  request: ScanRequest,
  now: Date,
  log: Logger,
  signal: AbortSignal | undefined,
): Promise<RecordResult> {
  const { settings, state } = deps;
  const cluster = request.cluster;
  // Nothing new is done while an earlier action is unannounced: if SNS refuses, the scan fails here.
  const leftOver = await deliverAnnouncements(deps, await state.undelivered(cluster), log);
  const cooldowns = await state.activeCooldowns(cluster, now);
  const connection = await deps.connect(cluster);
  const started = performance.now();
  let announcements: OutboxEntry[] = [];
  const scan = await scanCluster(connection, {
    clusterName: cluster,
    detection: settings.detection,
    actions: settings.actions,
    now,
    reviewPlan: (planned) => holdBackCoolingDown(planned, cooldowns),
    beforeActing: async (attempts) => {
      announcements = announcementsOf(cluster, attempts, now);
      await state.recordPending(announcements).catch(async (error: unknown) => {
        // Nothing was done: those recorded go again (best effort), else the next scan says "outcome unknown".
        await Promise.allSettled(announcements.map((e) => state.recordOutcome(e, notAttempted(e.finding))));
        throw error;
      });
    },
    ...(connection.sources ? { sources: connection.sources } : {}),
  });
  const durationMs = Math.round(performance.now() - started);
  // What the abort cut short reads as gaps: no alert, status or cooldown is drawn from it.
  if (signal?.aborted)
    throw new InvocationTimeoutError('scan stopped before the invocation’s deadline', { cause: signal.reason });
  const { report, snapshot, unreadable } = scan;
  // EKS's ResourceNotFoundException: not a healthy cluster with nothing to report, nothing to monitor at all.
  const notFound = snapshot.cluster?.gone === true ? { region: connection.aws.region } : undefined;
  // What the CLI prints as `note:` lines (objects set aside as malformed, ...): the report's gaps point here.
  for (const notice of scan.notices) log.warn(`note: ${notice}`);
  const toAnnounce = await recordOutcomes(deps, announcements, report, log);
  // Written next: whatever fails later, the retry must not repeat what was just done.
  await Promise.all(cooldownsAfter(report, now, settings.actions.restartCooldownMs).map((c) => state.startCooldown(c)));
  await state.saveClusterStatus(controllerStatusOf(snapshot, now), CLUSTER_STATUS_TTL_MS);

  const plan = planScanAlerts({
    cluster,
    report,
    ...(unreadable !== undefined ? { unreadable } : {}),
    ...(notFound ? { notFound } : {}),
    open: await state.openAlerts(cluster),
    now,
    settings: settings.alerts,
  });
  if (plan.alerts.length > 0) {
    await deps.alerts.publish(plan.alerts).catch((error: unknown) => {
      // The retry plans the finding alerts again; the actions' alerts wait in the outbox.
      log.error('alerts not published', { alerts: plan.alerts.map((a) => `${a.event} ${a.code}: ${a.title}`) });
      throw error;
    });
  }
  await Promise.all([...plan.save.map((a) => state.saveAlert(a)), ...plan.clear.map((key) => state.clearAlert(cluster, key))]);
  const announced = leftOver + (await deliverAnnouncements(deps, toAnnounce, log));

  const outcomes = report.findings.flatMap((f) => (f.remediation && f.remediation.action !== 'MANUAL' ? [f.remediation] : []));
  const fields = {
    complete: report.complete,
    findings: report.findings.length,
    applied: outcomes.filter((r) => r.status === 'applied').length,
    failedRemediations: outcomes.filter((r) => r.status === 'failed').length,
    alerts: plan.alerts.length,
    announced,
    durationMs,
  };
  // WARN, not INFO: a blind scan must show under POWERTOOLS_LOG_LEVEL=WARN and in the query of docs/service.md.
  if (notFound) {
    log.warn('cluster not found', {
      notFound: clusterNotFoundText(cluster, notFound.region),
      region: notFound.region,
      ...fields,
    });
    // Its "0 pending pods" would be no reading at all: no Kubernetes gauge, and not a cluster scanned.
    return {
      outcome: 'not-found',
      datums: notFoundMetrics({ cluster, snapshot, report }),
    };
  }
  if (unreadable !== undefined) {
    log.warn('cluster unreadable', { unreadable, ...fields });
    // An unreadable cluster's empty snapshot would read as "0 pending pods": only the failure counts.
    return { outcome: 'unreadable', datums: scanFailure(cluster) };
  }
  log.info('cluster scanned', fields);
  return {
    outcome: 'scanned',
    datums: scanMetrics({ cluster, snapshot, report, durationMs, now }),
  };
}

/** One outbox entry per finding about to be acted on (the first of an id, as the alerts count findings). */
function announcementsOf(cluster: string, attempts: readonly Finding[], now: Date): OutboxEntry[] {
  const recordedAt = now.toISOString();
  const byId = new Map<string, OutboxEntry>();
  for (const finding of attempts) {
    const id = `${recordedAt}#${finding.id}#${finding.remediation!.action}`;
    if (!byId.has(id)) byId.set(id, { cluster, id, recordedAt, finding });
  }
  return [...byId.values()];
}

function notAttempted(finding: Finding): Remediation {
  return { ...finding.remediation!, status: 'skipped', reason: 'not attempted: its alert could not be recorded first' };
}

/**
 * What each recorded action did, from the executed report: `applied` or `failed` stays in the
 * outbox to be announced; `skipped` (the executor's fresh re-check said no) did nothing and goes.
 */
async function recordOutcomes(
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
async function deliverAnnouncements(
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

/** Per cluster for the dashboard, and account-wide for the alarm (alarms cannot SEARCH across clusters). */
function scanFailure(cluster: string): MetricDatum[] {
  return [
    { name: METRIC.scanFailures, unit: 'Count', value: 1, dimensions: { Cluster: cluster } },
    { name: METRIC.scanFailures, unit: 'Count', value: 1, dimensions: {} },
  ];
}
