/** Capped exponential backoff, shared by every retry loop (Kubernetes API calls, Slack posts). */

export interface Backoff {
  baseDelayMs: number;
  maxDelayMs: number;
}

/**
 * The wait after `failures` failed attempts: "equal jitter" (half fixed, half random) so that
 * many clients back off apart from each other but never retry immediately. `random` is in [0, 1).
 */
export function backoffDelayMs(backoff: Backoff, failures: number, random: () => number): number {
  const ceiling = Math.min(backoff.maxDelayMs, backoff.baseDelayMs * 2 ** Math.max(0, failures - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** `1 attempt`, `3 attempts`: for messages that say how hard something was tried. */
export function attemptsText(count: number): string {
  return count === 1 ? '1 attempt' : `${count} attempts`;
}
