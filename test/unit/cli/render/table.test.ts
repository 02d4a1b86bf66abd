import { describe, expect, it } from 'vitest';
import { renderTable } from '../../../../src/cli/render/table.ts';
import { ANSI_STYLE } from '../../../../src/cli/render/style.ts';
import { ANSI } from '../cli-harness.ts';
import { notRegistered, orphan, reportOf, unexplained } from './report-fixtures.ts';

describe('renderTable', () => {
  it('lists findings most severe first, each with its resource, cause, evidence and numbered steps', () => {
    const report = reportOf([unexplained, orphan, notRegistered]);

    const text = renderTable(report);

    expect(text.split('\n').filter((l) => /^(CRITICAL|WARNING|INFO) /.test(l))).toEqual([
      'CRITICAL NODECLAIM_NOT_REGISTERED NodeClaim default-x2k4p',
      'WARNING ORPHANED_INSTANCE Instance i-0abc123',
      'INFO PODS_PENDING_PROLONGED Cluster demo',
    ]);
    expect(text).toContain(
      [
        '  since: 2026-01-01T00:38:00Z',
        '  cause: NODE_ROLE_NOT_MAPPED — role KarpenterNodeRole-demo is in neither aws-auth nor an EC2_LINUX access entry',
        '  evidence:',
        '    - NodeClaim default-x2k4p Launched=True, Registered=Unknown',
        '    - aws-auth mapRoles has 1 entry, none for KarpenterNodeRole-demo',
        '  remediation: manual',
        '    1. aws eks create-access-entry --cluster-name demo --principal-arn arn:aws:iam::069057294951:role/KarpenterNodeRole-demo --type EC2_LINUX',
      ].join('\n'),
    );
    expect(text.trimEnd().split('\n').at(-1)).toBe('1 critical, 1 warning, 1 info');
  });

  it('keeps a multi-line step whole, each line under the step indent', () => {
    const text = renderTable(reportOf([notRegistered]));

    expect(text).toContain(
      [
        '    2. kubectl apply -f - <<EOF',
        '       apiVersion: v1',
        '       kind: ConfigMap',
        '       metadata:',
        '         name: aws-auth',
        '       EOF',
      ].join('\n'),
    );
  });

  it('says why an automated action was skipped', () => {
    const text = renderTable(reportOf([orphan]));

    expect(text).toContain(
      '  remediation: TERMINATE_INSTANCE skipped: snapshot incomplete (see gaps): nothing is terminated on partial data\n',
    );
    expect(text).toContain('    1. aws ec2 terminate-instances --instance-ids i-0abc123\n');
  });

  it('says plainly when a cause or remediation is missing', () => {
    const text = renderTable(reportOf([unexplained]));

    expect(text).toContain('  cause: not determined\n');
    expect(text).toContain('  remediation: none proposed\n');
    expect(text).not.toContain('since:');
  });

  it('shows incompleteness and every gap in the header', () => {
    const text = renderTable(
      reportOf(
        [orphan],
        [
          { source: 'nodeclaims', error: '403 Forbidden' },
          { source: 'pods', error: 'not captured' },
        ],
      ),
    );

    const [header, gap1, gap2] = text.split('\n');
    expect(header).toBe(
      'cluster demo at 2026-01-01T01:00:00Z · DATA INCOMPLETE (2 gaps) · checks that need these sources did not run',
    );
    expect(gap1).toBe('  gap nodeclaims: 403 Forbidden');
    expect(gap2).toBe('  gap pods: not captured');
  });

  it('says "No findings." on complete data, and does not call partial data clean', () => {
    expect(renderTable(reportOf([]))).toBe(
      'cluster demo at 2026-01-01T01:00:00Z · data complete\n\nNo findings.\n\n0 critical, 0 warning, 0 info\n',
    );
    expect(renderTable(reportOf([], [{ source: 'instances', error: 'not captured' }]))).toContain(
      'No findings in the data that was captured; the gaps above were not checked.',
    );
  });

  it('colours severities and dims evidence only when given the ANSI style', () => {
    const text = renderTable(reportOf([notRegistered, orphan, unexplained]), ANSI_STYLE);

    expect(text).toContain('\u001b[1m\u001b[31mCRITICAL\u001b[39m\u001b[22m NODECLAIM_NOT_REGISTERED');
    expect(text).toContain('\u001b[1m\u001b[33mWARNING\u001b[39m\u001b[22m ORPHANED_INSTANCE');
    expect(text).toContain('\u001b[1m\u001b[34mINFO\u001b[39m\u001b[22m PODS_PENDING_PROLONGED');
    expect(text).toContain('\u001b[2m    - NodeClaim default-x2k4p Launched=True, Registered=Unknown\u001b[22m');
    // commands stay uncoloured so they copy cleanly
    expect(text).toContain('\n    1. aws eks create-access-entry --cluster-name demo');
  });

  it('shows control characters from the data as text, so a capture cannot drive the terminal', () => {
    const finding = { ...orphan, evidence: ['log: \u001b[31mERROR\u001b[0m\r denied'] };

    const text = renderTable(reportOf([finding]));

    expect(text).toContain('    - log: \\x1b[31mERROR\\x1b[0m\\x0d denied\n');
    expect(text).not.toMatch(ANSI);
  });
});
