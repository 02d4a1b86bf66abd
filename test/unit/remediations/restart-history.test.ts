import { describe, expect, it } from 'vitest';
import {
  formatRestartHistory,
  parseRestartHistory,
  restartStamp,
  restartVerdict,
  type RestartInput,
} from '../../../src/remediations/restart-history.ts';

const NOW = new Date('2026-01-01T01:00:00Z');

function verdict(input: Partial<RestartInput>) {
  return restartVerdict({
    restartedAt: undefined,
    history: undefined,
    pendingSince: '2026-01-01T00:40:00Z',
    now: NOW,
    cooldownMs: 15 * 60_000,
    maxPerHour: 3,
    ...input,
  });
}

describe('restart history annotation', () => {
  it('writes UTC second-precision stamps, as kubectl does in a UTC zone', () => {
    expect(restartStamp(new Date('2026-01-01T01:00:00.789Z'))).toBe('2026-01-01T01:00:00Z');
  });

  it('keeps only the last hour, oldest first, dropping garbage and duplicates', () => {
    const history = '2026-01-01T00:30:00Z, not-a-time,2025-12-31T23:59:59Z,2026-01-01T00:00:01Z,2026-01-01T00:30:00Z';

    const times = parseRestartHistory(history, NOW);

    expect(formatRestartHistory(times)).toBe('2026-01-01T00:00:01Z,2026-01-01T00:30:00Z');
  });

  it('counts exactly one hour ago as outside the window', () => {
    expect(parseRestartHistory('2026-01-01T00:00:00Z', NOW)).toEqual([]);
  });

  it("folds in kubectl's restartedAt written with a local offset, deduplicated against the history", () => {
    const times = parseRestartHistory('2026-01-01T00:30:00Z', NOW, '2026-01-01T01:30:00+01:00');

    expect(formatRestartHistory(times)).toBe('2026-01-01T00:30:00Z');
  });

  it('reads a time slightly in the future (clock skew) as now, and drops one far in the future', () => {
    expect(formatRestartHistory(parseRestartHistory('2026-01-01T01:02:00Z,2027-01-01T00:00:00Z', NOW))).toBe(
      '2026-01-01T01:00:00Z',
    );
  });
});

describe('restartVerdict', () => {
  it('allows the first restart and records it', () => {
    expect(verdict({})).toEqual({
      restart: true,
      stamp: '2026-01-01T01:00:00Z',
      history: '2026-01-01T01:00:00Z',
      count: 1,
    });
  });

  it('appends to the pruned history, and folds in a human kubectl restart', () => {
    const v = verdict({
      history: '2025-12-31T23:30:00Z,2026-01-01T00:10:00Z',
      restartedAt: '2026-01-01T00:30:00Z',
      pendingSince: '2026-01-01T00:50:00Z',
    });

    expect(v).toMatchObject({
      restart: true,
      history: '2026-01-01T00:10:00Z,2026-01-01T00:30:00Z,2026-01-01T01:00:00Z',
      count: 3,
    });
  });

  it('waits for the cooldown after the last restart, whoever made it (boundary: exactly 15 minutes allows)', () => {
    const within = verdict({ restartedAt: '2026-01-01T00:45:01Z' });
    const atBoundary = verdict({ restartedAt: '2026-01-01T00:45:00Z', pendingSince: null });

    expect(within).toEqual({
      restart: false,
      reason: 'restarted 14m59s ago (2026-01-01T00:45:01Z), within the 15m cooldown; waiting for that restart to take effect',
    });
    expect(atBoundary.restart).toBe(true);
  });

  it('applies the cooldown from the history even when restartedAt was removed', () => {
    expect(verdict({ history: '2026-01-01T00:55:00Z' })).toMatchObject({
      restart: false,
      reason: expect.stringContaining('5m ago'),
    });
  });

  it('stops at the hourly cap and tells a human to look', () => {
    const v = verdict({
      history: '2026-01-01T00:05:00Z,2026-01-01T00:25:00Z,2026-01-01T00:44:00Z',
      pendingSince: '2026-01-01T00:58:00Z',
    });

    expect(v).toEqual({
      restart: false,
      reason:
        '3 restarts in the last hour did not help (2026-01-01T00:05:00Z, 2026-01-01T00:25:00Z, 2026-01-01T00:44:00Z; cap 3 per hour); not restarting again — a human must look',
    });
  });

  it('restarts again once the oldest restart leaves the hour', () => {
    const v = verdict({
      history: '2026-01-01T00:00:00Z,2026-01-01T00:20:00Z,2026-01-01T00:40:00Z',
      pendingSince: '2026-01-01T00:56:00Z',
    });

    expect(v).toMatchObject({
      restart: true,
      history: '2026-01-01T00:20:00Z,2026-01-01T00:40:00Z,2026-01-01T01:00:00Z',
      count: 3,
    });
  });

  it('says the restart did not help when the controller has been Pending since before its cooldown ended', () => {
    const v = verdict({ restartedAt: '2026-01-01T00:30:00Z', pendingSince: '2026-01-01T00:30:05Z' });

    expect(v).toEqual({
      restart: false,
      reason:
        'the restart at 2026-01-01T00:30:00Z did not help: the controller has been Pending since 2026-01-01T00:30:05Z, through the 15m cooldown after it; not restarting again — a human must look',
    });
  });

  it('restarts a controller that recovered after the restart and went Pending again later (boundary: cooldown end)', () => {
    const atCooldownEnd = verdict({ restartedAt: '2026-01-01T00:30:00Z', pendingSince: '2026-01-01T00:45:00Z' });
    const later = verdict({ restartedAt: '2026-01-01T00:30:00Z', pendingSince: '2026-01-01T00:45:01Z' });

    expect(atCooldownEnd.restart).toBe(false);
    expect(later.restart).toBe(true);
  });

  it('tries again when the last restart is older than the hour, however long the controller has been Pending', () => {
    expect(verdict({ restartedAt: '2025-12-31T23:59:00Z', pendingSince: '2025-12-31T23:00:00Z' }).restart).toBe(true);
  });

  it('relies on cooldown and cap alone when the finding has no since', () => {
    expect(verdict({ restartedAt: '2026-01-01T00:30:00Z', pendingSince: null }).restart).toBe(true);
  });

  it('never restarts with a cap of 0', () => {
    expect(verdict({ maxPerHour: 0 })).toEqual({ restart: false, reason: 'maxRestartsPerHour is 0: automated restarts are off' });
  });
});
