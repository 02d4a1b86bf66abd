import { describe, expect, it, vi } from 'vitest';
import { attemptsText, backoffDelayMs, retry, RetriesExhaustedError, type RetryOptions } from '../../../src/support/retry.ts';
import { steppingClock } from '../../support/clock.ts';

class Transient extends Error {
  readonly retryAfterMs: number | undefined;
  constructor(message: string, retryAfterMs?: number) {
    super(message);
    this.retryAfterMs = retryAfterMs;
  }
}

/** An operation failing with `failures` in turn, then answering 'ok'. */
function failingThen(failures: Error[]) {
  const queue = [...failures];
  return vi.fn(async (_attempt: number) => {
    const next = queue.shift();
    if (next) throw next;
    return 'ok';
  });
}

function setup(overrides: Partial<RetryOptions> = {}) {
  const clock = steppingClock('2026-01-01T00:00:00Z');
  const options: RetryOptions = {
    maxAttempts: 5,
    baseDelayMs: 250,
    maxDelayMs: 8_000,
    clock,
    random: () => 0.5,
    retryable: (e) => e instanceof Transient,
    retryAfterMs: (e) => (e instanceof Transient ? e.retryAfterMs : undefined),
    ...overrides,
  };
  return { clock, options };
}

const transients = (count: number) => Array.from({ length: count }, (_, i) => new Transient(`503 #${i + 1}`));

describe('backoffDelayMs', () => {
  it('is full jitter: anywhere from 0 to a ceiling that doubles from the base up to the cap', () => {
    const backoff = { baseDelayMs: 250, maxDelayMs: 8_000 };

    expect(backoffDelayMs(backoff, 1, () => 0)).toBe(0);
    expect(backoffDelayMs(backoff, 1, () => 0.999999)).toBe(250);
    expect(backoffDelayMs(backoff, 3, () => 0.5)).toBe(500);
    expect(backoffDelayMs(backoff, 3, () => 0.999999)).toBe(1000);
    expect(backoffDelayMs(backoff, 20, () => 0.999999)).toBe(8000);
  });
});

describe('retry', () => {
  it('retries until the operation answers, each wait within its jittered ceiling', async () => {
    // Prepare
    const { clock, options } = setup({ random: () => 0.5 });
    const op = failingThen(transients(3));

    // Act
    const answer = await retry(op, options);

    // Assess
    expect(answer).toBe('ok');
    expect(op).toHaveBeenCalledTimes(4);
    expect(op.mock.calls.map(([n]) => n)).toEqual([1, 2, 3, 4]);
    expect(clock.sleeps).toEqual([125, 250, 500]);
  });

  it('keeps every wait within [0, min(cap, base·2^n)] whatever the random source gives', async () => {
    // Prepare
    const low = setup({ random: () => 0, maxAttempts: 8 });
    const high = setup({ random: () => 0.999999, maxAttempts: 8, baseDelayMs: 1000, maxDelayMs: 4000 });

    // Act
    await retry(failingThen(transients(3)), low.options);
    await retry(failingThen(transients(5)), high.options);

    // Assess: a wait of 0 is not slept
    expect(low.clock.sleeps).toEqual([]);
    expect(high.clock.sleeps).toEqual([1000, 2000, 4000, 4000, 4000]);
  });

  it('waits what Retry-After asks instead of the backoff, cut to maxRetryAfterMs', async () => {
    // Prepare
    const { clock, options } = setup({ maxRetryAfterMs: 30_000 });
    const op = failingThen([new Transient('429', 3_000), new Transient('429', 3_600_000), new Transient('503')]);

    // Act
    await retry(op, options);

    // Assess
    expect(clock.sleeps).toEqual([3_000, 30_000, 500]);
  });

  it('stops early when the next wait would pass the wait budget', async () => {
    // Prepare
    const { clock, options } = setup({ maxTotalWaitMs: 1_000, random: () => 0.999999 });
    const op = failingThen(transients(9));

    // Act
    const error = await retry(op, options).catch((e: unknown) => e);

    // Assess: 250 + 500 waited; 1000 more would pass 1000
    expect(op).toHaveBeenCalledTimes(3);
    expect(clock.sleeps).toEqual([250, 500]);
    expect(error).toBeInstanceOf(RetriesExhaustedError);
    expect(error).toMatchObject({ attempts: 3, reason: 'time', nextDelayMs: 1000 });
  });

  it('does not start a wait longer than the time left before the deadline', async () => {
    // Prepare
    const { clock, options } = setup({ timeLeftMs: () => 10_000 });
    const op = failingThen([new Transient('429', 20_000)]);

    // Act
    const error = await retry(op, options).catch((e: unknown) => e);

    // Assess
    expect(op).toHaveBeenCalledTimes(1);
    expect(clock.sleeps).toEqual([]);
    expect(error).toMatchObject({ attempts: 1, reason: 'time', nextDelayMs: 20_000 });
  });

  it('retries at once when the error asks for no wait, whatever the time left', async () => {
    // Prepare
    const { clock, options } = setup({ timeLeftMs: () => -1 });
    const op = failingThen([new Transient('new URL', 0)]);

    // Act
    const answer = await retry(op, options);

    // Assess
    expect(answer).toBe('ok');
    expect(op).toHaveBeenCalledTimes(2);
    expect(clock.sleeps).toEqual([]);
  });

  it('rethrows an error that is not retryable as it is, without waiting', async () => {
    // Prepare
    const { clock, options } = setup();
    const permanent = new Error('403 Forbidden');
    const op = failingThen([permanent]);

    // Act
    const error = await retry(op, options).catch((e: unknown) => e);

    // Assess
    expect(error).toBe(permanent);
    expect(op).toHaveBeenCalledTimes(1);
    expect(clock.sleeps).toEqual([]);
  });

  it('gives up after maxAttempts with the last error as the cause', async () => {
    // Prepare
    const { clock, options } = setup({ maxAttempts: 3 });
    const failures = transients(9);
    const op = failingThen(failures);

    // Act
    const error = await retry(op, options).catch((e: unknown) => e);

    // Assess
    expect(op).toHaveBeenCalledTimes(3);
    expect(clock.sleeps).toHaveLength(2);
    expect(error).toBeInstanceOf(RetriesExhaustedError);
    expect(error).toMatchObject({ attempts: 3, reason: 'attempts', nextDelayMs: undefined });
    expect((error as Error).cause).toBe(failures[2]);
    expect((error as Error).message).toBe('gave up after 3 attempts: 503 #3');
  });

  it('tells onRetry of each wait before it starts', async () => {
    // Prepare
    const onRetry = vi.fn();
    const { options } = setup({ onRetry });
    const failures = transients(2);

    // Act
    await retry(failingThen(failures), options);

    // Assess
    expect(onRetry.mock.calls).toEqual([
      [{ attempt: 1, error: failures[0], delayMs: 125 }],
      [{ attempt: 2, error: failures[1], delayMs: 250 }],
    ]);
  });
});

describe('attemptsText', () => {
  it('says attempt or attempts', () => {
    expect(attemptsText(1)).toBe('1 attempt');
    expect(attemptsText(3)).toBe('3 attempts');
  });
});
