import { describe, expect, it } from 'vitest';
import { InMemoryStateStore } from '../../../../src/adapters/memory/state.ts';
import type { ClusterRecordsSummary, ClusterStatus, StateStore } from '../../../../src/ports/state.ts';
import { readClusterRecords, readOpenAlerts, summaryAfter } from '../../../../src/usecases/scan-steps/records.ts';

const NOW = new Date('2026-01-01T02:00:05Z');
const STATUS: ClusterStatus = {
  cluster: 'shop-prod',
  observedAt: '2026-01-01T02:00:05Z',
  controller: 'available',
  readyReplicas: 2,
  desiredReplicas: 2,
};

/** The in-memory store, recording which reads were made. */
function readsOf(): { state: StateStore; reads: string[] } {
  const state = new InMemoryStateStore();
  const reads: string[] = [];
  for (const name of ['undelivered', 'activeCooldowns', 'openAlerts'] as const) {
    const read = state[name].bind(state) as (...args: unknown[]) => Promise<unknown>;
    (state as unknown as Record<string, unknown>)[name] = async (...args: unknown[]) => {
      reads.push(name);
      return read(...args);
    };
  }
  return { state, reads };
}

function summary(overrides: Partial<ClusterRecordsSummary> = {}): ClusterRecordsSummary {
  return { scannedAt: '2026-01-01T01:59:05.000Z', openAlerts: false, outbox: false, status: STATUS, ...overrides };
}

describe('readClusterRecords', () => {
  it('reads everything without a summary (the first scan, or after a failed one)', async () => {
    const { state, reads } = readsOf();

    await readClusterRecords(state, 'shop-prod', NOW, undefined);
    await readOpenAlerts(state, 'shop-prod', undefined);

    expect(reads.sort()).toEqual(['activeCooldowns', 'openAlerts', 'undelivered']);
  });

  it('reads nothing the summary says is empty, and finds nothing', async () => {
    const { state, reads } = readsOf();

    const quiet = summary({ cooldownsUntil: '2026-01-01T02:00:05.000Z' });
    const records = await readClusterRecords(state, 'shop-prod', NOW, quiet);
    const open = await readOpenAlerts(state, 'shop-prod', quiet);

    expect(reads).toEqual([]);
    expect({ ...records, open }).toEqual({ undelivered: [], cooldowns: [], open: [] });
  });

  it('reads the open alerts, the outbox and a cooldown still running when the summary says they may hold something', async () => {
    const { state, reads } = readsOf();
    await state.startCooldown({
      cluster: 'shop-prod',
      findingId: 'f1',
      action: 'ROLLOUT_RESTART',
      until: '2026-01-01T02:10:00.000Z',
      lastOutcome: 'applied at 2026-01-01T01:55:00.000Z',
    });

    const mayHold = summary({ openAlerts: true, outbox: true, cooldownsUntil: '2026-01-01T02:10:00.000Z' });
    const records = await readClusterRecords(state, 'shop-prod', NOW, mayHold);
    await readOpenAlerts(state, 'shop-prod', mayHold);

    expect(reads.sort()).toEqual(['activeCooldowns', 'openAlerts', 'undelivered']);
    expect(records.cooldowns.map((c) => c.findingId)).toEqual(['f1']);
  });
});

describe('summaryAfter', () => {
  it('keeps the latest cooldown end, whether alerts are open, whether the outbox was written, and the status', () => {
    const cooldown = (until: string) => ({
      cluster: 'shop-prod',
      findingId: until,
      action: 'ROLLOUT_RESTART',
      until,
      lastOutcome: 'x',
    });

    const after = summaryAfter(NOW, {
      openAlerts: true,
      recorded: true,
      cooldowns: [
        cooldown('2026-01-01T02:05:00.000Z'),
        cooldown('2026-01-01T02:15:00.000Z'),
        cooldown('2026-01-01T02:10:00.000Z'),
      ],
      status: STATUS,
    });
    const quiet = summaryAfter(NOW, { openAlerts: false, recorded: false, cooldowns: [], status: STATUS });

    expect(after).toEqual({
      scannedAt: '2026-01-01T02:00:05.000Z',
      openAlerts: true,
      outbox: true,
      cooldownsUntil: '2026-01-01T02:15:00.000Z',
      status: STATUS,
    });
    expect(quiet).toEqual({ scannedAt: '2026-01-01T02:00:05.000Z', openAlerts: false, outbox: false, status: STATUS });
  });
});
