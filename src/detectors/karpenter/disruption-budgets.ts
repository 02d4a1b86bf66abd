/**
 * A NodePool's disruption budgets (`spec.disruption.budgets`) evaluated at an instant exactly as
 * Karpenter evaluates them (core `pkg/apis/v1/nodepool.go`: `GetAllowedDisruptionsByReason`,
 * `MustGetAllowedDisruptions`, `Budget.GetAllowedDisruptions`, `Budget.IsActive`). Pure.
 *
 * API:
 * - `allowedDisruptions(nodePool, reason, nodeCount, now)` → `{ allowed, limiting?, blocking?,
 *   defaulted, invalid }`: how many of the NodePool's nodes Karpenter lets be disrupting at once
 *   for `reason` at `now` (`Infinity` when no budget applies, e.g. `budgets: []`); `limiting` is
 *   the budget that sets that number (the most restrictive active one that applies; the first on
 *   a tie), `blocking` the same when it allows 0 (with `activeUntil`, when its scheduled window
 *   closes, if it is scheduled and closes within a year); `defaulted` when `budgets` is absent
 *   and Karpenter's default `[{nodes: "10%"}]` applies; `invalid` lists budgets Karpenter cannot
 *   evaluate (then every reason is allowed 0: Karpenter fails closed).
 * - `nextOpening(nodePool, reason, nodeCount, now)` → the first instant at or after `now` when
 *   `allowed` > 0 (`now` itself when it already is), or undefined when not within a year (an
 *   unscheduled `nodes: "0"`, an invalid budget).
 * - `budgetLimitsReason(nodePool, reason, nodeCount, now?)` → whether some budget that applies to
 *   `reason` limits it below Karpenter's default: a percentage below 10%, or a number of nodes
 *   below 10% of `nodeCount` (rounded up) or at most 1 (one at a time, the tightest cap that still
 *   lets disruption run; with `nodeCount` undefined, any number). An explicit `10%` or more is the
 *   default or looser, whatever the node count. With `now`, a scheduled budget counts only when
 *   active then; without, any scheduled budget counts. An invalid budget counts (it blocks all).
 * - `describeBudget(budget, index)` → `budgets[1] nodes: "0" reasons [Drifted] schedule "0 9 * * mon-fri" for 8h`.
 *
 * Karpenter's rules, as implemented:
 * - `budgets` absent (or null) → one budget `nodes: "10%"`; present but empty → no limit.
 * - A budget applies to `reason` when `reasons` is absent or lists it (`reasons: []` applies to none).
 * - No `schedule` and no `duration` → always active. Otherwise active when the schedule fired
 *   within `duration` before now (`next(now - duration) <= now`, so active in `[hit, hit + duration)`).
 *   A `schedule` without a `duration` is never active; a `duration` without a `schedule` is an
 *   invalid cron. A schedule that never fires (`0 0 30 2 *`) makes robfig's `Next` return the zero
 *   time, which Karpenter reads as "already fired": such a budget is always active.
 * - `nodes`: an integer, or a percentage of `nodeCount` rounded up (5% of 10 nodes → 1).
 *   Karpenter counts the NodePool's initialized nodes that are not terminating.
 * - The minimum over the active budgets that apply wins.
 * - An invalid cron or duration in any budget, even one for another reason, and an unreadable
 *   `nodes` in an active budget, make Karpenter allow 0 for every reason of the NodePool
 *   (`MustGetAllowedDisruptions` fails closed on any error).
 * - Expiry (`expireAfter`) is not budgeted: budgets' reasons are Underutilized, Empty, Drifted only.
 */
import { parseGoDuration } from '../../domain/kube-helpers.ts';
import type { DisruptionBudget, NodePool } from '../../domain/kube.ts';
import { parseCron, nextFire, previousFire, type CronSchedule } from './cron.ts';

export type DisruptionReason = 'Underutilized' | 'Empty' | 'Drifted';

/** Karpenter's default when `budgets` is absent. */
export const DEFAULT_BUDGET: Readonly<DisruptionBudget> = { nodes: '10%' };
const DEFAULT_PERCENT = 10;

const YEAR_MS = 366 * 24 * 3_600_000;

interface BudgetRef {
  /** Index in `spec.disruption.budgets`; -1 for the default budget. */
  index: number;
  budget: DisruptionBudget;
  /** One line for a human: `budgets[1] nodes: "0" reasons [Drifted] schedule "0 9 * * mon-fri" for 8h`. */
  text: string;
  /** When this budget's scheduled window closes (absent: unscheduled, or open for over a year). */
  activeUntil?: Date;
}

interface InvalidBudget {
  index: number;
  budget: DisruptionBudget;
  /** What Karpenter cannot read, e.g. `invalid cron "0 9 * * 7": end of range (7) above maximum (6): 7`. */
  error: string;
}

export interface AllowedDisruptions {
  /** Nodes that may be disrupting at once for the reason; Infinity when no budget applies. */
  allowed: number;
  limiting?: BudgetRef;
  /** `limiting` when it allows 0 nodes. */
  blocking?: BudgetRef;
  /** `budgets` absent: Karpenter's default `nodes: "10%"` applied. */
  defaulted: boolean;
  /** Budgets Karpenter cannot evaluate; when any, `allowed` is 0 (fail closed). */
  invalid: InvalidBudget[];
}

function quoted(value: string): string {
  return JSON.stringify(value);
}

/** `budgets[1] nodes: "0" reasons [Drifted] schedule "0 9 * * mon-fri" for 8h`. */
export function describeBudget(budget: DisruptionBudget, index: number): string {
  const head = index < 0 ? 'default budget' : `budgets[${index}]`;
  const reasons = budget.reasons ? ` reasons [${budget.reasons.join(', ')}]` : '';
  const schedule = budget.schedule !== undefined ? ` schedule ${quoted(budget.schedule)}` : '';
  const duration = budget.duration !== undefined ? ` for ${budget.duration}` : '';
  return `${head} nodes: ${quoted(budget.nodes ?? '')}${reasons}${schedule}${duration}`;
}

type Timing =
  | { kind: 'always' }
  | { kind: 'never' }
  | { kind: 'scheduled'; schedule: CronSchedule; durationMs: number }
  | { kind: 'invalid'; error: string };

function timingOf(budget: DisruptionBudget): Timing {
  if (budget.schedule === undefined && budget.duration === undefined) return { kind: 'always' };
  const parsed = parseCron(budget.schedule ?? '');
  if (!parsed.ok) return { kind: 'invalid', error: `invalid cron ${quoted(budget.schedule ?? '')}: ${parsed.error}` };
  const durationMs = budget.duration === undefined ? 0 : parseGoDuration(budget.duration);
  // `Never` is no duration a budget can have.
  if (durationMs === undefined || !Number.isFinite(durationMs))
    return { kind: 'invalid', error: `invalid duration ${quoted(budget.duration ?? '')}` };
  if (durationMs <= 0) return { kind: 'never' };
  return { kind: 'scheduled', schedule: parsed.schedule, durationMs };
}

/** Karpenter's IsActive. */
function isActive(timing: Timing, nowMs: number): boolean {
  switch (timing.kind) {
    case 'always':
      return true;
    case 'never':
    case 'invalid':
      return false;
    case 'scheduled': {
      const next = nextFire(timing.schedule, nowMs - timing.durationMs);
      // robfig returns the zero time when the schedule never fires; Karpenter reads it as active.
      return next === undefined || next <= nowMs;
    }
  }
}

/**
 * When an active scheduled window closes: windows that overlap (a fire before the last one's
 * duration ran out) extend it. Undefined when it does not close within a year.
 */
function windowEnd(timing: Timing, nowMs: number): number | undefined {
  if (timing.kind !== 'scheduled') return undefined;
  let hit = previousFire(timing.schedule, nowMs);
  if (hit === undefined) return undefined;
  while (hit <= nowMs + YEAR_MS) {
    const end = hit + timing.durationMs;
    const later = previousFire(timing.schedule, end);
    if (later === undefined || later <= hit) return end;
    hit = later;
  }
  return undefined;
}

/** Karpenter's scaled value of `nodes` (percentages round up), or undefined when unreadable. */
export function budgetCap(nodes: string | undefined, nodeCount: number): number | undefined {
  const text = nodes ?? '';
  if (/^[+-]?\d+$/.test(text)) return Number(text);
  const percent = /^([+-]?\d+)%$/.exec(text);
  if (!percent) return undefined;
  return Math.ceil((Number(percent[1]) * nodeCount) / 100);
}

function appliesTo(budget: DisruptionBudget, reason: DisruptionReason): boolean {
  return budget.reasons === undefined || budget.reasons.includes(reason);
}

function budgetsOf(nodePool: NodePool): { budgets: DisruptionBudget[]; defaulted: boolean; offset: number } {
  const budgets = nodePool.spec?.disruption?.budgets;
  return budgets === undefined
    ? { budgets: [DEFAULT_BUDGET], defaulted: true, offset: -1 }
    : { budgets, defaulted: false, offset: 0 };
}

function evaluate(nodePool: NodePool, reason: DisruptionReason, nodeCount: number, nowMs: number): AllowedDisruptions {
  const { budgets, defaulted, offset } = budgetsOf(nodePool);
  const invalid: InvalidBudget[] = [];
  let allowed = Number.POSITIVE_INFINITY;
  let limiting: { index: number; budget: DisruptionBudget; timing: Timing } | undefined;
  budgets.forEach((budget, i) => {
    const index = defaulted ? offset : i;
    const timing = timingOf(budget);
    if (timing.kind === 'invalid') {
      invalid.push({ index, budget, error: timing.error });
      return;
    }
    if (!isActive(timing, nowMs)) return;
    const cap = budgetCap(budget.nodes, nodeCount);
    if (cap === undefined) {
      invalid.push({ index, budget, error: `invalid nodes ${quoted(budget.nodes ?? '')}` });
      return;
    }
    if (appliesTo(budget, reason) && cap < allowed) {
      allowed = cap;
      limiting = { index, budget, timing };
    }
  });
  if (invalid.length > 0) {
    const first = invalid[0]!;
    const ref: BudgetRef = { index: first.index, budget: first.budget, text: describeBudget(first.budget, first.index) };
    return { allowed: 0, limiting: ref, blocking: ref, defaulted, invalid };
  }
  if (!limiting) return { allowed, defaulted, invalid };
  const until = windowEnd(limiting.timing, nowMs);
  const ref: BudgetRef = {
    index: limiting.index,
    budget: limiting.budget,
    text: describeBudget(limiting.budget, limiting.index),
    ...(until !== undefined ? { activeUntil: new Date(until) } : {}),
  };
  return { allowed, limiting: ref, ...(allowed <= 0 ? { blocking: ref } : {}), defaulted, invalid };
}

/** How many of the NodePool's `nodeCount` nodes Karpenter lets be disrupting at once for `reason` at `now`. */
export function allowedDisruptions(
  nodePool: NodePool,
  reason: DisruptionReason,
  nodeCount: number,
  now: Date,
): AllowedDisruptions {
  return evaluate(nodePool, reason, nodeCount, now.getTime());
}

/**
 * The first instant at or after `now` when Karpenter allows more than 0 disruptions for `reason`,
 * or undefined when that is not within a year. Each step jumps to when the windows of all the
 * budgets that allow 0 then have closed, and looks again (another may have opened meanwhile).
 */
export function nextOpening(nodePool: NodePool, reason: DisruptionReason, nodeCount: number, now: Date): Date | undefined {
  const { budgets } = budgetsOf(nodePool);
  const horizon = now.getTime() + YEAR_MS;
  let t = now.getTime();
  for (let step = 0; step < 10_000 && t <= horizon; step++) {
    const result = evaluate(nodePool, reason, nodeCount, t);
    if (result.allowed > 0) return new Date(t);
    if (result.invalid.length > 0) return undefined;
    let until = t;
    for (const budget of budgets) {
      if (!appliesTo(budget, reason) || (budgetCap(budget.nodes, nodeCount) ?? 0) > 0) continue;
      const timing = timingOf(budget);
      if (!isActive(timing, t)) continue;
      const end = windowEnd(timing, t);
      if (end === undefined) return undefined;
      until = Math.max(until, end);
    }
    if (until <= t) return undefined;
    t = until;
  }
  return undefined;
}

/**
 * Whether some budget that applies to `reason` limits it below Karpenter's default 10%. See the
 * file header for the rule, `now` and an unknown `nodeCount`.
 */
export function budgetLimitsReason(
  nodePool: NodePool,
  reason: DisruptionReason,
  nodeCount: number | undefined,
  now?: Date,
): boolean {
  const { budgets, defaulted } = budgetsOf(nodePool);
  if (defaulted) return false;
  return budgets.some((budget) => {
    if (!appliesTo(budget, reason)) return false;
    const timing = timingOf(budget);
    if (timing.kind === 'invalid') return true;
    if (timing.kind === 'never') return false;
    if (now !== undefined && !isActive(timing, now.getTime())) return false;
    const text = budget.nodes ?? '';
    const percent = /^([+-]?\d+)%$/.exec(text);
    if (percent) return Number(percent[1]) < DEFAULT_PERCENT;
    const cap = budgetCap(text, nodeCount ?? 0);
    if (cap === undefined) return true;
    return nodeCount === undefined || cap <= 1 || cap < Math.ceil((DEFAULT_PERCENT * nodeCount) / 100);
  });
}
