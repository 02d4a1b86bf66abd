import { describe, expect, it } from 'vitest';
import { attemptsText, backoffDelayMs } from '../../../src/support/backoff.ts';

const BACKOFF = { baseDelayMs: 250, maxDelayMs: 8_000 };

describe('backoffDelayMs', () => {
  it('doubles from the base, stays within [ceiling/2, ceiling] and is capped', () => {
    expect(backoffDelayMs(BACKOFF, 1, () => 0)).toBe(125);
    expect(backoffDelayMs(BACKOFF, 1, () => 0.999999)).toBe(250);
    expect(backoffDelayMs(BACKOFF, 3, () => 0)).toBe(500);
    expect(backoffDelayMs(BACKOFF, 3, () => 0.999999)).toBe(1000);
    expect(backoffDelayMs(BACKOFF, 20, () => 0.999999)).toBe(8000);
  });
});

describe('attemptsText', () => {
  it('says attempt or attempts', () => {
    expect(attemptsText(1)).toBe('1 attempt');
    expect(attemptsText(3)).toBe('3 attempts');
  });
});
