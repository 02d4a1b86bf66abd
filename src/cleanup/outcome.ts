/**
 * What one step returns: what it did (or, in a dry run, would do), what it held and why, what it
 * could not start and why, its errors, and whether time ran out. A step writes only its own
 * StepRecord while it runs and returns `outcome()`, frozen: the steps after it and the result read
 * it and cannot change it, the way Karpenter's lifecycle reconcilers each return a result the
 * controller composes. Dry run and apply compute the same outcomes; a dry run only stops before
 * each write (docs/cleanup.md, "Dry run = apply").
 */
import type { CleanupError, CleanupStep, CleanupStepNotStarted } from '../domain/cleanup.ts';
import type { CleanupBudget } from './budget.ts';

/** A resource kept on purpose: its id or name, why, and the instances that still use it. */
export interface Held {
  readonly resource: string;
  readonly reason: string;
  readonly instances?: readonly string[];
}

export interface StepOutcome {
  readonly step: CleanupStep;
  /** Deleted or terminated; in a dry run, what would be. */
  readonly done: readonly string[];
  /** Kept on purpose, each with why (and the instances that hold it). */
  readonly held: readonly Held[];
  readonly errors: readonly CleanupError[];
  readonly notStarted: readonly CleanupStepNotStarted[];
  /** What the caller must read though nothing failed (the cluster does not exist): the result's `notes`. */
  readonly notes: readonly string[];
  /** The deadline came during this step: the run stops, and the next one starts here. */
  readonly stopped: boolean;
}

/** A step's working record: written by that step alone while it runs, never handed on. */
export class StepRecord {
  readonly step: CleanupStep;
  readonly done: string[] = [];
  readonly held: Held[] = [];
  readonly errors: CleanupError[] = [];
  readonly notStarted: CleanupStepNotStarted[] = [];
  readonly notes: string[] = [];
  stopped = false;
  readonly #budget: CleanupBudget;

  constructor(step: CleanupStep, budget: CleanupBudget) {
    this.step = step;
    this.#budget = budget;
  }

  fail(message: string, resource?: string): void {
    this.errors.push(resource === undefined ? { step: this.step, message } : { step: this.step, resource, message });
  }

  /** Not started (or, with `nodePools`, not for those): said in the result, which is then not complete. */
  notStart(reason: string, nodePools?: readonly string[]): void {
    this.notStarted.push(
      nodePools === undefined ? { step: this.step, reason } : { step: this.step, reason, nodePools: [...nodePools].sort() },
    );
    this.note(`not started: ${reason}`);
  }

  note(message: string): void {
    this.#budget.note(this.step, message);
  }

  /** A note the result carries too (`notes`), not only the progress log: the caller sees it. */
  noteInResult(message: string): void {
    this.notes.push(message);
    this.note(message);
  }

  /** True (and the step stopped) once the deadline has come. */
  outOfTime(): boolean {
    if (!this.#budget.outOfTime()) return false;
    this.stopped = true;
    return true;
  }

  /** Waits before the next look; false (and the step stopped) when that look could not start in time. */
  async pause(ms: number): Promise<boolean> {
    if (await this.#budget.pause(ms)) return true;
    this.stopped = true;
    return false;
  }

  /** What the step hands on: a frozen copy, so no later step can change what this one did. */
  outcome(): StepOutcome {
    return Object.freeze({
      step: this.step,
      done: frozen(this.done),
      held: frozen(this.held),
      errors: frozen(this.errors),
      notStarted: frozen(this.notStarted),
      notes: frozen(this.notes),
      stopped: this.stopped,
    });
  }
}

/** Runs a step's work on its own record, then hands on what the record says: the step's outcome. */
export async function recorded<R extends StepRecord>(out: R, work: (out: R) => Promise<void>): Promise<ReturnType<R['outcome']>> {
  await work(out);
  return out.outcome() as ReturnType<R['outcome']>;
}

export function frozen<T>(list: readonly T[]): readonly T[] {
  return Object.freeze([...list]);
}
