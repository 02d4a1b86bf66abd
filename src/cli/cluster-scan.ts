import type { Report } from '../domain/report.ts';
import { CLI_ACTIONS, type ActionSettings, type DetectionSettings } from '../domain/settings.ts';
import { isSetAsideGap } from '../domain/snapshot.ts';
import { clockStartingAt } from '../ports/clock.ts';
import { judgeCaptureTime } from '../snapshot/capture-time.ts';
import { simulatedSources } from '../simulator/simulated-sources.ts';
import { scanCluster, type ScanClusterResult } from '../usecases/scan-cluster.ts';
import { goneClusterNote } from '../domain/cluster-gone.ts';
import { ClusterUnreadableError } from '../domain/errors.ts';
import type { CliContext } from './io.ts';
import type { ResolvedTarget } from './live-target.ts';
import { printNotices } from './io.ts';
import { loadOptionsOf } from './offline-scan.ts';

export interface ClusterScanSettings {
  detection: DetectionSettings;
  actions: ActionSettings;
  now: Date;
  /** --cluster with --simulate: the name wins over the capture's, as with --from. */
  clusterName?: string;
  /** `--max-file-size`, for --simulate. */
  maxFileBytes?: number;
}

/** The CLI changes nothing unless asked: `--apply` turns every action that is not `off` to `apply`. */
export function actionsFor(apply: boolean, maxTerminationsPerRun: number): ActionSettings {
  const modes = { ...CLI_ACTIONS.modes };
  if (apply)
    for (const action of Object.keys(modes) as (keyof typeof modes)[]) if (modes[action] !== 'off') modes[action] = 'apply';
  return { ...CLI_ACTIONS, modes, maxTerminationsPerRun };
}

export async function scanLiveCluster(
  { target, loadedKubeconfig }: ResolvedTarget,
  settings: ClusterScanSettings,
  ctx: CliContext,
): Promise<Report> {
  const connection = await ctx.services.connectLive(target, loadedKubeconfig);
  const result = await scanCluster(connection, { ...settings, clusterName: target.clusterName, ...detectorsOf(ctx) });
  return reportOf(result, target.clusterName, connection.aws.region, ctx);
}

export interface SimulationScanSettings extends Omit<ClusterScanSettings, 'now'> {
  /** `--now`; without it, the capture's own time, found as `scan --from` finds it (capture-time.ts). */
  now?: Date;
}

/**
 * The live code path against a simulated cluster seeded from captured files (see simulatedSources),
 * judged at the capture's time as `scan --from` judges it: the simulation's clock starts there and
 * runs on, so its own writes (a deletionTimestamp under --apply) come after the capture's.
 */
export async function scanSimulation(
  paths: readonly string[],
  settings: SimulationScanSettings,
  ctx: CliContext,
): Promise<Report> {
  const loaded = await ctx.services.loadSnapshot(paths, loadOptionsOf(settings));
  const { time, timeSource } = judgeCaptureTime({
    ...(settings.now ? { nowOption: settings.now } : {}),
    recorded: loaded.recordedTimes ?? [],
    snapshot: loaded.snapshot,
    wallClock: ctx.services.clock(),
  });
  printNotices([...loaded.notices, ...timeSource.notes], ctx);
  const clock = clockStartingAt(time, ctx.services.clock);
  const simulation = await ctx.services.startSimulation(loaded.snapshot, { clock });
  try {
    const result = await scanCluster(simulation.connection, {
      ...settings,
      now: time,
      clusterName: simulation.seed.clusterName,
      sources: simulatedSources(simulation.seed),
      knownGaps: loaded.snapshot.gaps.filter(isSetAsideGap),
      ...(loaded.snapshot.unreadFiles ? { unreadFiles: loaded.snapshot.unreadFiles } : {}),
      ...detectorsOf(ctx),
    });
    return { ...reportOf(result, simulation.seed.clusterName, simulation.connection.aws.region, ctx), timeSource };
  } finally {
    await simulation.close();
  }
}

/**
 * A scan that read nothing of the cluster is an error (exit 2), never an empty "no findings" report;
 * a cluster EKS does not know follows the rule every mode shares (goneClusterNote).
 */
function reportOf(result: ScanClusterResult, clusterName: string, region: string, ctx: CliContext): Report {
  printNotices(result.notices, ctx);
  if (result.unreadable) throw new ClusterUnreadableError(clusterName, result.unreadable);
  const gone = goneClusterNote(result.snapshot, result.report, region);
  if (gone !== undefined) printNotices([gone], ctx);
  return result.report;
}

function detectorsOf(ctx: CliContext) {
  return ctx.services.detectors ? { detectors: ctx.services.detectors } : {};
}
