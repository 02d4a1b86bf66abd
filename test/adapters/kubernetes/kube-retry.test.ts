import { describe, expect, it, vi } from 'vitest';
import { TransientKubeError } from '../../../src/adapters/kubernetes/kube-errors.ts';
import { DEFAULT_RETRY_POLICY, withRetries } from '../../../src/adapters/kubernetes/kube-retry.ts';
import type { RetryPolicy } from '../../../src/adapters/kubernetes/kube-retry.ts';
import { KubeConflictError, SourceError } from '../../../src/ports/errors.ts';

const POLICY: RetryPolicy = { maxAttempts: 5, baseDelayMs: 250, maxDelayMs: 8_000, maxTotalWaitMs: 30_000 };

function transient(summary = '503 Service Unavailable', retryAfterMs?: number): TransientKubeError {
  return new TransientKubeError(new SourceError(summary, { code: summary.slice(0, 3) }), retryAfterMs);
}

/** An operation failing with `failures` in turn, then answering 'ok'. */
function failingThen(failures: Error[]) {
  const queue = [...failures];
  return vi.fn(async () => {
    const next = queue.shift();
    if (next) throw next;
    return 'ok';
  });
}

function env(random = () => 0.5) {
  const sleeps: number[] = [];
  return { sleeps, env: { policy: POLICY, random, sleep: vi.fn(async (ms: number) => void sleeps.push(ms)) } };
}

describe('withRetries', () => {
  it('retries transient failures with growing delays and returns the answer', async () => {
    const { sleeps, env: retryEnv } = env(() => 0.5);
    const op = failingThen([transient(), transient(), transient()]);

    await expect(withRetries(op, retryEnv)).resolves.toBe('ok');

    expect(op).toHaveBeenCalledTimes(4);
    // Full jitter: random() = 0.5 is half of each ceiling (250, 500, 1000).
    expect(sleeps).toEqual([125, 250, 500]);
  });

  it('sleeps exactly the Retry-After the server asked for', async () => {
    const { sleeps, env: retryEnv } = env();
    const op = failingThen([transient('429 Too Many Requests', 3000)]);

    await withRetries(op, retryEnv);

    expect(sleeps).toEqual([3000]);
  });

  it('gives up after the attempt bound with a SourceError naming the last failure', async () => {
    const { sleeps, env: retryEnv } = env();
    const op = failingThen(Array.from({ length: 9 }, () => transient('500 Internal Server Error: etcd timeout')));

    const error = await withRetries(op, retryEnv).catch((e: unknown) => e);

    expect(op).toHaveBeenCalledTimes(DEFAULT_RETRY_POLICY.maxAttempts);
    expect(sleeps).toHaveLength(4);
    expect(error).toBeInstanceOf(SourceError);
    expect(error).not.toBeInstanceOf(TransientKubeError);
    expect((error as SourceError).summary).toBe('500 Internal Server Error: etcd timeout (after 5 attempts)');
    expect((error as SourceError).code).toBe('500');
  });

  it('gives up at once when Retry-After would exceed the total wait budget', async () => {
    const { sleeps, env: retryEnv } = env();
    const op = failingThen([transient('429 Too Many Requests', 31_000)]);

    const error = await withRetries(op, retryEnv).catch((e: unknown) => e);

    expect(op).toHaveBeenCalledTimes(1);
    expect(sleeps).toEqual([]);
    expect((error as SourceError).summary).toMatch(
      /^429 Too Many Requests \(after 1 attempt; next retry in 31s exceeds the wait budget\)$/,
    );
  });

  it('does not retry permanent failures', async () => {
    const { sleeps, env: retryEnv } = env();
    const conflict = new KubeConflictError('409 Conflict: the object has been modified', { code: '409' });
    const op = failingThen([conflict]);

    await expect(withRetries(op, retryEnv)).rejects.toBe(conflict);

    expect(op).toHaveBeenCalledTimes(1);
    expect(sleeps).toEqual([]);
  });
});
