import type { Finding } from '../../domain/finding.ts';
import type { Report } from '../../domain/report.ts';
import { findingBlock, remediationBrief } from './table-finding.ts';
import {
  CAPTURED_ALL_READ,
  describeResource,
  exitLine,
  GAPS_MEAN,
  gapsLine,
  notCapturedLine,
  summaryLine,
  timeSourceLine,
  visibleReport,
  type ExitOutcome,
} from './format.ts';
import { PLAIN_STYLE, type Style } from './style.ts';
import { displayWidth, NO_WRAP, shorten, wrapLine } from './wrap.ts';
import { atStakeText } from '../../domain/cost-text.ts';

export interface TableOptions {
  style?: Style;
  /** Printed after the counts, so the last line says what `$?` will be. */
  outcome?: ExitOutcome;
  /** The terminal's width: prose wraps to it, the overview fits it; commands in steps are never wrapped. Default: no wrapping. */
  width?: number;
}

/**
 * The human report, read top to bottom at 3 a.m.: what is incomplete, a one-line overview per
 * finding, each finding in full, then the counts and the exit code. Prose wraps to the width under
 * a hanging indent, a step's `# why` into more `# ` lines; commands never do, so they can be
 * copied whole (a long one runs long), and multi-line steps keep their own line breaks.
 */
export function renderTable(unsafe: Report, options: TableOptions = {}): string {
  const style = options.style ?? PLAIN_STYLE;
  const width = options.width ?? NO_WRAP;
  const report = visibleReport(unsafe);
  // Money first (docs/cost.md): what the findings cost a day, when any of them is priced.
  const money = report.cost ? wrapLine(style.bold(atStakeText(report.cost)), width, '  ') : [];
  const lines: string[] = [...money, ...header(report, style, width)];
  if (report.findings.length === 0) {
    const none = report.complete ? 'No findings.' : 'No findings in the data that was captured; the gaps above were not checked.';
    lines.push('', ...wrapLine(none, width, ''));
  }
  if (report.findings.length > 1) lines.push('', ...overview(report.findings, style, width));
  for (const finding of report.findings) lines.push('', ...findingBlock(finding, style, width));
  lines.push('', ...footer(report, style, options.outcome, width));
  return `${lines.join('\n')}\n`;
}

function header(report: Report, style: Style, width: number): string[] {
  const head = `cluster ${style.bold(report.cluster)} at ${report.generatedAt}`;
  const notCaptured = notCapturedLine(report);
  const time = timeSourceLine(report);
  const timeLines = time ? wrapLine(`  ${time}`, width, '    ') : [];
  const lacking = notCaptured ? wrapLine(notCaptured, width, '  ') : [];
  if (report.complete && !notCaptured) return [...wrapLine(`${head} · data complete`, width, '  '), ...timeLines];
  // What was not captured comes first: "data complete" above it would read as a contradiction.
  if (report.complete) {
    return [...wrapLine(head, width, '  '), ...timeLines, ...lacking, ...wrapLine(CAPTURED_ALL_READ, width, '  ')];
  }
  const files = report.unreadFiles ?? [];
  const count = report.gaps.length + files.length === 1 ? '1 gap' : `${report.gaps.length + files.length} gaps`;
  return [
    ...wrapLine(`${head} · ${style.warn(`DATA INCOMPLETE (${count})`)} · ${GAPS_MEAN}:`, width, '  '),
    ...timeLines,
    ...report.gaps.flatMap((gap) => wrapLine(`  ${style.warn('gap')} ${gap.source}: ${gap.error}`, width, '      ')),
    ...files.flatMap((file) => wrapLine(`  ${style.warn('left out')} ${file}`, width, '      ')),
    ...lacking,
  ];
}

interface OverviewRow {
  finding: Finding;
  severity: string;
  resource: string;
  cause: string;
  action: string;
}

/**
 * One aligned line per finding: severity, code, resource, cause, and what happens about it. When
 * that is wider than the terminal, the cause and the action go under the code; the resource too
 * when it does not fit beside the code. A cell that still does not fit is
 * shortened at a word boundary with `…` (the finding's block below has it whole): the terminal
 * never gets to break a row inside a word.
 */
function overview(findings: readonly Finding[], style: Style, width: number): string[] {
  const rows: OverviewRow[] = findings.map((f) => ({
    finding: f,
    severity: f.severity.toUpperCase(),
    resource: describeResource(f.resource),
    cause: f.cause?.code ?? '-',
    action: remediationBrief(f.remediation, PLAIN_STYLE),
  }));
  const widest = (cell: (row: OverviewRow) => string) => Math.max(...rows.map((row) => displayWidth(cell(row))));
  const [severityWidth, codeWidth, resourceWidth, causeWidth] = [
    widest((r) => r.severity),
    widest((r) => r.finding.code),
    widest((r) => r.resource),
    widest((r) => r.cause),
  ];
  const severityCell = (row: OverviewRow) =>
    `  ${style.severity(row.finding.severity, row.severity)}${' '.repeat(severityWidth - row.severity.length)}`;
  const action = (row: OverviewRow) => remediationBrief(row.finding.remediation, style);
  const title = `${findings.length} findings:`;
  const oneLine = 2 + severityWidth + codeWidth + resourceWidth + causeWidth + widest((r) => r.action) + 4 * 2;
  if (oneLine <= width) {
    return [
      title,
      ...rows.map((row) =>
        [
          severityCell(row),
          row.finding.code.padEnd(codeWidth),
          row.resource.padEnd(resourceWidth),
          row.cause.padEnd(causeWidth),
          action(row),
        ].join('  '),
      ),
    ];
  }
  // Two lines a finding, the second under the code: cause and remediation, on a line each when
  // they do not fit on one. The resource gets a line there too when it does not fit beside the code.
  const under = ' '.repeat(2 + severityWidth + 2);
  const room = width - under.length;
  const resourceFits = under.length + codeWidth + 2 + resourceWidth <= width;
  return [
    title,
    ...rows.flatMap((row) => {
      const cause = `cause ${row.cause}`;
      const outcome =
        displayWidth(`${cause} · ${row.action}`) <= room
          ? [`${under}${cause} · ${action(row)}`]
          : [under + shorten(cause, room), under + shorten(`remediation ${row.action}`, room)];
      if (resourceFits) return [`${severityCell(row)}  ${row.finding.code.padEnd(codeWidth)}  ${row.resource}`, ...outcome];
      return [`${severityCell(row)}  ${row.finding.code}`, under + shorten(row.resource, room), ...outcome];
    }),
  ];
}

function footer(report: Report, style: Style, outcome: ExitOutcome | undefined, width: number): string[] {
  const lines: string[] = [];
  if (!report.complete) {
    lines.push(...wrapLine(style.warn(`DATA INCOMPLETE: ${gapsLine(report)} (see the top)`), width, '  '));
  }
  const counts = summaryLine(report.summary, style.severity);
  lines.push(...wrapLine(outcome ? `${counts} · ${exitLine(outcome)}` : counts, width, '  '));
  return lines;
}
