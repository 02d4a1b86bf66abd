import { describe, expect, it } from 'vitest';
import { renderTable } from '../../../../src/cli/render/table.ts';
import { ANSI_STYLE } from '../../../../src/cli/render/style.ts';
import { MAX_EVIDENCE_SHOWN } from '../../../../src/cli/render/table-finding.ts';
import { proposedAction } from '../../../../src/domain/finding.ts';
import { setAsideGap } from '../../../../src/domain/snapshot.ts';
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
        '  remediation: manual (do these by hand):',
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

  it('puts a skipped action in capitals with its reason, and warns before the steps it held back', () => {
    const text = renderTable(reportOf([orphan]));

    expect(text).toContain(
      [
        '  remediation: TERMINATE_INSTANCE SKIPPED: snapshot incomplete (see gaps): nothing is terminated on partial data',
        '    Not run; check the reason before running these steps by hand:',
        '    1. aws ec2 terminate-instances --instance-ids i-0abc123',
      ].join('\n'),
    );
  });

  it.each([
    ['planned', '', '  remediation: ROLLOUT_RESTART planned (dry run: nothing was changed); it would run:'],
    ['applied', '', '  remediation: ROLLOUT_RESTART applied; it ran:'],
    [
      'failed',
      'deployments.apps "karpenter" is forbidden',
      '  remediation: ROLLOUT_RESTART FAILED: deployments.apps "karpenter" is forbidden',
    ],
  ] as const)('says plainly whether a %s action changed anything', (status, reason, expected) => {
    const restart = {
      ...unexplained,
      remediation: {
        ...proposedAction('ROLLOUT_RESTART', ['kubectl rollout restart deployment -n karpenter karpenter']),
        status,
        reason,
      },
    };

    const text = renderTable(reportOf([restart]));

    expect(text).toContain(`${expected}\n`);
    expect(text).toContain('    1. kubectl rollout restart deployment -n karpenter karpenter\n');
  });

  it('shows the first facts of a long evidence list and how many more the JSON report holds', () => {
    const evidence = Array.from({ length: 12 }, (_, i) => `pod default/inflate-${i} Pending`);

    const text = renderTable(reportOf([{ ...orphan, evidence }]));

    const shown = text.split('\n').filter((l) => l.startsWith('    - '));
    expect(shown).toHaveLength(MAX_EVIDENCE_SHOWN);
    expect(shown.at(-2)).toBe(`    - pod default/inflate-${MAX_EVIDENCE_SHOWN - 2} Pending`);
    expect(shown.at(-1)).toBe(`    - … and ${12 - MAX_EVIDENCE_SHOWN + 1} more (--output json lists them all)`);
  });

  it('shows every fact when the list is at the cap', () => {
    const evidence = Array.from({ length: MAX_EVIDENCE_SHOWN }, (_, i) => `fact ${i}`);

    const text = renderTable(reportOf([{ ...orphan, evidence }]));

    expect(text).toContain(`    - fact ${MAX_EVIDENCE_SHOWN - 1}\n`);
    expect(text).not.toContain('more (--output json');
  });

  it('opens with one aligned line per finding when there are several', () => {
    const text = renderTable(reportOf([unexplained, orphan, notRegistered]));

    expect(text).toContain(
      [
        '3 findings:',
        '  CRITICAL  NODECLAIM_NOT_REGISTERED  NodeClaim default-x2k4p  NODE_ROLE_NOT_MAPPED  manual',
        '  WARNING   ORPHANED_INSTANCE         Instance i-0abc123       NO_NODECLAIM          TERMINATE_INSTANCE SKIPPED',
        '  INFO      PODS_PENDING_PROLONGED    Cluster demo             -                     none proposed',
      ].join('\n'),
    );
    expect(renderTable(reportOf([orphan]))).not.toContain('findings:');
  });

  it.each([
    [{ code: 1, failOn: 'warning' }, '0 critical, 1 warning, 0 info · exit 1: a finding is at or above --fail-on warning'],
    [{ code: 0, failOn: 'critical' }, '0 critical, 1 warning, 0 info · exit 0: nothing is at or above --fail-on critical'],
    [{ code: 0, failOn: 'never' }, '0 critical, 1 warning, 0 info · exit 0 (--fail-on never)'],
  ] as const)('ends with the counts and the exit code that follows (%j)', (outcome, last) => {
    const text = renderTable(reportOf([orphan]), { outcome });

    expect(text.trimEnd().split('\n').at(-1)).toBe(last);
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

    const lines = text.trimEnd().split('\n');
    const [header, gap1, gap2] = lines;
    expect(header).toBe('cluster demo at 2026-01-01T01:00:00Z · DATA INCOMPLETE (2 gaps) · findings may be missing:');
    expect(gap1).toBe('  gap nodeclaims: 403 Forbidden');
    expect(gap2).toBe('  gap pods: not captured');
    // repeated just above the counts, where the eye lands after a long report
    expect(lines.at(-2)).toBe('DATA INCOMPLETE: 2 gaps (nodeclaims, pods): findings may be missing (see the top)');
  });

  it('says what happened for each kind of gap: unreadable, objects set aside, a check that failed', () => {
    const text = renderTable(
      reportOf(
        [],
        [
          { source: 'nodeclaims', error: '403 Forbidden' },
          setAsideGap('pods', 2),
          { source: 'instances', error: 'ORPHANED_INSTANCE check failed on this data: boom', detector: 'ORPHANED_INSTANCE' },
        ],
      ),
    );

    expect(text).toContain(
      [
        'DATA INCOMPLETE (3 gaps) · findings may be missing:',
        '  gap nodeclaims: 403 Forbidden',
        '  gap pods: 2 objects set aside as malformed (see notes)',
        '  gap instances: ORPHANED_INSTANCE check failed on this data: boom',
      ].join('\n'),
    );
    // Checks did run on the pods that were read, and every other check ran: nothing claims they did not.
    expect(text).not.toContain('did not run');
    expect(text).toContain('DATA INCOMPLETE: 3 gaps (nodeclaims, pods, instances): findings may be missing (see the top)');
  });

  it('says "No findings." on complete data, and does not call partial data clean', () => {
    expect(renderTable(reportOf([]), { outcome: { code: 0, failOn: 'warning' } })).toBe(
      'cluster demo at 2026-01-01T01:00:00Z · data complete\n\nNo findings.\n\n0 critical, 0 warning, 0 info · exit 0: nothing is at or above --fail-on warning\n',
    );
    expect(renderTable(reportOf([], [{ source: 'instances', error: 'not captured' }]))).toContain(
      'No findings in the data that was captured; the gaps above were not checked.',
    );
  });

  it('colours severities and dims evidence only when given the ANSI style', () => {
    const text = renderTable(reportOf([notRegistered, orphan, unexplained]), { style: ANSI_STYLE });

    expect(text).toContain('\u001b[1m\u001b[31mCRITICAL\u001b[39m\u001b[22m NODECLAIM_NOT_REGISTERED');
    expect(text).toContain('\u001b[1m\u001b[33mWARNING\u001b[39m\u001b[22m ORPHANED_INSTANCE');
    expect(text).toContain('\u001b[1m\u001b[34mINFO\u001b[39m\u001b[22m PODS_PENDING_PROLONGED');
    expect(text).toContain('\u001b[2m    - NodeClaim default-x2k4p Launched=True, Registered=Unknown\u001b[22m');
    // commands stay uncoloured so they copy cleanly
    expect(text).toContain('\n    1. aws eks create-access-entry --cluster-name demo');
    // skipped stands out, and so does its reason
    expect(text).toContain(
      'TERMINATE_INSTANCE \u001b[1m\u001b[33mSKIPPED\u001b[39m\u001b[22m: \u001b[1msnapshot incomplete (see gaps)',
    );
    // the counts that are not zero carry their severity's colour
    expect(text).toContain('\u001b[1m\u001b[31m1 critical\u001b[39m\u001b[22m, ');
  });

  it('shows control characters from the data as text, so a capture cannot drive the terminal', () => {
    const finding = { ...orphan, evidence: ['log: \u001b[31mERROR\u001b[0m\r denied'] };

    const text = renderTable(reportOf([finding]));

    expect(text).toContain('    - log: \\x1b[31mERROR\\x1b[0m\\x0d denied\n');
    expect(text).not.toMatch(ANSI);
  });
});

describe('renderTable with hostile text in the data', () => {
  it('writes out bidi overrides and keeps a planted line break from forging a line', () => {
    const finding = {
      ...orphan,
      title: 'evil\u202Egnp.exe\ncause: NONE — all fine',
      resource: { kind: 'Instance', id: 'i-1\u2066x' },
    };

    const text = renderTable(reportOf([finding]));

    expect(text).toContain('  evil\\u202egnp.exe cause: NONE — all fine\n');
    expect(text).toContain('Instance i-1\\u2066x');
    expect(text).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
  });
});

describe('renderTable: what was not captured, and files left out', () => {
  it('says which refining sources were not captured first, and never "data complete" above them', () => {
    const report = { ...reportOf([orphan]), notCaptured: ['fargateprofiles' as const, 'accessentries' as const] };

    const lines = renderTable(report).split('\n');

    expect(lines.slice(0, 3)).toEqual([
      'cluster demo at 2026-01-01T01:00:00Z',
      'not captured: fargateprofiles, accessentries — causes that need them may be less precise',
      'everything that was captured was read: no gaps',
    ]);
    expect(lines.join('\n')).not.toMatch(/data complete/i);
  });

  it('says "data complete" only when nothing the checks use was left out', () => {
    expect(renderTable({ ...reportOf([orphan]), notCaptured: [] }).split('\n')[0]).toMatch(/· data complete$/);
  });

  it('lists what was not captured after the gaps of an incomplete report, without "complete"', () => {
    const report = {
      ...reportOf([orphan], [{ source: 'pods' as const, error: '403 Forbidden' }]),
      notCaptured: ['fargateprofiles' as const],
    };

    const lines = renderTable(report).split('\n');

    expect(lines[0]).toContain('DATA INCOMPLETE (1 gap)');
    expect(lines.indexOf('not captured: fargateprofiles — causes that need them may be less precise')).toBe(2);
    expect(lines.join('\n')).not.toMatch(/data complete|no gaps/);
  });

  it('counts a file left out as incomplete data and names it', () => {
    const report = { ...reportOf([]), complete: false, unreadFiles: ['capture/out3.json: is more than 1 GiB (the limit)'] };

    const text = renderTable(report);

    expect(text).toContain('DATA INCOMPLETE (1 gap)');
    expect(text).toContain('  left out capture/out3.json: is more than 1 GiB (the limit)');
    expect(text).toContain('DATA INCOMPLETE: 1 file left out: findings may be missing');
  });
});
