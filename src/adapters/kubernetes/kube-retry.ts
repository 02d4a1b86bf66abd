/**
 * Bounded retries for transient Kubernetes API failures, through the shared retry helper: capped
 * exponential backoff with full jitter, the server's Retry-After when it gives one, and a cap on the
 * total time spent waiting.
 */
import { SourceError } from '../../ports/errors.ts';
import { attemptsText, retry, RetriesExhaustedError, type Backoff, type RetryClock } from '../../support/retry.ts';
import { TransientKubeError } from './kube-errors.ts';
import { noteRetries } from '../calls/call-retries.ts';

export interface RetryPolicy extends Backoff {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  /** Never sleep more than this in all for one call; a longer Retry-After ends the retries. */
  maxTotalWaitMs: number;
}

export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = {
  maxAttempts: 5,
  baseDelayMs: 250,
  maxDelayMs: 8_000,
  maxTotalWaitMs: 30_000,
};

export interface RetryEnvironment {
  policy: RetryPolicy;
  sleep: RetryClock['sleep'];
  /** In [0, 1); injectable so tests know the delays. */
  random: () => number;
}

/** `attempt` gets the attempt number (1-based); only TransientKubeError is retried. */
export async function withRetries<T>(attempt: (attemptNumber: number) => Promise<T>, env: RetryEnvironment): Promise<T> {
  try {
    return await retry(attempt, {
      ...env.policy,
      clock: { sleep: env.sleep },
      random: env.random,
      retryable: (err) => err instanceof TransientKubeError,
      retryAfterMs: (err) => (err as TransientKubeError).retryAfterMs,
      // The measured call this runs in counts its retries (ApiCallRetries).
      onRetry: () => noteRetries(1),
    });
  } catch (err) {
    if (!(err instanceof RetriesExhaustedError)) throw err;
    const last = err.cause as TransientKubeError;
    const tried = `after ${attemptsText(err.attempts)}`;
    throw gaveUp(
      last,
      err.reason === 'attempts'
        ? tried
        : `${tried}; next retry in ${Math.ceil((err.nextDelayMs ?? 0) / 1000)}s exceeds the wait budget`,
    );
  }
}

function gaveUp(err: TransientKubeError, why: string): SourceError {
  return new SourceError(`${err.error.summary} (${why})`, { code: err.error.code, cause: err.error });
}
