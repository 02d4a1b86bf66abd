import type { FindingCode } from '../domain/codes.ts';
import type { PriceBook } from '../domain/cost.ts';
import type { Finding } from '../domain/finding.ts';
import type { DetectionSettings } from '../domain/settings.ts';
import type { ClusterSnapshot, SourceName } from '../domain/snapshot.ts';
import type { SnapshotIndex } from '../domain/snapshot-index.ts';

export interface DetectContext {
  snapshot: ClusterSnapshot;
  index: SnapshotIndex;
  settings: DetectionSettings;
  now: Date;
  /** Hourly prices of instances, for findings' `cost` (docs/cost.md). */
  prices: PriceBook;
}

/**
 * One finding code. Pure: no I/O, no clock but `ctx.now`.
 *
 * Completeness (docs/capture.md#completeness): the engine runs a detector only when every source in `requires` was
 * captured and, if `anyOf` is given, at least one of those too. A detector none of whose
 * `requires`/`anyOf` sources was captured was not asked for; one with some but not all
 * `requires` does not run and the report gets a gap. `refinedBy` sources only sharpen causes.
 */
export interface Detector<C extends FindingCode = FindingCode> {
  code: C;
  requires: readonly SourceName[];
  anyOf?: readonly SourceName[];
  refinedBy: readonly SourceName[];
  /**
   * Whether the snapshot holds this detector's evidence outside its sources (a saved or live
   * error in a gap's text): it then runs though its sources were not all captured, and what it
   * lacked is reported as not captured.
   */
  evidenceIn?(snapshot: ClusterSnapshot): boolean;
  detect(ctx: DetectContext): Finding<C>[];
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
