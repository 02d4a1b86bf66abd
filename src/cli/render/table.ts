import type { Finding } from '../../domain/finding.ts';
import type { Report } from '../../domain/report.ts';
import { describeRemediation, describeResource, summaryLine } from './format.ts';
import { PLAIN_STYLE, type Style } from './style.ts';

/**
 * The human report: read top to bottom at 3 a.m. Lines are never wrapped, so commands can be
 * copied whole; multi-line steps keep their own line breaks under an indent.
 */
export function renderTable(unsafe: Report, style: Style = PLAIN_STYLE): string {
  const report = withoutControlCharacters(unsafe);
  const lines: string[] = [...header(report, style)];
  if (report.findings.length === 0) {
    lines.push('');
    lines.push(report.complete ? 'No findings.' : 'No findings in the data that was captured; the gaps above were not checked.');
  }
  for (const finding of report.findings) lines.push('', ...findingBlock(finding, style));
  lines.push('', summaryLine(report.summary));
  return `${lines.join('\n')}\n`;
}

function header(report: Report, style: Style): string[] {
  const head = `cluster ${style.bold(report.cluster)} at ${report.generatedAt}`;
  if (report.complete) return [`${head} · data complete`];
  const count = report.gaps.length === 1 ? '1 gap' : `${report.gaps.length} gaps`;
  return [
    `${head} · ${style.warn(`DATA INCOMPLETE (${count})`)} · checks that need these sources did not run`,
    ...report.gaps.map((gap) => `  ${style.warn('gap')} ${gap.source}: ${gap.error}`),
  ];
}

function findingBlock(finding: Finding, style: Style): string[] {
  const lines = [
    `${style.severity(finding.severity, finding.severity.toUpperCase())} ${finding.code} ${describeResource(finding.resource)}`,
    `  ${finding.title}`,
  ];
  if (finding.since) lines.push(`  since: ${finding.since}`);
  lines.push(`  cause: ${finding.cause ? `${finding.cause.code} — ${finding.cause.detail}` : 'not determined'}`);
  if (finding.evidence.length > 0) {
    lines.push('  evidence:');
    for (const fact of finding.evidence) lines.push(...indentBlock(fact, '    - ', '      ').map((l) => style.dim(l)));
  }
  lines.push(`  remediation: ${describeRemediation(finding.remediation)}`);
  finding.remediation?.steps.forEach((step, i) => {
    const number = `    ${i + 1}. `;
    lines.push(...indentBlock(step, number, ' '.repeat(number.length)));
  });
  return lines;
}

/** First line after `first`, continuation lines after `rest`; the text itself is untouched. */
function indentBlock(text: string, first: string, rest: string): string[] {
  return text.split('\n').map((line, i) => (i === 0 ? first : line === '' ? '' : rest) + line);
}

// C0/C1 controls except tab and newline: captured log lines may carry colour codes or worse,
// and the terminal must only ever see escapes we chose.
const CONTROL = new RegExp(String.raw`[\x00-\x08\x0b-\x1f\x7f-\x9f]`, 'g');

function withoutControlCharacters(report: Report): Report {
  const visible = (c: string) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`;
  return JSON.parse(JSON.stringify(report), (_key, value: unknown) =>
    typeof value === 'string' ? value.replace(CONTROL, visible) : value,
  ) as Report;
}
