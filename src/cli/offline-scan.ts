import { goneClusterNote } from '../domain/cluster-gone.ts';
import { SEVERITY_RANK } from '../domain/codes.ts';
import type { Report } from '../domain/report.ts';
import type { ActionSettings, DetectionSettings } from '../domain/settings.ts';
import { analyze } from '../usecases/analyze.ts';
import type { FailOn } from './args.ts';
import type { LoadOptions } from '../snapshot/load.ts';
import { judgeCaptureTime } from '../snapshot/capture-time.ts';
import type { CliContext } from './io.ts';
import { printNotices } from './io.ts';

export interface OfflineScanSettings {
  detection: DetectionSettings;
  actions: ActionSettings;
  /** `--now`; without it, the capture's own time (capture-time.ts), else the wall clock. */
  now?: Date;
  clusterName?: string;
  /** `--max-file-size`. */
  maxFileBytes?: number;
}

/**
 * Captured files → Report, judged at the capture's time (the report's `timeSource` says which).
 * What the loader noticed (skipped files, guesses) and what the reader should know about the
 * time go to stderr.
 */
export async function scanCapture(paths: readonly string[], settings: OfflineScanSettings, ctx: CliContext): Promise<Report> {
  const { snapshot, notices, recordedTimes } = await ctx.services.loadSnapshot(paths, loadOptionsOf(settings));
  const { time, timeSource } = judgeCaptureTime({
    ...(settings.now ? { nowOption: settings.now } : {}),
    recorded: recordedTimes ?? [],
    snapshot,
    wallClock: ctx.services.clock(),
  });
  const report = analyze(snapshot, {
    detection: settings.detection,
    actions: settings.actions,
    now: time,
    ...(ctx.services.detectors ? { detectors: ctx.services.detectors } : {}),
  });
  // As live: a capture's region is not known for sure, so the line names none.
  const gone = goneClusterNote(snapshot, report);
  printNotices([...notices, ...timeSource.notes, ...(gone === undefined ? [] : [gone])], ctx);
  return { ...report, timeSource };
}

/** 0 when nothing is at or above `--fail-on`, 1 when something is (docs/usage.md#exit-codes). */
export function exitCodeFor(report: Report, failOn: FailOn): 0 | 1 {
  if (failOn === 'never') return 0;
  return report.findings.some((f) => SEVERITY_RANK[f.severity] >= SEVERITY_RANK[failOn]) ? 1 : 0;
}

/** What the loader takes from a scan's settings: the cluster's name and the size limit, when given. */
export function loadOptionsOf(settings: LoadOptions): LoadOptions {
  return {
    ...(settings.clusterName === undefined ? {} : { clusterName: settings.clusterName }),
    ...(settings.maxFileBytes === undefined ? {} : { maxFileBytes: settings.maxFileBytes }),
  };
}
