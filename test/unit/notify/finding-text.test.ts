import { describe, expect, it } from 'vitest';
import { newFinding } from '../../../src/domain/finding.ts';
import { findingFacts } from '../../../src/notify/finding-text.ts';

const NOW = new Date('2026-01-01T01:00:00Z');

const orphan = (cost?: { perDayUsd: number; basis: string }) =>
  newFinding({
    code: 'ORPHANED_INSTANCE',
    severity: 'warning',
    title: 'Instance i-0abc123 (NodePool default) is running with no NodeClaim',
    resource: { kind: 'Instance', id: 'i-0abc123' },
    since: '2026-01-01T00:00:00Z',
    cause: null,
    evidence: [],
    remediation: null,
    ...(cost ? { cost } : {}),
  });

describe('findingFacts: the cost line of an alert', () => {
  it('says what the finding costs a day and how it was counted, after since', () => {
    const facts = findingFacts(orphan({ perDayUsd: 3.61, basis: '1 × t3a.xlarge on-demand at $0.1504/h; × 24 h' }), 'demo', NOW);

    expect(facts).toEqual([
      '**Resource:** Instance i-0abc123',
      '**Since:** 2026-01-01T00:00:00Z (1h ago)',
      '**Cost:** ≈ $3.61/day (1 × t3a.xlarge on-demand at $0.1504/h; × 24 h)',
    ]);
  });

  it('escapes a basis from the data like the rest: no link, no emphasis, one line', () => {
    const facts = findingFacts(orphan({ perDayUsd: 1, basis: '[click](https://evil.example) *now*\nline' }), 'demo', NOW);

    expect(facts.find((l) => l.startsWith('**Cost:**'))).toBe(
      '**Cost:** ≈ $1.00/day (\\[click\\]\\(https://evil.example) \\*now\\* line)',
    );
  });

  it('has no cost line when the finding is not priced', () => {
    expect(findingFacts(orphan(), 'demo', NOW).some((l) => l.includes('Cost'))).toBe(false);
  });
});
