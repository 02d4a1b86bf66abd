/**
 * Destroy-time cleanup over the ports (DESIGN.md "Destroy-time cleanup"). PLACEHOLDER: the
 * signature is the contract; helper A implements the body.
 */
import type { CleanupProgress, CleanupRequest, CleanupResult } from '../domain/cleanup.ts';
import type { Clock } from '../ports/clock.ts';
import type { ClusterConnection } from './scan-cluster.ts';

export interface CleanupDependencies {
  connection: ClusterConnection;
  clock: Clock;
  /** Called as the run goes (step started, still waiting for N NodeClaims / instances). */
  onProgress?: (progress: CleanupProgress) => void;
}

export interface CleanupSettings {
  /** No step, batch or wait starts after this; the result then says `complete: false` and `stoppedAt`. */
  deadline: Date;
  /** How long to wait for the deleted NodePools' NodeClaims to go, counted from their deletion. Default 5 min. */
  nodeClaimWaitMs?: number;
  /** Between two looks at NodeClaims or shutting-down instances. Default 10 s. */
  pollIntervalMs?: number;
}

export const DEFAULT_NODECLAIM_WAIT_MS = 5 * 60_000;
export const DEFAULT_CLEANUP_POLL_MS = 10_000;

export async function runCleanup(
  request: CleanupRequest,
  dependencies: CleanupDependencies,
  settings: CleanupSettings,
): Promise<CleanupResult> {
  void request;
  void dependencies;
  void settings;
  throw new Error('runCleanup: not implemented yet');
}
