import { SEVERITY_RANK, type Severity } from './codes.ts';
import type { Finding } from './finding.ts';
import { toIsoSeconds } from './kube-helpers.ts';
import type { Gap, SourceName } from './snapshot.ts';

const REPORT_SCHEMA_VERSION = 1;

/** `--output json` shape (docs/report-json.md#report-json): keep stable. */
export interface Report {
  schemaVersion: typeof REPORT_SCHEMA_VERSION;
  cluster: string;
  generatedAt: string;
  complete: boolean;
  gaps: Gap[];
  /**
   * Sources the checks that ran would have used to refine a cause, and that were not captured
   * (nor failed: those are gaps). Causes that need them may be less precise; nothing is wrong
   * with the data that was given. Additive: absent from reports that predate it.
   */
  notCaptured?: SourceName[];
  /**
   * Capture files left out whose name does not say what they held (`file: problem`): data may be
   * missing, so `complete` is false. Present only when there are some. Additive.
   */
  unreadFiles?: string[];
  findings: Finding[];
  summary: Record<Severity, number>;
  /**
   * Where `generatedAt`, the time ages were judged at, came from (docs/report-json.md "timeSource").
   * Set by scans of captured files, whose own time is not the wall clock's. Additive.
   */
  timeSource?: TimeSource;
  /**
   * What the findings that carry a `cost` add up to (docs/report-json.md "cost"): present only
   * when at least one does. Additive.
   */
  cost?: ReportCost;
}

/** The report's total of its findings' `cost`. */
export interface ReportCost {
  /** The sum of the findings' `cost.perDayUsd`, rounded to cents. */
  perDayUsd: number;
  /** How many findings carry a cost. */
  findings: number;
}

/**
 * The findings' costs added up; undefined when none costs anything (docs/cost.md). A finding
 * whose remediation was applied costs nothing any more; an instance two findings name counts once.
 */
export function totalCost(findings: readonly Finding[]): ReportCost | undefined {
  const costed = findings
    .filter((f) => f.remediation?.status !== 'applied')
    .flatMap((f) => (f.cost !== undefined && f.cost.perDayUsd > 0 ? [f.cost] : []));
  if (costed.length === 0) return undefined;
  const counted = new Set<string>();
  let cents = 0;
  for (const cost of costed) {
    let own = Math.round(cost.perDayUsd * 100);
    for (const instance of cost.instances ?? []) {
      const share = Math.round(instance.perDayUsd * 100);
      if (counted.has(instance.id)) own -= share;
      counted.add(instance.id);
    }
    cents += Math.max(0, own);
  }
  return { perDayUsd: cents / 100, findings: costed.length };
}

/**
 * The sources of the time an offline scan judges ages at, most trusted first
 * (docs/capture.md "The capture's time").
 */
export type TimeSourceKind =
  'now-option' | 'snapshot-summary' | 'captured-at-file' | 'capture-folder-name' | 'newest-timestamp' | 'wall-clock';

export interface TimeSource {
  source: TimeSourceKind;
  /** What gave it, in words: `capture/SNAPSHOT.md: Taken at 2026-01-01T01:00:00Z`. */
  detail: string;
  /** What the reader should know about it: a recorded time not used and why, a lower bound. */
  notes: string[];
}

/** Most severe first, then by code and resource, so output is deterministic. */
function sortFindings(findings: readonly Finding[]): Finding[] {
  return [...findings].sort(
    (a, b) =>
      SEVERITY_RANK[b.severity] - SEVERITY_RANK[a.severity] ||
      a.code.localeCompare(b.code) ||
      resourceKey(a).localeCompare(resourceKey(b)) ||
      a.id.localeCompare(b.id),
  );
}

function resourceKey(f: Finding): string {
  const r = f.resource;
  return `${r.kind}/${r.namespace ?? ''}/${r.name ?? ''}/${r.id ?? ''}`;
}

export function buildReport(input: {
  cluster: string;
  now: Date;
  gaps: Gap[];
  notCaptured?: SourceName[];
  unreadFiles?: readonly string[];
  findings: readonly Finding[];
}): Report {
  const unread = input.unreadFiles ?? [];
  const summary: Record<Severity, number> = { critical: 0, warning: 0, info: 0 };
  for (const f of input.findings) summary[f.severity] += 1;
  const cost = totalCost(input.findings);
  return {
    schemaVersion: REPORT_SCHEMA_VERSION,
    cluster: input.cluster,
    generatedAt: toIsoSeconds(input.now),
    complete: input.gaps.length === 0 && unread.length === 0,
    gaps: input.gaps,
    notCaptured: input.notCaptured ?? [],
    ...(unread.length > 0 ? { unreadFiles: [...unread] } : {}),
    findings: sortFindings(input.findings),
    summary,
    ...(cost ? { cost } : {}),
  };
}

/**
 * Sources that only sharpen a cause or a price and prove nothing about any instance or node: a gap in one
 * leaves the report incomplete, yet does not stop a remediation (docs/guardrails.md). The admission
 * webhooks and the interruption queue are read only by their own findings (read under newer grants:
 * a service upgraded without re-applying the RBAC or a CLI user without the SQS reads). A detector
 * that failed on their data is still a gap that stops everything.
 */
const ADVISORY_SOURCES: ReadonlySet<SourceName> = new Set<SourceName>([
  'instancetypes',
  'spotprices',
  'webhookconfigurations',
  'endpoints',
  'interruptionqueue',
  'queuerules',
  'queueage',
]);

/** Whether remediations may act on a report: complete, or incomplete only for gaps in advisory sources. */
export function completeForActions(report: Pick<Report, 'complete' | 'gaps' | 'unreadFiles'>): boolean {
  if (report.complete) return true;
  return (
    (report.unreadFiles ?? []).length === 0 &&
    report.gaps.length > 0 &&
    report.gaps.every((g) => ADVISORY_SOURCES.has(g.source) && g.detector === undefined)
  );
}
