import { describe, expect, it } from 'vitest';
import { allPages } from '../../../src/adapters/aws/sdk-output.ts';
import { SourceError } from '../../../src/ports/errors.ts';

async function* endless(): AsyncGenerator<{ items: number[] }> {
  for (let i = 0; ; i++) yield { items: [i] };
}

async function* three(): AsyncGenerator<{ items: number[] }> {
  yield* [{ items: [1, 2] }, { items: [] }, { items: [3] }];
}

describe('allPages', () => {
  it('keeps every page in order', async () => {
    await expect(allPages(three(), (p) => p.items)).resolves.toEqual([1, 2, 3]);
  });

  it('stops a listing whose next token never ends, with a source error, instead of reading forever', async () => {
    const listing = allPages(endless(), (p) => p.items, 50);

    await expect(listing).rejects.toThrow(SourceError);
    await expect(allPages(endless(), (p) => p.items, 50)).rejects.toThrow(/stopped after 50 pages/);
  });
});
