import type { Finding } from '../domain/finding.ts';
import { buildReport, type Report } from '../domain/report.ts';
import type { ActionSettings, DetectionSettings } from '../domain/settings.ts';
import type { ClusterSnapshot, Gap, SourceName } from '../domain/snapshot.ts';
import type { Detector } from '../detectors/detector.ts';
import { DETECTORS } from '../detectors/registry.ts';
import { planRemediations } from '../remediations/plan.ts';
import { SnapshotIndex } from '../snapshot/snapshot-index.ts';

export interface AnalyzeOptions {
  detection: DetectionSettings;
  actions: ActionSettings;
  now: Date;
  detectors?: readonly Detector[];
}

export type DetectorVerdict = { run: true } | { run: false; missing: SourceName[] };

/** Completeness rule for one detector (see Detector). `missing` empty means "not asked for". */
export function detectorVerdict(detector: Detector, captured: ReadonlySet<SourceName>): DetectorVerdict {
  const relevant = [...detector.requires, ...(detector.anyOf ?? [])];
  if (!relevant.some((s) => captured.has(s))) return { run: false, missing: [] };
  const missing = detector.requires.filter((s) => !captured.has(s));
  if (missing.length > 0) return { run: false, missing };
  if (detector.anyOf && !detector.anyOf.some((s) => captured.has(s))) return { run: false, missing: [] };
  return { run: true };
}

/** detect → plan: the whole diagnosis of one snapshot, pure. */
export function analyze(snapshot: ClusterSnapshot, options: AnalyzeOptions): Report {
  const index = new SnapshotIndex(snapshot);
  const ctx = { snapshot, index, settings: options.detection, now: options.now };
  const gaps = new Map<SourceName, Gap>(snapshot.gaps.map((g) => [g.source, g]));
  const findings: Finding[] = [];
  for (const detector of options.detectors ?? DETECTORS) {
    const verdict = detectorVerdict(detector, snapshot.captured);
    if (verdict.run) {
      findings.push(...detector.detect(ctx));
      continue;
    }
    for (const source of verdict.missing) {
      if (!gaps.has(source)) gaps.set(source, { source, error: `not captured; ${detector.code} needs it` });
    }
  }
  const complete = gaps.size === 0;
  // The report owns the order; planning walks it, so the per-run caps pick the same findings every run.
  const report = buildReport({ cluster: snapshot.clusterName, now: options.now, gaps: [...gaps.values()], findings });
  const planned = planRemediations(report.findings, { snapshot, index, actions: options.actions, complete, now: options.now });
  return { ...report, findings: planned };
}
