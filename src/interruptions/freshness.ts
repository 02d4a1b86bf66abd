/**
 * Whether an EventBridge event is still news. EventBridge stamps `time` when it sees the event and
 * delivers it to the queue within seconds, so a record's age is the time it spent in the queue. A
 * record far older than the queue's own retries, or dated ahead of the clock, describes nothing
 * happening now: it is acknowledged and logged, never counted or alerted on (docs/service.md,
 * "Interruptions").
 */
import type { ParsedRecord } from './parse.ts';

/**
 * 30 minutes. Longer than any real delivery takes: the queue's fifth and last receive of a record
 * comes 4 × 390 s (its visibility timeout, infra/queues.yml) = 26 minutes after the first, and a
 * burst under the concurrency cap waits seconds. Fifteen times the two minutes a Spot or
 * capacity-reservation warning gives: the instance such an event announces is long gone.
 */
export const STALE_AFTER_MS = 30 * 60_000;

/** 5 minutes: clock skew between EventBridge and Lambda is far less; more is a forged or mistyped time. */
export const FUTURE_TOLERANCE_MS = 5 * 60_000;

export interface Staleness {
  reason: 'stale' | 'future';
  /** now − the event's time (negative for an event dated in the future). */
  ageMs: number;
}

/**
 * Why the record is not news, or undefined when it is. A scheduled change is news until its
 * maintenance has ended (its end, else its start), however long ago AWS Health announced it.
 */
export function staleness(record: ParsedRecord, now: Date): Staleness | undefined {
  const first = record.events[0];
  if (!first) return undefined;
  const ageMs = now.getTime() - Date.parse(first.time);
  if (ageMs < -FUTURE_TOLERANCE_MS) return { reason: 'future', ageMs };
  if (ageMs <= STALE_AFTER_MS) return undefined;
  const change = first.scheduledChange;
  const over = change?.endTime ?? change?.startTime;
  if (over !== undefined && now.getTime() - Date.parse(over) <= STALE_AFTER_MS) return undefined;
  return { reason: 'stale', ageMs };
}
