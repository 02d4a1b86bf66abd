import { describe, expect, it } from 'vitest';
import { orphanCandidates } from '../../../../src/detectors/karpenter/orphan-candidates.ts';
import { DEFAULT_DETECTION } from '../../../../src/domain/settings.ts';
import { SnapshotIndex } from '../../../../src/domain/snapshot-index.ts';
import { cluster, instance, karpenterSnapshotOf } from '../../../factories/aws.ts';
import { nodeClaim } from '../../../factories/karpenter.ts';
import { T0, minutesAfter } from '../../../factories/kube.ts';
import { testPrices } from '../../../factories/prices.ts';

/** An instance launched at T0 that no NodeClaim points to, next to one that has its NodeClaim. */
const snapshot = karpenterSnapshotOf({
  instances: [instance({ id: 'i-01d1ff6c07a0e70f9' }), instance({ id: 'i-0bbbbbbbbbbbbbbb1' })],
  nodeClaims: [nodeClaim({ name: 'default-kb85v', instanceId: 'i-01d1ff6c07a0e70f9' })],
  cluster: cluster(),
});

function contextAt(index: SnapshotIndex, minutes: number, orphanGraceMs = DEFAULT_DETECTION.orphanGraceMs) {
  const settings = { ...DEFAULT_DETECTION, orphanGraceMs };
  return { snapshot, index, prices: testPrices({}), settings, now: new Date(minutesAfter(T0, minutes)) };
}

describe('orphan candidates, shared by ORPHANED_INSTANCE and INSTANCE_PROVENANCE_UNPROVEN', () => {
  it('an instance past the grace period that no NodeClaim points to is a candidate; one with its NodeClaim is not', () => {
    const ctx = contextAt(new SnapshotIndex(snapshot), 60);

    expect(orphanCandidates(ctx).map((c) => c.instance.id)).toEqual(['i-0bbbbbbbbbbbbbbb1']);
  });

  it('another time on the same index is judged again: an instance inside the grace period, then past it', () => {
    const index = new SnapshotIndex(snapshot);

    expect(orphanCandidates(contextAt(index, 5))).toEqual([]);
    expect(orphanCandidates(contextAt(index, 60)).map((c) => c.instance.id)).toEqual(['i-0bbbbbbbbbbbbbbb1']);
  });

  it('another grace period on the same index is judged again', () => {
    const index = new SnapshotIndex(snapshot);

    expect(orphanCandidates(contextAt(index, 60)).map((c) => c.instance.id)).toEqual(['i-0bbbbbbbbbbbbbbb1']);
    expect(orphanCandidates(contextAt(index, 60, 2 * 3_600_000))).toEqual([]);
  });
});
