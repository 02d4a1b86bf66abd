import type { Finding } from '../../domain/finding.ts';
import type { Report } from '../../domain/report.ts';
import { findingBlock, remediationBrief } from './table-finding.ts';
import {
  describeResource,
  exitLine,
  GAPS_MEAN,
  gapsLine,
  notCapturedLine,
  summaryLine,
  visibleReport,
  type ExitOutcome,
} from './format.ts';
import { PLAIN_STYLE, type Style } from './style.ts';

export interface TableOptions {
  style?: Style;
  /** Printed after the counts, so the last line says what `$?` will be. */
  outcome?: ExitOutcome;
}

/**
 * The human report, read top to bottom at 3 a.m.: what is incomplete, a one-line overview per
 * finding, each finding in full, then the counts and the exit code. Lines are never wrapped, so
 * commands can be copied whole; multi-line steps keep their own line breaks under an indent.
 */
export function renderTable(unsafe: Report, options: TableOptions = {}): string {
  const style = options.style ?? PLAIN_STYLE;
  const report = visibleReport(unsafe);
  const lines: string[] = [...header(report, style)];
  if (report.findings.length === 0) {
    lines.push(
      '',
      report.complete ? 'No findings.' : 'No findings in the data that was captured; the gaps above were not checked.',
    );
  }
  if (report.findings.length > 1) lines.push('', ...overview(report.findings, style));
  for (const finding of report.findings) lines.push('', ...findingBlock(finding, style));
  lines.push('', ...footer(report, style, options.outcome));
  return `${lines.join('\n')}\n`;
}

function header(report: Report, style: Style): string[] {
  const head = `cluster ${style.bold(report.cluster)} at ${report.generatedAt}`;
  const notCaptured = notCapturedLine(report);
  const lacking = notCaptured ? [notCaptured] : [];
  if (report.complete) return [`${head} · data complete`, ...lacking];
  const files = report.unreadFiles ?? [];
  const count = report.gaps.length + files.length === 1 ? '1 gap' : `${report.gaps.length + files.length} gaps`;
  return [
    `${head} · ${style.warn(`DATA INCOMPLETE (${count})`)} · ${GAPS_MEAN}:`,
    ...report.gaps.map((gap) => `  ${style.warn('gap')} ${gap.source}: ${gap.error}`),
    ...files.map((file) => `  ${style.warn('left out')} ${file}`),
    ...lacking,
  ];
}

/** One aligned line per finding: severity, code, resource, cause, and what happens about it. */
function overview(findings: readonly Finding[], style: Style): string[] {
  const rows = findings.map((f) => ({
    finding: f,
    severity: f.severity.toUpperCase(),
    resource: describeResource(f.resource),
    cause: f.cause?.code ?? '-',
  }));
  const width = (cell: (row: (typeof rows)[number]) => string) => Math.max(...rows.map((row) => cell(row).length));
  const [severityWidth, codeWidth, resourceWidth, causeWidth] = [
    width((r) => r.severity),
    width((r) => r.finding.code),
    width((r) => r.resource),
    width((r) => r.cause),
  ];
  return [
    `${findings.length} findings:`,
    ...rows.map(({ finding, severity, resource, cause }) =>
      [
        `  ${style.severity(finding.severity, severity)}${' '.repeat(severityWidth - severity.length)}`,
        finding.code.padEnd(codeWidth),
        resource.padEnd(resourceWidth),
        cause.padEnd(causeWidth),
        remediationBrief(finding.remediation, style),
      ].join('  '),
    ),
  ];
}

function footer(report: Report, style: Style, outcome: ExitOutcome | undefined): string[] {
  const lines: string[] = [];
  if (!report.complete) {
    lines.push(style.warn(`DATA INCOMPLETE: ${gapsLine(report)} (see the top)`));
  }
  const counts = summaryLine(report.summary, style.severity);
  lines.push(outcome ? `${counts} · ${exitLine(outcome)}` : counts);
  return lines;
}
