import { describe, expect, it } from 'vitest';
import { chunks, mapBounded } from '../../../src/support/concurrency.ts';

describe('mapBounded', () => {
  it('keeps the input order and runs at most `limit` at once', async () => {
    // Prepare
    let inFlight = 0;
    let most = 0;

    // Act
    const out = await mapBounded([5, 1, 4, 2, 3], 2, async (n) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((resolve) => setTimeout(resolve, n));
      inFlight--;
      return n * 10;
    });

    // Assess
    expect(out).toEqual([50, 10, 40, 20, 30]);
    expect(most).toBe(2);
  });

  it('rejects with the first failure and starts nothing after it', async () => {
    const started: number[] = [];

    const outcome = mapBounded([1, 2, 3, 4], 1, async (n) => {
      started.push(n);
      if (n === 2) throw new Error('boom');
      return n;
    });

    await expect(outcome).rejects.toThrow('boom');
    expect(started).toEqual([1, 2]);
  });

  it('chunks', () => {
    expect(chunks([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(chunks([], 50)).toEqual([]);
  });
});
