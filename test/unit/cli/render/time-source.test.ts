/**
 * The report's `time:` line says where the time ages were judged at came from, once: a file or
 * field is named, words that already say it all (--now, the wall clock) are not repeated.
 */
import { describe, expect, it } from 'vitest';
import { describeTimeSource } from '../../../../src/cli/render/format.ts';

describe('describeTimeSource', () => {
  it('names the file a recorded time came from', () => {
    const words = describeTimeSource({
      source: 'snapshot-summary',
      detail: 'capture/SNAPSHOT.md: Taken at 2026-01-01T01:00:00Z',
      notes: [],
    });

    expect(words).toBe("the capture's, from SNAPSHOT.md (capture/SNAPSHOT.md: Taken at 2026-01-01T01:00:00Z)");
  });

  it('says "the wall clock" once when the capture records no time', () => {
    const words = describeTimeSource({ source: 'wall-clock', detail: 'the wall clock', notes: [] });

    expect(words).toBe('the wall clock (the capture records no time)');
  });
});
