import type { Severity } from '../../domain/codes.ts';
import type { Remediation, ResourceRef } from '../../domain/finding.ts';
import type { Report, TimeSource, TimeSourceKind } from '../../domain/report.ts';
import type { FailOn } from '../args.ts';
import { visibleLine, visibleText } from '../../domain/visible.ts';
import { remediationOutcome } from '../../domain/remediation-outcome.ts';
import { counted } from '../../domain/words.ts';

/** The exit code a scan is about to return and the `--fail-on` that decided it. */
export interface ExitOutcome {
  code: number;
  failOn: FailOn;
}

/** `Deployment karpenter/karpenter`, `Instance i-0abc`, `NodeClaim default-x2k4p`. */
export function describeResource(resource: ResourceRef): string {
  const name = resource.namespace && resource.name ? `${resource.namespace}/${resource.name}` : (resource.name ?? '');
  const id = resource.id ? (name ? ` (${resource.id})` : resource.id) : '';
  return `${resource.kind} ${name}${id}`.trimEnd();
}

/** `ROLLOUT_RESTART planned (dry run: ...)`, `manual`, `TERMINATE_INSTANCE skipped: <reason>`. */
export function describeRemediation(remediation: Remediation | null): string {
  if (!remediation) return 'none proposed';
  const outcome = remediationOutcome(remediation);
  if (outcome.kind === 'manual') return 'manual';
  const head = `${outcome.action} ${outcome.kind === 'held' ? outcome.status : outcome.kind}`;
  if (outcome.kind === 'planned') return `${head} (dry run: nothing was changed)`;
  return outcome.reason ? `${head}: ${outcome.reason}` : head;
}

/** What a human should know before touching the steps of an action a guardrail or an error stopped. */
export const NOT_RUN_NOTE = 'Not run; check the reason before running these steps by hand';

export function summaryLine(
  summary: Record<Severity, number>,
  mark: (severity: Severity, text: string) => string = plain,
): string {
  const count = (severity: Severity) => {
    const text = `${summary[severity]} ${severity}`;
    return summary[severity] > 0 ? mark(severity, text) : text;
  };
  return `${count('critical')}, ${count('warning')}, ${count('info')}`;
}

/** `exit 1: a finding is at or above --fail-on warning`: so nobody has to look the rule up. */
export function exitLine(outcome: ExitOutcome): string {
  if (outcome.failOn === 'never') return `exit ${outcome.code} (--fail-on never)`;
  const why = outcome.code === 1 ? 'a finding is at or above' : 'nothing is at or above';
  return `exit ${outcome.code}: ${why} --fail-on ${outcome.failOn}`;
}

/**
 * What every gap means, whatever its kind: a source that could not be read (the checks that need
 * it did not run), objects set aside as malformed (the checks ran without them), or a check that
 * failed on the data (it did not finish). Each gap's own error text says which.
 */
export const GAPS_MEAN = 'findings may be missing';

/** `1 gap (nodeclaims): findings may be missing`: the short form, where the gaps are listed nearby. */
export function gapsLine(report: Report): string {
  const n = report.gaps.length;
  const sources = [...new Set(report.gaps.map((g) => g.source))].join(', ');
  const files = report.unreadFiles?.length ?? 0;
  const unread = files === 0 ? '' : `${n > 0 ? ', ' : ''}${counted(files, 'file')} left out`;
  const gaps = n === 0 ? '' : `${counted(n, 'gap')} (${sources})`;
  return visibleLine(`${gaps}${unread}: ${GAPS_MEAN}`);
}

/** `not captured: fargateprofiles, accessentries — ...`; undefined when every refining source was captured. */
export function notCapturedLine(report: Report): string | undefined {
  const sources = report.notCaptured ?? [];
  if (sources.length === 0) return undefined;
  return `not captured: ${sources.join(', ')} — causes that need them may be less precise`;
}

/**
 * Said after the not-captured line of a report with no gaps: what it did capture was read in
 * full, though "data complete" would be untrue with sources missing.
 */
export const CAPTURED_ALL_READ = 'everything that was captured was read: no gaps';

/** What each source of the time ages were judged at is, for the reader (docs/capture.md "The capture's time"). */
const TIME_SOURCE_WORDS: Record<TimeSourceKind, string> = {
  'now-option': 'given by --now',
  'snapshot-summary': "the capture's, from SNAPSHOT.md",
  'captured-at-file': "the capture's, from captured-at.txt",
  'capture-folder-name': "the capture's, from the capture script's folder name",
  'newest-timestamp': 'the newest timestamp in the capture, which was taken at or after it',
  'wall-clock': 'the wall clock (the capture records no time)',
};

/** `time: the capture's, from SNAPSHOT.md (capture/SNAPSHOT.md: Taken at ...)`; undefined when the report does not say. */
export function timeSourceLine(report: Report): string | undefined {
  return report.timeSource ? `time: ${describeTimeSource(report.timeSource)}` : undefined;
}

/** Kinds whose words already say all their detail would (`--now X`, `the wall clock`). */
const DETAIL_ADDS_NOTHING: ReadonlySet<TimeSourceKind> = new Set(['now-option', 'wall-clock']);

/** `the capture's, from SNAPSHOT.md (capture/SNAPSHOT.md: Taken at ...)`: where a judged time came from. */
export function describeTimeSource(time: TimeSource): string {
  const words = TIME_SOURCE_WORDS[time.source];
  return DETAIL_ADDS_NOTHING.has(time.source) ? words : `${words} (${time.detail})`;
}

/** `nodeclaims: 403 Forbidden; pods: 2 objects set aside as malformed (see notes)`: what happened, per gap, on one line. */
function gapsDetail(report: Report): string {
  return visibleLine(
    [...report.gaps.map((g) => `${g.source}: ${g.error}`), ...(report.unreadFiles ?? []).map((f) => `left out ${f}`)].join('; '),
  );
}

/** The stderr line of a report whose output does not show its gaps to a human (JSON). */
export function incompleteWarning(report: Report): string {
  return `warning: data incomplete, ${GAPS_MEAN}: ${gapsDetail(report)}`;
}

function plain(_severity: Severity, text: string): string {
  return text;
}

/**
 * The report as a terminal or a document may show it: captured text may carry colour codes,
 * bidi overrides or line breaks, and only escapes we chose may reach the reader. Every string is
 * one line (a name, a title or an evidence line cannot forge a line of its own); steps keep their
 * line breaks (`# why` and the command, YAML to apply), their values being shell-quoted.
 */
export function visibleReport(report: Report): Report {
  const oneLine = <T>(value: T): T =>
    JSON.parse(JSON.stringify(value), (_key, v: unknown) => (typeof v === 'string' ? visibleLine(v) : v)) as T;
  return {
    ...oneLine({ ...report, findings: [] }),
    findings: report.findings.map((f) => ({
      ...oneLine(f),
      remediation: f.remediation && { ...oneLine(f.remediation), steps: f.remediation.steps.map(visibleText) },
    })),
  };
}
