import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../../../src/cli/render/markdown.ts';
import { manualRemediation, newFinding } from '../../../../src/domain/finding.ts';
import { setAsideGap } from '../../../../src/domain/snapshot.ts';
import { notRegistered, orphan, reportOf, unexplained } from './report-fixtures.ts';

describe('renderMarkdown', () => {
  it('has a heading, a completeness note, a summary and one table row per finding', () => {
    const md = renderMarkdown(reportOf([orphan, notRegistered, unexplained]));

    expect(md).toContain('# karpenter-sentinel report: cluster `demo`\n\nGenerated at 2026-01-01T01:00:00Z.');
    expect(md).toContain('Data complete: every source the checks asked for was captured.');
    expect(md).toContain('**Summary:** 1 critical, 1 warning, 1 info');
    expect(md).toContain(
      [
        '| Severity | Code | Resource | Cause | Remediation |',
        '|---|---|---|---|---|',
        '| critical | `NODECLAIM_NOT_REGISTERED` | NodeClaim default-x2k4p | `NODE_ROLE_NOT_MAPPED` | manual |',
        '| warning | `ORPHANED_INSTANCE` | Instance i-0abc123 | `NO_NODECLAIM` | TERMINATE_INSTANCE skipped: snapshot incomplete (see gaps): nothing is terminated on partial data |',
        '| info | `PODS_PENDING_PROLONGED` | Cluster demo | not determined | none proposed |',
      ].join('\n'),
    );
  });

  it('lists the gaps when data is incomplete', () => {
    const md = renderMarkdown(reportOf([], [{ source: 'nodeclaims', error: '403 Forbidden | RBAC' }]));

    expect(md).toContain(
      '> **Data incomplete:** findings may be missing because of these gaps:\n> - `nodeclaims`: 403 Forbidden \\| RBAC',
    );
    expect(md).toContain('No findings in the data that was captured.');
    expect(md).not.toContain('| Severity |');
  });

  it('says what happened for each kind of gap: unreadable, objects set aside, a check that failed', () => {
    const md = renderMarkdown(
      reportOf(
        [],
        [
          { source: 'nodeclaims', error: '403 Forbidden' },
          setAsideGap('pods', 1),
          { source: 'instances', error: 'ORPHANED_INSTANCE check failed on this data: boom', detector: 'ORPHANED_INSTANCE' },
        ],
      ),
    );

    expect(md).toContain(
      [
        '> **Data incomplete:** findings may be missing because of these gaps:',
        '> - `nodeclaims`: 403 Forbidden',
        '> - `pods`: 1 object set aside as malformed (see notes)',
        '> - `instances`: ORPHANED_INSTANCE check failed on this data: boom',
      ].join('\n'),
    );
    expect(md).not.toContain('did not run');
  });

  it('puts evidence and each step in fenced blocks, multi-line steps intact', () => {
    const md = renderMarkdown(reportOf([notRegistered]));

    expect(md).toContain(
      '## 1. critical: `NODECLAIM_NOT_REGISTERED` on NodeClaim default-x2k4p\n\nNodeClaim default-x2k4p launched 22m ago but its Node never registered',
    );
    expect(md).toContain(
      '```text\nNodeClaim default-x2k4p Launched=True, Registered=Unknown\naws-auth mapRoles has 1 entry, none for KarpenterNodeRole-demo\n```',
    );
    expect(md).toContain(
      '2.\n   ```sh\n   kubectl apply -f - <<EOF\n   apiVersion: v1\n   kind: ConfigMap\n   metadata:\n     name: aws-auth\n   EOF\n   ```',
    );
  });

  it('escapes pipes in table cells and outgrows backtick runs inside steps', () => {
    const finding = newFinding({
      ...unexplained,
      remediation: manualRemediation(['echo "```" | cat']),
    });

    const md = renderMarkdown(reportOf([finding]));

    expect(md).toContain('| info | `PODS_PENDING_PROLONGED` | Cluster demo | not determined | manual |');
    expect(md).toContain('3 pods Pending \\| longer than 10m');
    expect(md).toContain('   ````sh\n   echo "```" | cat\n   ````');
  });

  it('shows text from the data literally: no emphasis, HTML, strikethrough, links or lists made of it', () => {
    const finding = newFinding({
      ...orphan,
      title: '1. profile/* and amazon-eks-node-* match <none> ~~x~~ [docs](https://x) _y_',
      cause: { code: 'NO_NODECLAIM', detail: 'arn:aws:iam::1:instance-profile/* is `wide` \\ here' },
    });

    const md = renderMarkdown(reportOf([finding]));

    expect(md).toContain(
      '\n1\\. profile/\\* and amazon-eks-node-\\* match \\<none\\> \\~\\~x\\~\\~ \\[docs\\]\\(https://x) \\_y\\_\n',
    );
    expect(md).toContain('`NO_NODECLAIM` — arn:aws:iam::1:instance-profile/\\* is \\`wide\\` \\\\ here');
    // an underscore inside a word cannot start emphasis, so codes stay readable
    expect(md).toContain('| TERMINATE_INSTANCE skipped: snapshot incomplete');
  });

  it('shows hostile names and tags as text: no link, entity, mention or broken code span', () => {
    const finding = newFinding({
      ...orphan,
      title: 'tag [md](https://evil.example) &#8238; <!channel> \u202E',
      evidence: ['Name=x```y'],
    });

    const md = renderMarkdown({ ...reportOf([finding]), cluster: 'a`b' });

    expect(md).toContain('# karpenter-sentinel report: cluster ``a`b``');
    expect(md).toContain('tag \\[md\\]\\(https://evil.example) \\&#8238; \\<!channel\\> \\\\u202e');
    expect(md).toContain('````text\nName=x```y\n````');
    expect(md).not.toContain('](https://evil');
  });

  it('warns before the steps of an action a guardrail skipped', () => {
    const md = renderMarkdown(reportOf([orphan]));

    expect(md).toContain(
      '**Steps**\n\n> **Not run; check the reason before running these steps by hand.**\n\n1.\n   ```sh\n   aws ec2 terminate-instances',
    );
    expect(renderMarkdown(reportOf([notRegistered]))).not.toContain('Not run;');
  });
});

describe('renderMarkdown: what was not captured, and files left out', () => {
  it('lists the sources not captured and the files left out', () => {
    const report = {
      ...reportOf([orphan]),
      complete: false,
      notCaptured: ['fargateprofiles' as const],
      unreadFiles: ['capture/dump.yaml: holds an error instead of an output'],
    };

    const text = renderMarkdown(report);

    expect(text).toContain('> - left out: capture/dump.yaml: holds an error instead of an output');
    expect(text).toContain('**Not captured:** fargateprofiles — causes that need them may be less precise');
  });

  it('does not call data with sources not captured complete: those come first, then that the rest was read', () => {
    const text = renderMarkdown({ ...reportOf([orphan]), notCaptured: ['fargateprofiles' as const] });

    expect(text).not.toMatch(/data complete/i);
    expect(text).toContain(
      '**Not captured:** fargateprofiles — causes that need them may be less precise\n\nEverything that was captured was read: no gaps.\n',
    );
  });
});
