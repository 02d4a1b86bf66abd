import type { Finding } from '../../domain/finding.ts';
import type { Report } from '../../domain/report.ts';
import { describeRemediation, describeResource, NOT_RUN_NOTE, summaryLine, withoutControlCharacters } from './format.ts';

/** For tickets and incident docs (CommonMark / GitHub): a summary table, then one section per finding. */
export function renderMarkdown(unsafe: Report): string {
  const report = withoutControlCharacters(unsafe);
  const out: string[] = [
    `# karpenter-sentinel report: cluster \`${report.cluster}\``,
    '',
    `Generated at ${report.generatedAt}.`,
    '',
  ];
  if (report.complete) {
    out.push('Data complete: every source the checks asked for was captured.', '');
  } else {
    out.push('> **Data incomplete.** Checks that need these sources did not run:');
    for (const gap of report.gaps) out.push(`> - \`${gap.source}\`: ${text(gap.error)}`);
    out.push('');
  }
  out.push(`**Summary:** ${summaryLine(report.summary)}`, '');
  if (report.findings.length === 0) {
    out.push(report.complete ? 'No findings.' : 'No findings in the data that was captured.');
    return `${out.join('\n')}\n`;
  }
  out.push('| Severity | Code | Resource | Cause | Remediation |', '|---|---|---|---|---|');
  for (const f of report.findings) {
    const cause = f.cause ? `\`${f.cause.code}\`` : 'not determined';
    out.push(
      `| ${f.severity} | \`${f.code}\` | ${text(describeResource(f.resource))} | ${cause} | ${text(describeRemediation(f.remediation))} |`,
    );
  }
  report.findings.forEach((f, i) => out.push('', ...section(f, i + 1)));
  return `${out.join('\n')}\n`;
}

function section(f: Finding, n: number): string[] {
  const out = [`## ${n}. ${f.severity}: \`${f.code}\` on ${text(describeResource(f.resource))}`, '', paragraph(f.title), ''];
  if (f.since) out.push(`- **Since:** ${f.since}`);
  out.push(`- **Cause:** ${f.cause ? `\`${f.cause.code}\` — ${text(f.cause.detail)}` : 'not determined'}`);
  out.push(`- **Remediation:** ${text(describeRemediation(f.remediation))}`, '');
  if (f.evidence.length > 0) out.push('**Evidence**', '', ...fenced('text', f.evidence.join('\n')), '');
  const remediation = f.remediation;
  if (remediation && remediation.steps.length > 0) {
    const held = remediation.status === 'skipped' || remediation.status === 'failed';
    out.push('**Steps**', '', ...(held ? [`> **${NOT_RUN_NOTE}.**`, ''] : []));
    // Each step its own block inside a numbered item; Markdown strips the item indent again.
    remediation.steps.forEach((step, i) => {
      const marker = `${i + 1}.`;
      const indent = ' '.repeat(marker.length + 1);
      const block = fenced('sh', step).flatMap((l) => l.split('\n'));
      out.push(marker, ...block.map((l) => (l ? indent + l : l)), '');
    });
  }
  while (out.at(-1) === '') out.pop();
  return out;
}

/** A fence longer than any backtick run inside, so steps holding ``` stay intact. */
function fenced(language: string, body: string): string[] {
  const longest = Math.max(2, ...[...body.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return [`${fence}${language}`, body, fence];
}

/**
 * Text from the data, on one line and shown literally: `*`, `<none>`, `~`, `|` or `[x](y)` in a
 * message or an ARN pattern must not turn into emphasis, HTML, strikethrough, a table column or a
 * link. `_` inside a word (`TERMINATE_INSTANCE`) cannot start emphasis, so it stays readable.
 */
function text(value: string): string {
  return value
    .replace(/\r?\n/g, ' ')
    .replace(/[\\`*<|~]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])/g, '\\$&')
    .replace(/\]\(/g, ']\\(');
}

/** `text`, and a leading `#`, `>`, `-`, `+`, `=` or `1.` must not start a heading, a quote or a list. */
function paragraph(value: string): string {
  return text(value)
    .replace(/^(\d+)([.)])/, '$1\\$2')
    .replace(/^([#>+=-])/, '\\$1');
}
