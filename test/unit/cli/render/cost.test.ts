import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../../../src/cli/render/markdown.ts';
import { renderTable } from '../../../../src/cli/render/table.ts';
import type { Finding } from '../../../../src/domain/finding.ts';
import { notRegistered, orphan, reportOf } from './report-fixtures.ts';

const ORPHAN_COST = { perDayUsd: 3.61, basis: '1 × t3a.xlarge on-demand at $0.1504/h (on-demand, test prices); × 24 h' };
const RELAUNCH_COST = { perDayUsd: 1234.5, basis: '342 × t3a.xlarge on-demand at $0.1504/h (on-demand, test prices); × 24 h' };
const priced = (f: Finding, cost: Finding['cost']): Finding => ({ ...f, cost });

describe('cost in the table', () => {
  it('leads with the money at stake, then each priced finding says its cost and basis under its since line', () => {
    const text = renderTable(reportOf([priced(orphan, ORPHAN_COST), priced(notRegistered, RELAUNCH_COST)]));

    const lines = text.split('\n');
    expect(lines[0]).toBe('≈ $1,238.11/day at stake across 2 findings');
    expect(lines[1]).toMatch(/^cluster demo at /);
    expect(text).toContain(
      '  since: 2026-01-01T00:00:00Z\n  cost: ≈ $3.61/day (1 × t3a.xlarge on-demand at $0.1504/h (on-demand, test prices); × 24 h)\n',
    );
  });

  it('says nothing of money when no finding is priced', () => {
    const text = renderTable(reportOf([orphan]));

    expect(text).not.toContain('$');
    expect(text).not.toContain('cost:');
  });

  it("a basis from the data cannot forge a line of the report: it stays on the finding's cost line", () => {
    const hostile = { perDayUsd: 1, basis: 'x\nCRITICAL FAKE_CODE Node evil\n\u001b[2J' };

    const text = renderTable(reportOf([priced(orphan, hostile)]));

    expect(text).not.toContain('\nCRITICAL FAKE_CODE');
    expect(text).not.toContain('\u001b[2J');
  });
});

describe('cost in Markdown', () => {
  it('puts the money under the heading and a cost item in each priced section, its dollar signs escaped', () => {
    const md = renderMarkdown(reportOf([priced(orphan, ORPHAN_COST), notRegistered]));

    expect(md).toContain(
      '# karpenter-sentinel report: cluster `demo`\n\n**≈ \\$3.61/day at stake across 1 finding.**\n\nGenerated at',
    );
    // Two unescaped `$` on one line would open a math span on GitHub.
    expect(md).toContain('- **Cost:** ≈ \\$3.61/day (1 × t3a.xlarge on-demand at \\$0.1504/h (on-demand, test prices); × 24 h)');
    expect(md.match(/\*\*Cost:\*\*/g)).toHaveLength(1);
  });

  it('has no money line when nothing is priced', () => {
    expect(renderMarkdown(reportOf([orphan]))).not.toContain('at stake');
  });
});
