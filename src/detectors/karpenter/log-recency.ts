import type { LogLine } from '../../domain/aws.ts';

/**
 * When a controller log line no longer describes the present. controller-runtime retries a failed
 * reconcile with exponential backoff capped at 1000 s (~17 min), so a failure that still happens
 * shows up again well within an hour. A failure whose last line is more than an hour older than the
 * newest line of the same logs has stopped: most likely fixed (a permission granted, capacity back).
 * The capture's own newest line is the reference, not the clock: a log analysed days later is
 * judged as of when it was taken. Lines without a time cannot be judged and always count.
 */
const LOG_STALE_AFTER_MS = 60 * 60_000;

export function newestLogTime(logs: readonly LogLine[]): number | undefined {
  let newest: number | undefined;
  for (const line of logs) {
    const t = Date.parse(line.time ?? '');
    if (!Number.isNaN(t) && (newest === undefined || t > newest)) newest = t;
  }
  return newest;
}

/** True when every one of `times` is known and the latest lies more than LOG_STALE_AFTER_MS before `newest`. */
export function stoppedRecurring(times: readonly (string | undefined)[], newest: number | undefined): boolean {
  if (newest === undefined || times.length === 0) return false;
  let latest = -Infinity;
  for (const time of times) {
    const t = Date.parse(time ?? '');
    if (Number.isNaN(t)) return false;
    latest = Math.max(latest, t);
  }
  return newest - latest > LOG_STALE_AFTER_MS;
}
