import { describe, expect, it } from 'vitest';
import { chunks, mapBounded, slots } from '../../../src/support/concurrency.ts';

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

describe('slots', () => {
  it('runs at most `limit` reads at once; one asked ahead starts before those queued earlier', async () => {
    // Prepare
    const inFlight = slots(2);
    const started: string[] = [];
    const releases = new Map<string, () => void>();
    const read = (name: string) => () => {
      started.push(name);
      return new Promise<string>((resolve) => releases.set(name, () => resolve(name)));
    };
    const settledTurn = () => new Promise((resolve) => setImmediate(resolve));

    // Act
    const reads = [inFlight(read('a')), inFlight(read('b')), inFlight(read('c')), inFlight(read('d'), true)];
    await settledTurn();
    const whileTwoRun = [...started];
    releases.get('a')?.();
    await settledTurn();
    await settledTurn();
    const afterOne = [...started];
    releases.get('b')?.();
    await settledTurn();
    await settledTurn();
    releases.get('c')?.();
    releases.get('d')?.();

    // Assess
    expect(whileTwoRun).toEqual(['a', 'b']);
    expect(afterOne).toEqual(['a', 'b', 'd']);
    expect(await Promise.all(reads)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('frees the slot of a read that failed', async () => {
    const inFlight = slots(1);

    const failed = inFlight(() => Promise.reject(new Error('403 Forbidden')));
    const next = inFlight(() => Promise.resolve('read'));

    await expect(failed).rejects.toThrow('403 Forbidden');
    expect(await next).toBe('read');
  });
});
