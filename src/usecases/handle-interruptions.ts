/**
 * One batch of the sentinel's interruption queue: parse each record, skip the deliveries already
 * processed, resolve every instance of the batch with ONE DescribeInstances call, count by cluster,
 * NodePool and kind (the metrics of the batch in one go), and alert on what needs a human.
 *
 * Failure semantics (SQS partial batch response): a malformed record fails alone; a failing AWS or
 * state-store call fails the records it affects and releases their claims, so the retry processes
 * them again; nothing is dropped silently. Metrics failing fail nothing (a warning: the counts are
 * not worth a second alert). When the invocation's signal aborts (its deadline is near), the
 * records not done fail and are retried; their claims lapse after `claimHoldMs`. The surge counters are the one thing a retry may add to
 * twice (an increment cannot be taken back); the surge alert itself is claimed, so it goes out once.
 */
import type { Severity } from '../domain/codes.ts';
import type { Instance } from '../domain/aws.ts';
import { planAlerts, type SurgeGroup } from '../notify/interruption-alert-plan.ts';
import { Batch, type Delivery } from '../interruptions/batch.ts';
import { isParseError } from '../interruptions/event.ts';
import { resolveEvent } from '../interruptions/owner.ts';
import { parseRecord, type ParsedRecord } from '../interruptions/parse.ts';
import { FUTURE_TOLERANCE_MS, STALE_AFTER_MS, staleness } from '../interruptions/freshness.ts';
import { surgeAlertKey, surgeCounterKey, windowExpiry, windowStartOf } from '../interruptions/surge-window.ts';
import { alertWanted, SURGE_KINDS, UNATTENDED_KINDS } from '../notify/interruption-alerts.ts';
import { interruptionMetrics } from '../notify/interruption-metrics.ts';
import type { AlertSettings } from '../domain/settings.ts';
import type { Ec2Port } from '../ports/aws.ts';
import type { Clock } from '../ports/clock.ts';
import type { AlertPublisher, MetricsSink } from '../ports/notify.ts';
import type { ClusterStatus, ClusterStatusStore, IdempotencyStore, WindowCounterStore } from '../ports/state.ts';
import { errorFields, type Logger } from '../support/logger.ts';
import { InvocationTimeoutError } from '../support/abort.ts';

export interface InterruptionSettings {
  surgeThreshold: number;
  surgeWindowMs: number;
  controllerStatusMaxAgeMs: number;
  idempotencyTtlMs: number;
  minSeverity: Severity;
}

/** The use case's settings out of the function's validated configuration. */
export function interruptionSettings(
  config: Omit<InterruptionSettings, 'minSeverity'> & { alerts: Pick<AlertSettings, 'minSeverity'> },
): InterruptionSettings {
  return {
    surgeThreshold: config.surgeThreshold,
    surgeWindowMs: config.surgeWindowMs,
    controllerStatusMaxAgeMs: config.controllerStatusMaxAgeMs,
    idempotencyTtlMs: config.idempotencyTtlMs,
    minSeverity: config.alerts.minSeverity,
  };
}

/** The state the interruptions function uses: claims, the statuses scans saved, window counters. */
type InterruptionsStateStore = IdempotencyStore & Pick<ClusterStatusStore, 'clusterStatuses'> & WindowCounterStore;

export interface InterruptionsDependencies {
  ec2: Ec2Port;
  state: InterruptionsStateStore;
  alerts: AlertPublisher;
  metrics: MetricsSink;
  clock: Clock;
  logger: Logger;
  settings: InterruptionSettings;
}

export interface QueueRecord {
  messageId: string;
  body: string;
  /** When SQS first handed the message out (ApproximateFirstReceiveTimestamp): a retry is judged as of then. */
  firstReceivedAt?: Date | undefined;
}

export interface InterruptionsResult {
  /** messageIds to report as batch item failures, in record order. */
  failed: string[];
  summary: {
    records: number;
    counted: number;
    ignored: number;
    duplicates: number;
    /** Acknowledged without being counted or alerted: older than STALE_AFTER_MS, or dated in the future. */
    stale: number;
    future: number;
    alerts: number;
    failed: number;
  };
}

export interface HandleInterruptionsOptions {
  /** How long a claim holds if this invocation dies mid-way (the handler passes its remaining time). */
  claimHoldMs: number;
  /** Aborted when the invocation must stop: the records not done yet fail (batch item failures). */
  signal?: AbortSignal;
}

export async function handleInterruptions(
  deps: InterruptionsDependencies,
  records: readonly QueueRecord[],
  options: HandleInterruptionsOptions,
): Promise<InterruptionsResult> {
  const { state, logger } = deps;
  const now = deps.clock.now();
  const batch = new Batch(logger);
  const summary = { records: records.length, counted: 0, ignored: 0, duplicates: 0, stale: 0, future: 0, alerts: 0, failed: 0 };

  const unique = new Map<string, Delivery>();
  for (const record of records) {
    const parsed = parseRecord(record);
    if (isParseError(parsed)) {
      batch.malformed(record.messageId, parsed.code, parsed.message);
    } else if (parsed.events.length === 0) {
      summary.ignored += 1;
    } else if (notNews(parsed, record, now, logger, summary)) {
      // acknowledged: retrying cannot make it news, and the DLQ is for what could not be read
    } else if (unique.has(parsed.eventId)) {
      summary.duplicates += 1; // the same event twice in one batch: the first record carries it
    } else {
      unique.set(parsed.eventId, {
        messageId: record.messageId,
        key: `event#${parsed.eventId}`,
        events: parsed.events,
        resolved: [],
      });
    }
  }

  await Promise.all(
    [...unique.values()].map(async (d) => {
      try {
        const claim = await state.claimDelivery(d.key, now, options.claimHoldMs);
        if (claim === 'claimed') batch.claimed(d);
        else if (claim === 'done') summary.duplicates += 1;
        else batch.fail([d], 'another invocation is processing this event; retried later', false);
      } catch (error) {
        batch.fail([d], `claimDelivery failed: ${errorFields(error).error}`, false);
      }
    }),
  );

  // After each step, an aborted invocation fails what is left (the step's own calls were aborted too).
  const stopIfAborted = () => {
    if (!options.signal?.aborted) return false;
    const error = new InvocationTimeoutError('stopped before the invocation’s deadline', { cause: options.signal.reason });
    batch.fail(batch.active, `${error.name}: ${error.message}; retried`);
    return true;
  };
  let groups: SurgeGroup[] = [];
  let published = false;
  if (!stopIfAborted()) {
    await resolveInstances(deps.ec2, batch);
    const statuses = stopIfAborted() ? new Map<string, ClusterStatus>() : await loadStatuses(state, batch);
    if (!stopIfAborted()) groups = await countSurges(deps, batch, now, options.claimHoldMs);
    if (!stopIfAborted()) {
      const reported = await report(deps, batch, groups, statuses, now);
      summary.counted = reported.counted;
      summary.alerts = reported.alerts;
      published = reported.published;
    }
  }

  if (options.signal?.aborted) {
    // No state call can be made now: the claims lapse on their own after claimHoldMs, then the retries go ahead.
    logger.warn('invocation deadline: records left unfinished are retried once their claims lapse', {
      claimHoldMs: options.claimHoldMs,
      records: batch.toRelease.length + batch.active.length,
    });
  } else {
    await finish(deps, batch, groups, published, now);
  }
  const failed = batch.failedOf(records.map((r) => r.messageId));
  summary.failed = failed.length;
  logger.info('interruptions handled', { ...summary, ...(options.signal?.aborted ? { timedOut: true } : {}) });
  return { failed, summary };
}

/** A stale or future-dated record: one warning naming it, counted in the summary; true when so. */
function notNews(
  parsed: ParsedRecord,
  { messageId, firstReceivedAt }: QueueRecord,
  now: Date,
  logger: Logger,
  summary: { stale: number; future: number },
): boolean {
  const late = staleness(parsed, now, firstReceivedAt);
  if (!late) return false;
  summary[late.reason] += 1;
  const [first] = parsed.events;
  logger.warn(late.reason === 'stale' ? 'stale event not acted on' : 'future-dated event not acted on', {
    messageId,
    eventId: parsed.eventId,
    kind: parsed.kind,
    time: first?.time,
    ageSeconds: Math.round(late.ageMs / 1000),
    ...(firstReceivedAt ? { firstReceivedAt: firstReceivedAt.toISOString() } : {}),
    instances: parsed.events.length,
    ...(late.reason === 'stale'
      ? { staleAfterSeconds: STALE_AFTER_MS / 1000 }
      : { futureToleranceSeconds: FUTURE_TOLERANCE_MS / 1000 }),
  });
  return true;
}

/** ONE DescribeInstances for every instance of the batch; when it fails, every claimed record fails. */
async function resolveInstances(ec2: Ec2Port, batch: Batch): Promise<void> {
  const instanceIds = [...new Set(batch.active.flatMap((d) => d.events.map((e) => e.instanceId)))];
  if (instanceIds.length === 0) return;
  let instances: Instance[];
  try {
    instances = await ec2.describeInstances({ instanceIds });
  } catch (error) {
    batch.fail(batch.active, `DescribeInstances failed: ${errorFields(error).error}`);
    return;
  }
  const byId = new Map(instances.map((i) => [i.id, i]));
  for (const d of batch.active) d.resolved = d.events.map((e) => resolveEvent(e, byId));
}

/** The saved controller status of each Karpenter cluster with an event nobody may drain: one read. */
async function loadStatuses(state: InterruptionsStateStore, batch: Batch): Promise<Map<string, ClusterStatus>> {
  const unattended = (d: Delivery) => d.resolved.filter((e) => e.karpenter && UNATTENDED_KINDS.has(e.kind));
  const clusters = [...new Set(batch.active.flatMap((d) => unattended(d).map((e) => e.cluster)))].sort();
  if (clusters.length === 0) return new Map();
  try {
    return await state.clusterStatuses(clusters);
  } catch (error) {
    batch.fail(
      batch.active.filter((d) => unattended(d).length > 0),
      `reading the controller status failed: ${errorFields(error).error}`,
    );
    return new Map();
  }
}

/** Adds this batch to each window's counter; the invocation whose count reaches the threshold claims the alert. */
async function countSurges(deps: InterruptionsDependencies, batch: Batch, now: Date, holdMs: number): Promise<SurgeGroup[]> {
  const { state, settings } = deps;
  const groups = new Map<string, SurgeGroup>();
  for (const d of batch.active) {
    for (const e of d.resolved) {
      if (!e.karpenter || !SURGE_KINDS.has(e.kind)) continue;
      const start = windowStartOf(e.time, now, settings.surgeWindowMs);
      const key = surgeCounterKey(e.cluster, e.nodePool, start);
      const group = groups.get(key) ?? { cluster: e.cluster, nodePool: e.nodePool, start, events: [], deliveries: new Set() };
      group.events.push(e);
      group.deliveries.add(d);
      groups.set(key, group);
    }
  }
  const wanted = alertWanted('INTERRUPTION_SURGE', settings.minSeverity);
  await Promise.all(
    [...groups.entries()].map(async ([key, g]) => {
      const expiresAt = windowExpiry(g.start, now, settings.surgeWindowMs);
      try {
        g.total = await state.addToWindow(key, g.events.length, expiresAt);
        if (!wanted || g.total < settings.surgeThreshold) return;
        const alertKey = surgeAlertKey(g.cluster, g.nodePool, g.start);
        if ((await state.claimDelivery(alertKey, now, holdMs)) === 'claimed') g.alertKey = alertKey;
      } catch (error) {
        batch.fail([...g.deliveries], `counting the surge window ${key} failed: ${errorFields(error).error}`);
      }
    }),
  );
  return [...groups.values()];
}

/** The batch's metrics at once (a failure there is only a warning), then its alerts in one publish; a publish failure fails the records it concerns. */
async function report(
  deps: InterruptionsDependencies,
  batch: Batch,
  groups: readonly SurgeGroup[],
  statuses: ReadonlyMap<string, ClusterStatus>,
  now: Date,
): Promise<{ counted: number; alerts: number; published: boolean }> {
  const events = batch.active.flatMap((d) => d.resolved);
  const datums = interruptionMetrics(events);
  if (datums.length > 0) {
    try {
      await deps.metrics.put(datums, now);
    } catch (error) {
      // A metrics problem never fails a record: the events are still alerted on, and counted once.
      deps.logger.warn('metrics not written', { datums: datums.length, ...errorFields(error) });
    }
  }
  const counted = events.length;
  const planned = planAlerts(batch.active, groups, statuses, deps.settings, now);
  if (planned.length === 0) return { counted, alerts: 0, published: true };
  try {
    await deps.alerts.publish(planned.map((p) => p.alert));
  } catch (error) {
    batch.fail(
      [...new Set(planned.flatMap((p) => p.from))],
      `publishing ${planned.length} alert(s) failed: ${errorFields(error).error}`,
    );
    return { counted, alerts: 0, published: false };
  }
  return { counted, alerts: planned.length, published: true };
}

/** Completes what succeeded, releases what failed (so its retry runs again), and settles the surge-alert claims. */
async function finish(
  deps: InterruptionsDependencies,
  batch: Batch,
  groups: readonly SurgeGroup[],
  published: boolean,
  now: Date,
) {
  const { state, settings, logger } = deps;
  const settle = async (what: string, call: () => Promise<void>) => {
    try {
      await call();
    } catch (error) {
      // A completion lost means at worst one reprocessing after the claim lapses; a release lost, a retry waiting for it.
      logger.warn(`${what} failed`, { error: errorFields(error).error });
    }
  };
  await Promise.all([
    ...batch.active.map((d) =>
      settle(`completing ${d.key}`, () => state.completeDelivery(d.key, now, settings.idempotencyTtlMs)),
    ),
    ...batch.toRelease.map((d) => settle(`releasing ${d.key}`, () => state.releaseDelivery(d.key))),
    ...groups.flatMap((g) => {
      const key = g.alertKey;
      if (!key) return [];
      const ttlMs = windowExpiry(g.start, now, settings.surgeWindowMs).getTime() - now.getTime();
      return [
        published
          ? settle(`completing ${key}`, () => state.completeDelivery(key, now, ttlMs))
          : settle(`releasing ${key}`, () => state.releaseDelivery(key)),
      ];
    }),
  ]);
}
