import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nextFire, parseCron } from '../../../../src/detectors/karpenter/cron.ts';
import {
  allowedDisruptions,
  budgetLimitsReason,
  describeBudget,
  nextOpening,
} from '../../../../src/detectors/karpenter/disruption-budgets.ts';
import type { DisruptionBudget } from '../../../../src/domain/kube.ts';
import { nodePool } from '../../../factories/karpenter.ts';

// 2026-01-05 is a Monday.
const MONDAY_10AM = new Date('2026-01-05T10:00:00Z');
const pool = (budgets?: DisruptionBudget[]) => nodePool({ name: 'default', ...(budgets ? { disruption: { budgets } } : {}) });

describe('allowedDisruptions: Karpenter GetAllowedDisruptionsByReason', () => {
  it('no budgets: the default 10%, rounded up', () => {
    // Act
    const result = allowedDisruptions(pool(), 'Underutilized', 15, MONDAY_10AM);

    // Assess
    expect(result.allowed).toBe(2);
    expect(result.defaulted).toBe(true);
    expect(result.limiting?.text).toBe('default budget nodes: "10%"');
    expect(result.blocking).toBeUndefined();
  });

  it('an empty list of budgets: no limit', () => {
    // Act
    const result = allowedDisruptions(pool([]), 'Drifted', 15, MONDAY_10AM);

    // Assess
    expect(result.allowed).toBe(Number.POSITIVE_INFINITY);
    expect(result.defaulted).toBe(false);
  });

  it('percentages round up: 5% of 10 nodes is 1, 0% is 0', () => {
    // Act / Assess
    expect(allowedDisruptions(pool([{ nodes: '5%' }]), 'Empty', 10, MONDAY_10AM).allowed).toBe(1);
    expect(allowedDisruptions(pool([{ nodes: '0%' }]), 'Empty', 10, MONDAY_10AM).allowed).toBe(0);
    expect(allowedDisruptions(pool([{ nodes: '3' }]), 'Empty', 10, MONDAY_10AM).allowed).toBe(3);
  });

  it('the most restrictive active budget that applies to the reason wins', () => {
    // Prepare
    const np = pool([
      { nodes: '20%' },
      { nodes: '1', reasons: ['Underutilized'] },
      { nodes: '0', reasons: ['Drifted'], schedule: '0 9 * * mon-fri', duration: '8h' },
    ]);

    // Act
    const underutilized = allowedDisruptions(np, 'Underutilized', 20, MONDAY_10AM);
    const drifted = allowedDisruptions(np, 'Drifted', 20, MONDAY_10AM);
    const empty = allowedDisruptions(np, 'Empty', 20, MONDAY_10AM);

    // Assess
    expect(underutilized.allowed).toBe(1);
    expect(underutilized.limiting?.index).toBe(1);
    expect(drifted).toMatchObject({
      allowed: 0,
      blocking: {
        index: 2,
        text: 'budgets[2] nodes: "0" reasons [Drifted] schedule "0 9 * * mon-fri" for 8h',
        activeUntil: new Date('2026-01-05T17:00:00Z'),
      },
    });
    expect(empty.allowed).toBe(4);
  });

  it('a scheduled budget is active from the fire for its duration, not after', () => {
    // Prepare
    const np = pool([{ nodes: '0', schedule: '0 9 * * *', duration: '1h30m' }]);
    const allowedAt = (iso: string) => allowedDisruptions(np, 'Drifted', 10, new Date(iso)).allowed;

    // Act / Assess
    expect(allowedAt('2026-01-05T08:59:59Z')).toBe(Number.POSITIVE_INFINITY);
    expect(allowedAt('2026-01-05T09:00:00Z')).toBe(0);
    expect(allowedAt('2026-01-05T10:29:59Z')).toBe(0);
    expect(allowedAt('2026-01-05T10:30:00Z')).toBe(Number.POSITIVE_INFINITY);
  });

  it('a duration with a trailing 0s, as Go prints it, reads the same', () => {
    // Prepare
    const np = pool([{ nodes: '0', schedule: '@daily', duration: '10h0m0s' }]);

    // Act / Assess
    expect(allowedDisruptions(np, 'Empty', 10, new Date('2026-01-05T09:59:00Z')).allowed).toBe(0);
    expect(allowedDisruptions(np, 'Empty', 10, new Date('2026-01-05T10:00:00Z')).allowed).toBe(Number.POSITIVE_INFINITY);
  });

  it('an invalid cron in any budget fails closed for every reason, and says so', () => {
    // Prepare: weekday 7 is not Sunday for robfig/cron.
    const np = pool([{ nodes: '10%' }, { nodes: '0', reasons: ['Drifted'], schedule: '0 22 * * 7', duration: '2h' }]);

    // Act
    const result = allowedDisruptions(np, 'Underutilized', 30, MONDAY_10AM);

    // Assess
    expect(result.allowed).toBe(0);
    expect(result.blocking?.index).toBe(1);
    expect(result.invalid).toEqual([
      expect.objectContaining({ index: 1, error: 'invalid cron "0 22 * * 7": end of range (7) above maximum (6): 7' }),
    ]);
    expect(nextOpening(np, 'Underutilized', 30, MONDAY_10AM)).toBeUndefined();
  });

  it('a schedule without a duration is never active; a duration without a schedule is invalid', () => {
    // Act / Assess
    expect(allowedDisruptions(pool([{ nodes: '0', schedule: '* * * * *' }]), 'Empty', 5, MONDAY_10AM).allowed).toBe(
      Number.POSITIVE_INFINITY,
    );
    expect(allowedDisruptions(pool([{ nodes: '5', duration: '1h' }]), 'Empty', 5, MONDAY_10AM).invalid).toHaveLength(1);
  });

  it('a schedule that never fires is always active (robfig returns the zero time)', () => {
    // Act
    const result = allowedDisruptions(pool([{ nodes: '0', schedule: '0 0 30 2 *', duration: '1h' }]), 'Empty', 5, MONDAY_10AM);

    // Assess
    expect(result.allowed).toBe(0);
    expect(result.blocking?.activeUntil).toBeUndefined();
  });

  it('overlapping windows extend each other', () => {
    // Prepare: fires every hour, each window lasts 90 minutes, only during 08:00-12:00 fires.
    const np = pool([{ nodes: '0', schedule: '0 8-12 * * *', duration: '90m' }]);

    // Act
    const result = allowedDisruptions(np, 'Drifted', 5, MONDAY_10AM);

    // Assess
    expect(result.blocking?.activeUntil).toEqual(new Date('2026-01-05T13:30:00Z'));
  });
});

describe('nextOpening', () => {
  it('now when disruption is allowed now', () => {
    // Act / Assess
    expect(nextOpening(pool(), 'Drifted', 10, MONDAY_10AM)).toEqual(MONDAY_10AM);
  });

  it('when the blocking window closes, past windows of other budgets that open meanwhile', () => {
    // Prepare: blocked 09:00-17:00, then another zero budget from 16:00 to 20:00.
    const np = pool([
      { nodes: '0', reasons: ['Drifted'], schedule: '0 9 * * mon-fri', duration: '8h' },
      { nodes: '0', schedule: '0 16 * * *', duration: '4h' },
    ]);

    // Act / Assess
    expect(nextOpening(np, 'Drifted', 10, MONDAY_10AM)).toEqual(new Date('2026-01-05T20:00:00Z'));
    expect(nextOpening(np, 'Underutilized', 10, MONDAY_10AM)).toEqual(MONDAY_10AM);
  });

  it('never, within a year, for an unscheduled nodes: "0"', () => {
    // Act / Assess
    expect(nextOpening(pool([{ nodes: '0', reasons: ['Drifted'] }]), 'Drifted', 10, MONDAY_10AM)).toBeUndefined();
  });
});

describe('budgetLimitsReason', () => {
  it.each([
    ['no budgets (the default 10%)', undefined, 20, false],
    ['an explicit 10% for all reasons', [{ nodes: '10%' }], 20, false],
    ['one node at a time for Underutilized', [{ nodes: '1', reasons: ['Underutilized'] }], 20, true],
    ['one node at a time, on a pool where 10% is one node too', [{ nodes: '1' }], 5, true],
    ['5% of 100 nodes', [{ nodes: '5%' }], 100, true],
    ['an explicit 10% on a pool where it is one node', [{ nodes: '10%' }], 5, false],
    ['3 nodes of 100 (10% would be 10)', [{ nodes: '3' }], 100, true],
    ['3 nodes of 20 (10% would be 2)', [{ nodes: '3' }], 20, false],
    ['a budget for Drifted only', [{ nodes: '0', reasons: ['Drifted'] }], 20, false],
    ['a larger cap', [{ nodes: '50%' }], 20, false],
    ['an integer, node count unknown', [{ nodes: '2' }], undefined, true],
    ['20%, node count unknown', [{ nodes: '20%' }], undefined, false],
  ] as [string, DisruptionBudget[] | undefined, number | undefined, boolean][])(
    '%s → %s',
    (_name, budgets, nodeCount, expected) => {
      // Act
      const limits = budgetLimitsReason(pool(budgets), 'Underutilized', nodeCount, MONDAY_10AM);

      // Assess
      expect(limits).toBe(expected);
    },
  );

  it('a scheduled budget counts only while active when now is given', () => {
    // Prepare
    const np = pool([{ nodes: '1', reasons: ['Underutilized'], schedule: '0 0 * * sat', duration: '48h' }]);

    // Act / Assess
    expect(budgetLimitsReason(np, 'Underutilized', 20, MONDAY_10AM)).toBe(false);
    expect(budgetLimitsReason(np, 'Underutilized', 20, new Date('2026-01-04T10:00:00Z'))).toBe(true);
    expect(budgetLimitsReason(np, 'Underutilized', 20)).toBe(true);
  });
});

describe('helpers', () => {
  it('describeBudget names every field it has', () => {
    expect(describeBudget({ nodes: '1', reasons: ['Underutilized', 'Empty'] }, 0)).toBe(
      'budgets[0] nodes: "1" reasons [Underutilized, Empty]',
    );
  });
});

describe('property: active exactly when the schedule fired within the duration', () => {
  const schedules = ['*/7 * * * *', '0 9 * * mon-fri', '15 */3 * * *', '0 0 1,15 * *', '30 22 * * sun', '@hourly', '0 0 13 * 5'];

  it('agrees with a minute-by-minute look back, and with next(now - duration) <= now', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...schedules),
        fc.integer({ min: 1, max: 36 * 60 }),
        fc.integer({ min: Date.parse('2026-01-01T00:00:00Z'), max: Date.parse('2027-01-01T00:00:00Z') }),
        (schedule, durationMinutes, nowMs) => {
          // Prepare
          const np = pool([{ nodes: '0', schedule, duration: `${durationMinutes}m` }]);
          const parsed = parseCron(schedule);
          if (!parsed.ok) throw new Error(parsed.error);
          let firedWithin = false;
          const lastMinute = Math.floor(nowMs / 60_000) * 60_000;
          for (let t = lastMinute; t > nowMs - durationMinutes * 60_000 && !firedWithin; t -= 60_000) {
            firedWithin = nextFire(parsed.schedule, t - 60_000) === t;
          }
          const karpenter = (nextFire(parsed.schedule, nowMs - durationMinutes * 60_000) ?? 0) <= nowMs;

          // Act
          const result = allowedDisruptions(np, 'Drifted', 10, new Date(nowMs));

          // Assess
          expect(result.allowed === 0).toBe(firedWithin);
          expect(result.allowed === 0).toBe(karpenter);
          if (result.blocking?.activeUntil) {
            const until = result.blocking.activeUntil.getTime();
            expect(until).toBeGreaterThan(nowMs);
            expect(allowedDisruptions(np, 'Drifted', 10, new Date(until - 1)).allowed).toBe(0);
            expect(allowedDisruptions(np, 'Drifted', 10, new Date(until)).allowed).toBe(Number.POSITIVE_INFINITY);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
