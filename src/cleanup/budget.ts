/**
 * One cleanup run's time and voice: the deadline every step, batch and poll checks first, and the
 * progress the caller shows. It holds nothing a step decides: what each step did, planned, held or
 * failed is its outcome (src/cleanup/outcome.ts), handed to the steps after it.
 */
import type { CleanupProgress, CleanupRequest, CleanupStep } from '../domain/cleanup.ts';
import type { Clock } from '../ports/clock.ts';
import type { ClusterConnection } from '../ports/cluster.ts';

/** What every step is given. */
export interface CleanupContext {
  readonly request: CleanupRequest;
  readonly connection: ClusterConnection;
  readonly budget: CleanupBudget;
  readonly nodeClaimWaitMs: number;
  readonly pollIntervalMs: number;
}

export class CleanupBudget {
  readonly #clock: Clock;
  readonly #deadline: number;
  readonly #onProgress: ((progress: CleanupProgress) => void) | undefined;

  constructor(clock: Clock, deadline: Date, onProgress?: (progress: CleanupProgress) => void) {
    this.#clock = clock;
    this.#deadline = deadline.getTime();
    this.#onProgress = onProgress;
  }

  now(): Date {
    return this.#clock.now();
  }

  /** True once the deadline has come: nothing more starts, and the next run carries on. */
  outOfTime(): boolean {
    return this.#clock.now().getTime() >= this.#deadline;
  }

  /**
   * Waits `ms` before the next look. A look that could only start at or after the deadline is not
   * waited for (false): returning now leaves the caller (a Lambda near its timeout) the time left.
   */
  async pause(ms: number): Promise<boolean> {
    if (this.#clock.now().getTime() + ms >= this.#deadline) return false;
    await this.#clock.sleep(ms);
    return true;
  }

  note(step: CleanupStep, message: string): void {
    this.#onProgress?.({ kind: 'step', step, message });
  }

  progress(progress: CleanupProgress): void {
    this.#onProgress?.(progress);
  }
}
