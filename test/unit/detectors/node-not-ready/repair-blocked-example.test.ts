/**
 * The bundled example node-not-ready-repair-blocked, changed the way a pool recovers: one of its two
 * nodes Ready again, and Karpenter's last NodeRepairBlocked 25 minutes old. Karpenter re-emits the
 * event every 5 minutes while blocked, so an event that old is history, not the pool's state.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { nodeNotReady } from '../../../../src/detectors/node-not-ready/detector.ts';
import { priceBookOf } from '../../../../src/domain/price-book.ts';
import { DEFAULT_DETECTION } from '../../../../src/domain/settings.ts';
import type { ClusterSnapshot } from '../../../../src/domain/snapshot.ts';
import { SnapshotIndex } from '../../../../src/domain/snapshot-index.ts';
import { loadSnapshot } from '../../../../src/snapshot/load.ts';
import { healthyConditions } from './fixtures.ts';

const EXAMPLE = fileURLToPath(new URL('../../../../examples/node-not-ready-repair-blocked/', import.meta.url));
const RECOVERED = 'ip-10-59-51-73.ec2.internal';
/** The example's NodeRepairBlocked events were last seen at 00:55:10. */
const EVENT_AGE_25_MIN = new Date('2026-01-01T01:20:10Z');

function detect(snapshot: ClusterSnapshot, now: Date) {
  return nodeNotReady.detect({
    snapshot,
    index: new SnapshotIndex(snapshot),
    prices: priceBookOf(snapshot),
    settings: DEFAULT_DETECTION,
    now,
  });
}

function withOneNodeReadyAgain(snapshot: ClusterSnapshot): ClusterSnapshot {
  const nodes = snapshot.nodes.map((n) =>
    n.metadata?.name === RECOVERED ? { ...n, status: { ...n.status, conditions: healthyConditions() } } : n,
  );
  return { ...snapshot, nodes };
}

describe('NODE_NOT_READY: a NodeRepairBlocked event counts only while fresh', () => {
  it('the repair-blocked example, one node Ready again and the event 25 min old: the 20% arithmetic decides, not blocked', async () => {
    const { snapshot } = await loadSnapshot([EXAMPLE]);

    const [f] = detect(withOneNodeReadyAgain(snapshot), EVENT_AGE_25_MIN);

    expect(f?.counts?.objects).toBe(1);
    expect(f?.cause?.detail).not.toContain("blocked by Karpenter's 20% rule");
    expect(f?.cause?.detail).toContain('its toleration ended at 2026-01-01T00:50:10.000Z');
    expect(f?.remediation?.steps.join('\n')).not.toContain('replace them by hand');
  });

  it('the example as captured (event 5 min old): still blocked, the event quoted', async () => {
    const { snapshot } = await loadSnapshot([EXAMPLE]);

    const [f] = detect(snapshot, new Date('2026-01-01T01:00:00Z'));

    expect(f?.severity).toBe('critical');
    expect(f?.cause?.detail).toContain('NodeRepairBlocked "more than 20% nodes are unhealthy in the nodepool"');
  });
});
