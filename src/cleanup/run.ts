/**
 * One cleanup run's budget and result: the deadline every step, batch and poll checks first, the
 * errors that let the run carry on, and the progress the caller shows.
 */
import type { CleanupProgress, CleanupRequest, CleanupResult, CleanupStep } from '../domain/cleanup.ts';
import { emptyCleanupResult } from '../domain/cleanup.ts';
import type { Clock } from '../ports/clock.ts';
import type { ClusterConnection } from '../usecases/scan-cluster.ts';

/** How a step ended: it ran to its end (maybe with errors), or time ran out and the next run carries on. */
export type StepEnd = 'done' | 'stopped';

/** What every step is given. */
export interface CleanupContext {
  request: CleanupRequest;
  connection: ClusterConnection;
  run: CleanupRun;
  nodeClaimWaitMs: number;
  pollIntervalMs: number;
}

export class CleanupRun {
  readonly result: CleanupResult;
  readonly #clock: Clock;
  readonly #deadline: number;
  readonly #onProgress: ((progress: CleanupProgress) => void) | undefined;

  constructor(request: CleanupRequest, clock: Clock, deadline: Date, onProgress?: (progress: CleanupProgress) => void) {
    this.result = emptyCleanupResult(request);
    this.#clock = clock;
    this.#deadline = deadline.getTime();
    this.#onProgress = onProgress;
  }

  now(): Date {
    return this.#clock.now();
  }

  /** True once the deadline has come: `step` then starts nothing more, and the next run starts with it. */
  outOfTime(step: CleanupStep): boolean {
    if (this.#clock.now().getTime() < this.#deadline) return false;
    this.result.stoppedAt = step;
    return true;
  }

  /**
   * Waits `ms` before the next look. A look that could only start at or after the deadline is not
   * waited for: returning now leaves the caller (a Lambda near its timeout) the time that is left.
   */
  async pause(step: CleanupStep, ms: number): Promise<boolean> {
    if (this.#clock.now().getTime() + ms >= this.#deadline) {
      this.result.stoppedAt = step;
      return false;
    }
    await this.#clock.sleep(ms);
    return true;
  }

  fail(step: CleanupStep, message: string, resource?: string): void {
    this.result.errors.push(resource === undefined ? { step, message } : { step, resource, message });
  }

  note(step: CleanupStep, message: string): void {
    this.#onProgress?.({ kind: 'step', step, message });
  }

  progress(progress: CleanupProgress): void {
    this.#onProgress?.(progress);
  }

  /** Lists sorted and free of repeats; complete only when nothing stopped the run and nothing failed. */
  finish(): CleanupResult {
    const r = this.result;
    const sorted = (list: readonly string[]) => [...new Set(list)].sort();
    return {
      ...r,
      complete: r.stoppedAt === undefined && r.errors.length === 0,
      nodePoolsDeleted: sorted(r.nodePoolsDeleted),
      instancesTerminated: sorted(r.instancesTerminated),
      launchTemplatesDeleted: sorted(r.launchTemplatesDeleted),
      instanceProfilesDeleted: sorted(r.instanceProfilesDeleted),
    };
  }
}
