import type { Finding } from '../../domain/finding.ts';
import type { Report } from '../../domain/report.ts';
import { describeResource, visibleReport } from './format.ts';
import type { Style } from './style.ts';
import { NO_WRAP, wrapLine, wrapLines } from './wrap.ts';
import { atStakeText } from '../../domain/cost-text.ts';

/** What was done about each automated remediation, in a sentence a human reads after the table. */
export function narrate(unsafe: Report, style: Style, width: number = NO_WRAP): string {
  const report = visibleReport(unsafe);
  const automated = report.findings.filter((f) => f.remediation && f.remediation.action !== 'MANUAL');
  const manual = report.findings.filter((f) => f.remediation?.status === 'manual').length;
  const lines = automated.map((f) => `  ${outcome(f, style)}`);
  if (manual > 0) lines.push(`  ${style.dim(`${manual} finding(s) need a human: the steps above say how.`)}`);
  if (lines.length === 0) lines.push(`  ${style.dim('nothing to fix.')}`);
  return [style.bold('What karpenter-sentinel did:'), ...lines.flatMap((line) => wrapLine(line, width, '    '))].join('\n');
}

function outcome(f: Finding, style: Style): string {
  const r = f.remediation!;
  const target = f.resource.kind === 'Instance' ? `instance ${f.resource.id}` : describeResource(f.resource);
  const verb = r.action === 'ROLLOUT_RESTART' ? 'restarted' : 'terminated';
  switch (r.status) {
    case 'applied':
      return style.bold(`${verb} ${target}${r.reason ? ` — ${r.reason}` : ''}`);
    case 'planned':
      return `would have ${verb} ${target} (dry run)`;
    case 'skipped':
      return `did not touch ${target}: ${r.reason}`;
    case 'failed':
      return `FAILED to act on ${target}: ${r.reason}`;
    default:
      return `${target}: ${r.status}`;
  }
}

/** Totals across the demo's examples. */
export class DemoTally {
  #findings = 0;
  #applied = new Map<string, number>();
  #manual = 0;
  /** The examples' `Report.cost` added up, in cents so the sum is exact. */
  #cents = 0;
  #costed = 0;

  add(report: Report): void {
    this.#findings += report.findings.length;
    if (report.cost) {
      this.#cents += Math.round(report.cost.perDayUsd * 100);
      this.#costed += report.cost.findings;
    }
    for (const f of report.findings) {
      if (f.remediation?.status === 'applied')
        this.#applied.set(f.remediation.action, (this.#applied.get(f.remediation.action) ?? 0) + 1);
      if (f.remediation?.status === 'manual') this.#manual += 1;
    }
  }

  /** The demo's closing lines, wrapped to `width`: the money at stake first, when any finding was priced. */
  lines(examples: number, width: number = NO_WRAP): string[] {
    const money = this.#costed > 0 ? [`${atStakeText({ perDayUsd: this.#cents / 100, findings: this.#costed })}.`] : [];
    return wrapLines(
      [
        ...money,
        `${examples} simulated clusters scanned, ${this.#findings} findings.`,
        `Fixed automatically: ${this.#applied.get('ROLLOUT_RESTART') ?? 0} controller restart(s), ${this.#applied.get('TERMINATE_INSTANCE') ?? 0} orphaned instance(s) terminated.`,
        `Explained for a human: ${this.#manual} finding(s), each with its cause and the exact commands.`,
      ],
      width,
      '  ',
    );
  }
}
