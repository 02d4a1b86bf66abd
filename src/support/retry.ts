/**
 * The one retry loop (Kubernetes API calls, Slack posts, DynamoDB unprocessed keys): capped
 * exponential backoff with full jitter on an injected clock, the server's Retry-After when the
 * caller can read one from the error, a bound on attempts and on the time spent waiting, and a
 * deadline hook. Giving up rejects with RetriesExhaustedError, the last error as its `cause`; an
 * error the caller's `retryable` refuses is rethrown as it is.
 */

export interface Backoff {
  /** The ceiling of the first wait; each further one doubles, up to `maxDelayMs`. */
  baseDelayMs: number;
  maxDelayMs: number;
}

export interface RetryPolicy extends Backoff {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  /**
   * The most time spent waiting in all, the sum of the sleeps (the attempts' own time is bounded by
   * their timeouts, which may be as long as this): a wait that would pass it ends the retries.
   */
  maxTotalWaitMs?: number;
  /** A Retry-After is honoured up to this; a longer one is cut to it. */
  maxRetryAfterMs?: number;
}

/** The clock's part retries need; ports/clock.ts's Clock is one. */
export interface RetryClock {
  sleep(ms: number): Promise<void>;
}

export interface RetryOptions extends RetryPolicy {
  clock: RetryClock;
  /** Whether another attempt can help; an error it refuses is rethrown at once. */
  retryable: (error: unknown) => boolean;
  /** The wait the error asks for (a Retry-After, in ms), which replaces the backoff; undefined when none. */
  retryAfterMs?: (error: unknown) => number | undefined;
  /** Time left before the caller's deadline: a wait longer than this ends the retries (one of 0 never does). */
  timeLeftMs?: () => number;
  /** In [0, 1): the jitter's source. */
  random?: () => number;
  /** Told before each wait (to log it). */
  onRetry?: (retry: { attempt: number; error: unknown; delayMs: number }) => void;
}

/** The retries ran out: `cause` is the last attempt's error. */
export class RetriesExhaustedError extends Error {
  override name = 'RetriesExhaustedError';
  /** Attempts made, the first included. */
  readonly attempts: number;
  /** `attempts`: the bound was reached; `time`: the next wait would pass the wait budget or the deadline. */
  readonly reason: 'attempts' | 'time';
  /** The wait that was not started, when `reason` is `time`. */
  readonly nextDelayMs: number | undefined;

  constructor(cause: unknown, attempts: number, reason: 'attempts' | 'time', nextDelayMs?: number) {
    const why = reason === 'attempts' ? '' : `; no time left to wait ${nextDelayMs} ms`;
    super(`gave up after ${attemptsText(attempts)}${why}: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    });
    this.attempts = attempts;
    this.reason = reason;
    this.nextDelayMs = nextDelayMs;
  }
}

/**
 * The wait after `failures` failed attempts: "full jitter", anywhere in [0, ceiling], the ceiling
 * doubling from `baseDelayMs` up to `maxDelayMs`, so that many clients spread out. `random` is in [0, 1).
 */
export function backoffDelayMs(backoff: Backoff, failures: number, random: () => number): number {
  const ceiling = Math.min(backoff.maxDelayMs, backoff.baseDelayMs * 2 ** Math.max(0, failures - 1));
  return Math.round(random() * ceiling);
}

/** Runs `attempt` (given its number, from 1) until it resolves, or the retries run out. */
export async function retry<T>(attempt: (attemptNumber: number) => Promise<T>, options: RetryOptions): Promise<T> {
  const random = options.random ?? Math.random;
  let waitedMs = 0;
  for (let attemptNumber = 1; ; attemptNumber += 1) {
    try {
      return await attempt(attemptNumber);
    } catch (error) {
      if (!options.retryable(error)) throw error;
      if (attemptNumber >= options.maxAttempts) throw new RetriesExhaustedError(error, attemptNumber, 'attempts');
      const asked = options.retryAfterMs?.(error);
      const delayMs =
        asked !== undefined
          ? Math.min(asked, options.maxRetryAfterMs ?? Infinity)
          : backoffDelayMs(options, attemptNumber, random);
      const overBudget = options.maxTotalWaitMs !== undefined && waitedMs + delayMs > options.maxTotalWaitMs;
      const pastDeadline = options.timeLeftMs !== undefined && delayMs > 0 && delayMs > options.timeLeftMs();
      if (overBudget || pastDeadline) throw new RetriesExhaustedError(error, attemptNumber, 'time', delayMs);
      options.onRetry?.({ attempt: attemptNumber, error, delayMs });
      if (delayMs > 0) await options.clock.sleep(delayMs);
      waitedMs += delayMs;
    }
  }
}

/** `1 attempt`, `3 attempts`: for messages that say how hard something was tried. */
export function attemptsText(count: number): string {
  return count === 1 ? '1 attempt' : `${count} attempts`;
}
