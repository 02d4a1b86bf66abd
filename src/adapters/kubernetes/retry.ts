/**
 * Bounded retries for transient Kubernetes API failures: capped exponential backoff with jitter,
 * the server's Retry-After when it gives one, and a cap on the total time spent waiting.
 */
import { SourceError } from '../../ports/errors.ts';
import { attemptsText, backoffDelayMs, type Backoff } from '../../support/backoff.ts';
import { TransientKubeError } from './kube-errors.ts';

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
  sleep: (ms: number) => Promise<void>;
  /** In [0, 1); injectable so tests know the delays. */
  random: () => number;
}

/** `attempt` gets the attempt number (1-based); only TransientKubeError is retried. */
export async function withRetries<T>(attempt: (attemptNumber: number) => Promise<T>, env: RetryEnvironment): Promise<T> {
  let waitedMs = 0;
  for (let attemptNumber = 1; ; attemptNumber += 1) {
    try {
      return await attempt(attemptNumber);
    } catch (err) {
      if (!(err instanceof TransientKubeError)) throw err;
      if (attemptNumber >= env.policy.maxAttempts) throw gaveUp(err, `after ${attemptsText(attemptNumber)}`);
      const delayMs = err.retryAfterMs ?? backoffDelayMs(env.policy, attemptNumber, env.random);
      if (waitedMs + delayMs > env.policy.maxTotalWaitMs) {
        throw gaveUp(
          err,
          `after ${attemptsText(attemptNumber)}; next retry in ${Math.ceil(delayMs / 1000)}s exceeds the wait budget`,
        );
      }
      await env.sleep(delayMs);
      waitedMs += delayMs;
    }
  }
}

function gaveUp(err: TransientKubeError, why: string): SourceError {
  return new SourceError(`${err.error.summary} (${why})`, { code: err.error.code, cause: err.error });
}
