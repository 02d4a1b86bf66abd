/**
 * One cleanup run's budget and result: the deadline every step, batch and poll checks first, the
 * errors that let the run carry on, and the progress the caller shows.
 */
import type { CleanupProgress, CleanupRequest, CleanupResult, CleanupStep, CleanupStepNotStarted } from '../domain/cleanup.ts';
import { emptyCleanupResult } from '../domain/cleanup.ts';
import type { Clock } from '../ports/clock.ts';
import type { ClusterConnection } from '../ports/cluster.ts';

/** How a step ended: it ran to its end (maybe with errors), or time ran out and the next run carries on. */
export type StepEnd = 'done' | 'stopped';

/**
 * Instances the NodePools step says must stay (apply runs): all of them when the NodePools could
 * not be listed or deleted at all, else those of the NodePools that could not be deleted. A
 * controller that still runs would launch replacements and fight the cleanup.
 */
export interface InstanceHold {
  reason: string;
  /** Only these NodePools' instances; absent: every instance. */
  nodePools?: string[];
}

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
  readonly #notStarted: CleanupStepNotStarted[] = [];
  /** Set by the NodePools step: instances the instances step must not terminate. */
  instanceHold: InstanceHold | undefined;
  /**
   * Set by the instances step (apply runs) when it cannot show every Karpenter instance of the
   * cluster terminated: listing failed, one was held or not terminated, or its end was not seen.
   */
  instancesNotAllTerminated: string | undefined;

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

  /** `step` is not started (or, with `nodePools`, not for those): said in the result, which is then not complete. */
  notStarted(step: CleanupStep, reason: string, nodePools?: readonly string[]): void {
    this.#notStarted.push(nodePools === undefined ? { step, reason } : { step, reason, nodePools: [...nodePools].sort() });
    this.note(step, `not started: ${reason}`);
  }

  note(step: CleanupStep, message: string): void {
    this.#onProgress?.({ kind: 'step', step, message });
  }

  progress(progress: CleanupProgress): void {
    this.#onProgress?.(progress);
  }

  /** Lists sorted and free of repeats; complete only when nothing stopped the run, held a step back or failed. */
  finish(): CleanupResult {
    const r = this.result;
    const sorted = (list: readonly string[]) => [...new Set(list)].sort();
    return {
      ...r,
      ...(this.#notStarted.length > 0 ? { stepsNotStarted: [...this.#notStarted] } : {}),
      complete: r.stoppedAt === undefined && r.errors.length === 0 && this.#notStarted.length === 0,
      nodePoolsDeleted: sorted(r.nodePoolsDeleted),
      instancesTerminated: sorted(r.instancesTerminated),
      launchTemplatesDeleted: sorted(r.launchTemplatesDeleted),
      instanceProfilesDeleted: sorted(r.instanceProfilesDeleted),
    };
  }
}
