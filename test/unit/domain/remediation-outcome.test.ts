import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../../src/cli/render/markdown.ts';
import { renderTable } from '../../../src/cli/render/table.ts';
import { manualRemediation, proposedAction, type Remediation } from '../../../src/domain/finding.ts';
import { remediationOutcome } from '../../../src/domain/remediation-outcome.ts';
import { findingFacts } from '../../../src/notify/finding-text.ts';
import { orphan, reportOf } from '../cli/render/report-fixtures.ts';

const NOW = new Date('2026-01-01T01:00:00Z');
const TERMINATE = proposedAction('TERMINATE_INSTANCE', ['aws ec2 terminate-instances --instance-ids i-0abc123']);

describe('remediationOutcome: what a remediation came to, read once for the report and the alerts', () => {
  it.each<[string, Remediation, ReturnType<typeof remediationOutcome>['kind']]>([
    ['a MANUAL action', manualRemediation(['kubectl get nodeclaims']), 'manual'],
    ['an action the sentinel may not take here', { ...TERMINATE, status: 'manual' }, 'manual'],
    ['a dry run', TERMINATE, 'planned'],
    ['an applied action', { ...TERMINATE, status: 'applied' }, 'applied'],
    ['a guardrail', { ...TERMINATE, status: 'skipped', reason: 'managed node group' }, 'held'],
    ['an error', { ...TERMINATE, status: 'failed', reason: 'UnauthorizedOperation' }, 'held'],
  ])('%s', (_name, remediation, kind) => {
    expect(remediationOutcome(remediation).kind).toBe(kind);
  });

  it('a held action without a reason: the terminal, the Markdown report and the alert all say so, and warn the steps did not run', () => {
    const held = { ...orphan, remediation: { ...TERMINATE, status: 'skipped' as const, reason: '' } };

    const table = renderTable(reportOf([held]));
    const markdown = renderMarkdown(reportOf([held]));
    const alert = findingFacts(held, 'demo', NOW);

    expect(table).toContain('  remediation: TERMINATE_INSTANCE SKIPPED: no reason given');
    expect(table).toContain('    Not run; check the reason before running these steps by hand:');
    expect(markdown).toContain('> **Not run; check the reason before running these steps by hand.**');
    expect(alert).toContain('**Action:** termination skipped: no reason given');
  });

  it('an applied action is not presented as held: no "not run" warning anywhere', () => {
    const applied = { ...orphan, remediation: { ...TERMINATE, status: 'applied' as const, reason: '' } };

    const table = renderTable(reportOf([applied]));
    const markdown = renderMarkdown(reportOf([applied]));

    expect(table).toContain('  remediation: TERMINATE_INSTANCE applied; it ran:');
    expect(table).not.toContain('Not run');
    expect(markdown).not.toContain('Not run');
    expect(findingFacts(applied, 'demo', NOW)).toContain('**Action:** termination applied');
  });
});
