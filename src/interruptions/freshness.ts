/**
 * Whether an EventBridge event is still news. EventBridge stamps `time` when it sees the event and
 * delivers it to the queue within seconds, so a record's age when the queue first hands it out is
 * the time it waited there. A record already old then, or dated ahead of the clock, describes
 * nothing happening now: it is acknowledged and logged, never counted or alerted on
 * (docs/service.md, "Interruptions"). Its retries are judged as of that first receive, so a record
 * that was fresh then is acted on however long its retries take (throttling, the concurrency cap).
 */
import type { ParsedRecord } from './parse.ts';

/**
 * 30 minutes between the event and its first receive. A real delivery waits seconds (minutes at
 * most, a mass reclaim queued behind the concurrency cap); fifteen times the two minutes a Spot or
 * capacity-reservation warning gives, the instance such an event announces is long gone.
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
 * Why the record is not news, or undefined when it is. Its age is taken at its first receive
 * (SQS's ApproximateFirstReceiveTimestamp; now when not given, or when later than now). A scheduled
 * change with a maintenance time is news until 30 minutes after its maintenance has ended (its
 * end, else its start), however long ago AWS Health announced it.
 */
export function staleness(record: ParsedRecord, now: Date, firstReceivedAt?: Date): Staleness | undefined {
  const first = record.events[0];
  if (!first) return undefined;
  const time = Date.parse(first.time);
  const ageNow = now.getTime() - time;
  if (ageNow < -FUTURE_TOLERANCE_MS) return { reason: 'future', ageMs: ageNow };
  const change = first.scheduledChange;
  const over = change?.endTime ?? change?.startTime;
  // A maintenance window is judged by the clock: news until it has ended, whenever received.
  if (over !== undefined) {
    return ageNow <= STALE_AFTER_MS || now.getTime() - Date.parse(over) <= STALE_AFTER_MS
      ? undefined
      : { reason: 'stale', ageMs: ageNow };
  }
  const ageMs = Math.min(now.getTime(), firstReceivedAt?.getTime() ?? Number.POSITIVE_INFINITY) - time;
  return ageMs <= STALE_AFTER_MS ? undefined : { reason: 'stale', ageMs };
}
