/**
 * The scan function's use case: each SQS record claimed once (idempotency), each cluster scanned
 * under its lease, the scan itself a list of steps (scan-steps/scan-one.ts), the batch's metrics
 * written once.
 */
import type { ScanRequest } from '../ports/notify.ts';
import type { ClusterRecordsSummary } from '../ports/state.ts';
import type { Logger } from '../support/logger.ts';
import { errorFields } from '../support/logger.ts';
import { InvocationTimeoutError, isInvocationTimeout } from '../support/abort.ts';
import { mapBounded } from '../support/concurrency.ts';
import type { RecordResult, ScanOutcome, ScanServiceDependencies } from './scan-steps/context.ts';
import { scanFailure } from './scan-steps/result.ts';
import { scanOne } from './scan-steps/scan-one.ts';
import { parseScanRequest, scanDeliveryKey } from './scan-request.ts';

export type { ScanServiceDependencies, ServiceConnection } from './scan-steps/context.ts';
export { CLUSTER_STATUS_TTL_MS } from './scan-steps/controller-status.ts';

/** Clusters scanned at once by one invocation: each scan already runs 8 calls in parallel. */
const SCAN_CONCURRENCY = 4;

/** One scan-queue message as the handler decoded it from SQS. */
export interface ScanDelivery {
  messageId: string;
  body: string;
  /** SQS ApproximateReceiveCount (1 on the first delivery). */
  receiveCount: number;
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

export interface ScanBatchResult {
  /** Message ids to report as batch item failures (SQS delivers them again, then to the DLQ). */
  failedMessageIds: string[];
  counts: Record<ScanOutcome, number>;
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
    return await scanUnderLease(deps, request, key, `${options.invocationId}/${delivery.messageId}`, now, log, options.signal);
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
  key: string,
  holder: string,
  now: Date,
  log: Logger,
  signal: AbortSignal | undefined,
): Promise<RecordResult> {
  const { state, settings, clock } = deps;
  const lease = await state.acquireLease(request.cluster, holder, clock.now(), settings.scanLeaseMs);
  if (!lease.acquired) {
    log.info('scan skipped: another scan of the cluster holds its lease', { leaseHolder: lease.holder ?? 'unknown' });
    await state.completeDelivery(key, clock.now(), settings.idempotencyTtlMs);
    return { outcome: 'stepped-aside', datums: [] };
  }
  if (lease.lapsedHolder !== undefined) {
    // That holder may still be writing the cluster's records after this scan read them: no summary describes them.
    log.warn('scan lease taken from a holder whose lease lapsed; the next scan reads every record', {
      lapsedHolder: lease.lapsedHolder,
    });
  }
  // Left with the lease only by a scan that completed, under a lease no lapsed holder had: else the next scan reads everything.
  let summary: ClusterRecordsSummary | undefined;
  try {
    const scanned = await scanOne({ deps, cluster: request.cluster, now, log, signal }, lease.summary);
    if (lease.lapsedHolder === undefined) summary = scanned.summary;
    await state.completeDelivery(key, clock.now(), settings.idempotencyTtlMs);
    return scanned.result;
  } finally {
    // If this fails, the lease lapses after scanLeaseMs: the next scans step aside until then.
    await state
      .releaseLease(request.cluster, holder, summary)
      .catch((e: unknown) => log.warn('scan lease not released', errorFields(e)));
  }
}
