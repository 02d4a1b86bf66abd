import type { CleanupProgress, CleanupRequest, CleanupResult } from '../domain/cleanup.ts';
import { runCleanup } from '../usecases/cleanup.ts';
import type { ClusterConnection } from '../ports/cluster.ts';
import type { ResolvedTarget } from './live-target.ts';
import type { LoadOptions } from '../snapshot/load.ts';
import { printNotices } from './io.ts';
import type { CliContext } from './io.ts';
import { loadOptionsOf } from './offline-scan.ts';

export interface CleanupRunOptions {
  request: Omit<CleanupRequest, 'clusterName'>;
  deadline: Date;
  nodeClaimWaitMs: number;
  onProgress: (progress: CleanupProgress) => void;
}

/** What the cleanup command prints: the run's result, and the region the AWS calls went to (its header). */
export interface CleanupResultInRegion {
  result: CleanupResult;
  region: string;
}

export async function cleanupLiveCluster(
  { target, loadedKubeconfig }: ResolvedTarget,
  options: CleanupRunOptions,
  ctx: CliContext,
): Promise<CleanupResultInRegion> {
  const connection = await ctx.services.connectLive(target, loadedKubeconfig);
  return cleanupThrough(connection, target.clusterName, options, ctx);
}

/** The live code path against a simulated cluster seeded from captured files: `--apply` changes only the simulation. */
export async function cleanupSimulation(
  paths: readonly string[],
  load: LoadOptions,
  options: CleanupRunOptions,
  ctx: CliContext,
): Promise<CleanupResultInRegion> {
  const loaded = await ctx.services.loadSnapshot(paths, loadOptionsOf(load));
  printNotices(loaded.notices, ctx);
  // The simulated cluster's own writes (a NodeClaim's deletionTimestamp) on the run's clock, so the
  // NodeClaim wait is measured as it would be live.
  const timer = ctx.services.timer;
  const simulation = await ctx.services.startSimulation(loaded.snapshot, { clock: timer, kube: { clock: timer } });
  try {
    return await cleanupThrough(simulation.connection, simulation.seed.clusterName, options, ctx);
  } finally {
    await simulation.close();
  }
}

async function cleanupThrough(
  connection: ClusterConnection,
  clusterName: string,
  options: CleanupRunOptions,
  ctx: CliContext,
): Promise<CleanupResultInRegion> {
  const result = await runCleanup(
    { ...options.request, clusterName },
    { connection, clock: ctx.services.timer, onProgress: options.onProgress },
    { deadline: options.deadline, nodeClaimWaitMs: options.nodeClaimWaitMs },
  );
  return { result, region: connection.aws.region };
}
