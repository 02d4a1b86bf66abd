import type { Finding } from '../../domain/finding.ts';
import type { Report } from '../../domain/report.ts';
import {
  CAPTURED_ALL_READ,
  describeRemediation,
  describeResource,
  GAPS_MEAN,
  NOT_RUN_NOTE,
  notCapturedLine,
  summaryLine,
  timeSourceLine,
  visibleReport,
} from './format.ts';
import { markdownCode, markdownFence, markdownParagraph, markdownText } from '../../domain/markdown.ts';
import { remediationOutcome } from '../../domain/remediation-outcome.ts';
import { capitalised } from '../../domain/words.ts';
import { atStakeText, findingCostText } from '../../domain/cost-text.ts';

/** For tickets and incident docs (CommonMark / GitHub): a summary table, then one section per finding. */
export function renderMarkdown(unsafe: Report): string {
  const report = visibleReport(unsafe);
  const out: string[] = [
    `# karpenter-sentinel report: cluster ${markdownCode(report.cluster)}`,
    '',
    // Money first (docs/cost.md), when any finding is priced.
    ...(report.cost ? [`**${money(atStakeText(report.cost))}.**`, ''] : []),
    `Generated at ${text(report.generatedAt)}.`,
    '',
  ];
  const time = timeSourceLine(report);
  if (time) {
    out.push(`**Time:** ${text(time.slice('time: '.length))}`, '');
    for (const note of report.timeSource?.notes ?? []) out.push(`> ${text(note)}`, '');
  }
  const notCaptured = notCapturedLine(report);
  if (report.complete && !notCaptured) {
    out.push('Data complete: every source the checks asked for was captured.', '');
  } else if (!report.complete) {
    out.push(`> **Data incomplete:** ${GAPS_MEAN} because of these gaps:`);
    for (const gap of report.gaps) out.push(`> - ${markdownCode(gap.source)}: ${text(gap.error)}`);
    for (const file of report.unreadFiles ?? []) out.push(`> - left out: ${text(file)}`);
    out.push('');
  }
  if (notCaptured) out.push(`**Not captured:** ${text(notCaptured.slice('not captured: '.length))}`, '');
  if (notCaptured && report.complete) out.push(`${capitalised(CAPTURED_ALL_READ)}.`, '');
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
  if (f.since) out.push(`- **Since:** ${text(f.since)}`);
  out.push(`- **Cause:** ${f.cause ? `\`${f.cause.code}\` — ${text(f.cause.detail)}` : 'not determined'}`);
  if (f.cost) out.push(`- **Cost:** ${money(findingCostText(f.cost, f.remediation?.status))}`);
  out.push(`- **Remediation:** ${text(describeRemediation(f.remediation))}`, '');
  if (f.evidence.length > 0) out.push('**Evidence**', '', ...fenced('text', f.evidence.join('\n')), '');
  const remediation = f.remediation;
  if (remediation && remediation.steps.length > 0) {
    const held = remediationOutcome(remediation).kind === 'held';
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

/** Steps and evidence are shown as they are, in fences that outgrow any backtick run inside. */
const fenced = markdownFence;
/** Text from the data, on one line and shown literally. */
const text = markdownText;
const paragraph = markdownParagraph;
/** Money text: literal, and its `$` escaped, so two of them on a line never open a math span (GitHub). */
function money(value: string): string {
  return text(value).replace(/\$/g, '\\$');
}
