import { describe, expect, it } from 'vitest';
import { newFinding, type Finding } from '../../../src/domain/finding.ts';
import { buildReport } from '../../../src/domain/report.ts';
import { costOf } from '../../../src/domain/cost.ts';
import { findingCostText } from '../../../src/domain/cost-text.ts';

function finding(id: string, perDayUsd?: number): Finding {
  return newFinding({
    code: 'ORPHANED_INSTANCE',
    severity: 'warning',
    title: `Instance ${id} is running with no NodeClaim`,
    resource: { kind: 'Instance', id },
    since: null,
    cause: null,
    evidence: [],
    remediation: null,
    ...(perDayUsd === undefined ? {} : { cost: { perDayUsd, basis: `1 × t3a.xlarge on-demand for ${id}` } }),
  });
}

const build = (findings: Finding[]) =>
  buildReport({ cluster: 'demo', now: new Date('2026-01-01T01:00:00Z'), gaps: [], findings });

describe('Report.cost', () => {
  it('counts an instance two findings price once', () => {
    const prices = { hourly: () => ({ usd: 0.1, source: 'test prices' }) };
    const node = { instanceType: 'm5.large', capacityType: 'on-demand', zone: 'us-east-1a', id: 'i-0shared' };
    const other = { ...node, id: 'i-0other' };
    const [a, b] = [finding('i-0shared'), finding('i-0shared')];
    const report = build([
      { ...a, cost: costOf(prices, [node]) },
      { ...b, id: 'second', cost: costOf(prices, [node, other]) },
    ]);

    expect(report.cost).toEqual({ perDayUsd: 4.8, findings: 2 });
  });

  it('leaves out of the total a finding whose remediation was applied', () => {
    const applied: Finding = {
      ...finding('i-0a', 2.3),
      remediation: { action: 'TERMINATE_INSTANCE', status: 'applied', reason: 'terminated', steps: [] },
    };
    const report = build([applied, finding('i-0b', 1)]);

    expect(report.cost).toEqual({ perDayUsd: 1, findings: 1 });
    expect(applied.cost && findingCostText(applied.cost, applied.remediation?.status)).toMatch(
      /^≈ \$2\.30\/day \(.*\); saved: its remediation was applied, not counted as at stake$/,
    );
  });

  it('adds up the findings that carry a cost, to the cent, and counts them', () => {
    const report = build([finding('i-0a', 0.1), finding('i-0b', 0.2), finding('i-0c')]);

    // 0.1 + 0.2 in floating point is 0.30000000000000004.
    expect(report.cost).toEqual({ perDayUsd: 0.3, findings: 2 });
  });

  it('is absent when no finding carries a cost, so reports without money keep their shape', () => {
    const report = build([finding('i-0a')]);

    expect(report).not.toHaveProperty('cost');
    expect(Object.keys(report)).toEqual([
      'schemaVersion',
      'cluster',
      'generatedAt',
      'complete',
      'gaps',
      'notCaptured',
      'findings',
      'summary',
    ]);
  });
});
