import { SEVERITY_RANK, type Severity } from './codes.ts';
import type { Finding } from './finding.ts';
import { toIsoSeconds } from './kube-helpers.ts';
import type { Gap } from './snapshot.ts';

export const REPORT_SCHEMA_VERSION = 1;

/** `--output json` shape (DESIGN.md "Report"): keep stable. */
export interface Report {
  schemaVersion: typeof REPORT_SCHEMA_VERSION;
  cluster: string;
  generatedAt: string;
  complete: boolean;
  gaps: Gap[];
  findings: Finding[];
  summary: Record<Severity, number>;
}

/** Most severe first, then by code and resource, so output is deterministic. */
export function sortFindings(findings: readonly Finding[]): Finding[] {
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

export function buildReport(input: { cluster: string; now: Date; gaps: Gap[]; findings: readonly Finding[] }): Report {
  const summary: Record<Severity, number> = { critical: 0, warning: 0, info: 0 };
  for (const f of input.findings) summary[f.severity] += 1;
  return {
    schemaVersion: REPORT_SCHEMA_VERSION,
    cluster: input.cluster,
    generatedAt: toIsoSeconds(input.now),
    complete: input.gaps.length === 0,
    gaps: input.gaps,
    findings: sortFindings(input.findings),
    summary,
  };
}
