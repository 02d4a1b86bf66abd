import type { Finding } from '../domain/finding.ts';
import { buildReport, completeForActions, type Report } from '../domain/report.ts';
import type { ActionSettings, DetectionSettings } from '../domain/settings.ts';
import { SOURCE_NAMES, type ClusterSnapshot, type Gap, type SourceName } from '../domain/snapshot.ts';
import { detectorVerdict, type Detector } from '../detectors/detector.ts';
import { DETECTORS } from '../detectors/registry.ts';
import { planRemediations } from '../remediations/plan.ts';
import { oneLine } from '../domain/shape.ts';
import { SnapshotIndex } from '../domain/snapshot-index.ts';
import { priceBookOf } from '../domain/price-book.ts';

export interface AnalyzeOptions {
  detection: DetectionSettings;
  actions: ActionSettings;
  now: Date;
  detectors?: readonly Detector[];
}

/** detect → plan: the whole diagnosis of one snapshot, pure. */
export function analyze(snapshot: ClusterSnapshot, options: AnalyzeOptions): Report {
  const index = new SnapshotIndex(snapshot);
  const ctx = { snapshot, index, settings: options.detection, now: options.now, prices: priceBookOf(snapshot) };
  // Every distinct gap the snapshot has (a source may have several: a last page missing, and an
  // object set aside), keyed by source and text.
  const gaps = new Map<string, Gap>(snapshot.gaps.map((g) => [`${g.source}\n${g.error}`, g]));
  const withGap = new Set(snapshot.gaps.map((g) => g.source));
  const findings: Finding[] = [];
  const failed: Gap[] = [];
  // Sources a detector that ran would have used to sharpen a cause, and that were not captured.
  const lacked = new Set<SourceName>();
  for (const detector of options.detectors ?? DETECTORS) {
    const verdict = detectorVerdict(detector, snapshot.captured);
    const evidence = !verdict.run && detector.evidenceIn?.(snapshot) === true;
    if (verdict.run || evidence) {
      const wanted = [...detector.refinedBy, ...(evidence ? [...detector.requires, ...(detector.anyOf ?? [])] : [])];
      for (const source of wanted) if (!snapshot.captured.has(source)) lacked.add(source);
      // One check tripping over data nobody foresaw costs that check, never the whole report.
      try {
        findings.push(...detector.detect(ctx));
      } catch (error) {
        failed.push(detectorFailure(detector, error));
      }
      continue;
    }
    for (const source of verdict.missing) {
      if (withGap.has(source)) continue;
      withGap.add(source);
      gaps.set(source, { source, error: `not captured; ${detector.code} needs it` });
    }
  }
  const allGaps = [...gaps.values(), ...failed];
  const unreadFiles = snapshot.unreadFiles ?? [];
  // The report owns the order; planning walks it, so the per-run caps pick the same findings every run.
  // A source with a gap is reported there: listing it again as "not captured" would say less.
  const notCaptured = SOURCE_NAMES.filter((s) => lacked.has(s) && !withGap.has(s));
  const report = buildReport({
    cluster: snapshot.clusterName,
    now: options.now,
    gaps: allGaps,
    notCaptured,
    unreadFiles,
    findings,
  });
  const planned = planRemediations(report.findings, {
    snapshot,
    index,
    actions: options.actions,
    complete: completeForActions(report),
    now: options.now,
  });
  return { ...report, findings: planned };
}

/** A detector that threw: a gap on the first source it requires, naming it and the error. */
function detectorFailure(detector: Detector, error: unknown): Gap {
  const source = detector.requires[0] ?? detector.anyOf?.[0] ?? 'pods';
  const why = error instanceof Error ? error.message : String(error);
  return { source, error: `${detector.code} check failed on this data: ${oneLine(why, 200)}`, detector: detector.code };
}
