/** `map` with at most `limit` calls in flight, results in input order; rejects with the first failure. */
export async function mapBounded<T, R>(items: readonly T[], limit: number, map: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    while (!failed && next < items.length) {
      const index = next++;
      try {
        results[index] = await map(items[index] as T);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** `[a, b, c, d, e]`, 2 → `[[a, b], [c, d], [e]]`. */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export interface Settled<T> {
  promise: Promise<T>;
  /** The first call counts; later ones do nothing. */
  resolve(value: T): void;
}

/** A promise, and the function that settles it from outside (when some other work is done). */
export function settled<T>(): Settled<T> {
  let resolve: (value: T) => void = () => {};
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve: (value) => resolve(value) };
}

/** Runs `read` once a slot is free; `ahead` puts it before the reads already waiting. */
export type Slots = <T>(read: () => Promise<T>, ahead?: boolean) => Promise<T>;

/**
 * At most `limit` reads in flight, the waiting ones started in the order asked, those asked `ahead`
 * first (reads others waited on to be known). A read's slot is handed on once the promise callbacks
 * its answer set off have run (process.nextTick comes after them, and before any other I/O), so a
 * read that answer made known, asked ahead, takes it before the reads queued earlier; and no slot is
 * held by a task merely waiting for another read's answer.
 */
export function slots(limit: number): Slots {
  let free = limit;
  const ahead: (() => void)[] = [];
  const behind: (() => void)[] = [];
  const handOn = () => {
    const next = ahead.shift() ?? behind.shift();
    if (next) next();
    else free++;
  };
  return async (read, first = false) => {
    if (free > 0) free--;
    else await new Promise<void>((start) => (first ? ahead : behind).push(start));
    try {
      return await read();
    } finally {
      process.nextTick(handOn);
    }
  };
}
