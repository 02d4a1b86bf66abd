import { describe, expect, it } from 'vitest';
import { parseSections, renderMarkdown } from '../../../bench/render.ts';
import type { StateRoundTripsBench } from '../../../bench/state-round-trips.ts';
import { benchResults } from '../../factories/bench.ts';

const MEASURED: StateRoundTripsBench = {
  scenarios: [
    {
      name: 'quiet scan: healthy, nothing to alert or act on',
      requests: { PutItem: 4 },
      total: 4,
      alerts: 0,
      before: 8,
    },
    { name: 'one new finding alert', requests: { PutItem: 5, Query: 1 }, total: 6, alerts: 1, before: 9 },
  ],
};

describe('the state round trips section', () => {
  it('is a section `--only` selects by name', () => {
    expect(parseSections('state-round-trips')).toEqual(new Set(['state-round-trips']));
  });

  it('shows each scan’s requests before and now, by operation', () => {
    // Act
    const markdown = renderMarkdown(benchResults({ stateRoundTrips: { ok: true, value: MEASURED } }));

    // Assess
    expect(markdown).toContain('## State round trips per scan');
    expect(markdown).toContain('| quiet scan: healthy, nothing to alert or act on | 8 | 4 | PutItem 4 | 0 |');
    expect(markdown).toContain('| one new finding alert | 9 | 6 | PutItem 5, Query 1 | 1 |');
  });

  it('says what failed instead of a table when the measurement failed', () => {
    // Act
    const markdown = renderMarkdown(
      benchResults({ stateRoundTrips: { ok: false, error: 'Error: the scan of aws-2026-eks at +1 min failed' } }),
    );

    // Assess
    expect(markdown).toContain('| scenarios | failed: Error: the scan of aws-2026-eks at +1 min failed |');
  });
});
