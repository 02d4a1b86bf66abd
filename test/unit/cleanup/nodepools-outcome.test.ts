import { describe, expect, it } from 'vitest';
import { instanceHoldOf, type InstanceHold } from '../../../src/cleanup/nodepools-outcome.ts';
import { cluster, snapshotOf } from '../../factories/aws.ts';
import { stepWorld } from '../../support/cleanup.ts';

const DRAIN: InstanceHold = { reason: "Karpenter's drain cannot be waited for (list NodeClaims failed: 403 Forbidden)" };

describe('instanceHoldOf', () => {
  const w = stepWorld(snapshotOf({ cluster: cluster(), instances: [] }));
  const nodepools = (hold: InstanceHold | undefined) => ({ hold });

  it('a hold of every instance by the NodePools step stands, whatever the wait found', () => {
    const all = w.hold((o) => o.holdAll('list NodePools failed: 403 Forbidden'));

    expect(instanceHoldOf(nodepools(all), { hold: DRAIN })).toBe(all);
  });

  it('the wait holding every instance replaces a hold of some NodePools', () => {
    const some = w.hold((o) => o.holdNodePools(['spot-pool']));

    expect(instanceHoldOf(nodepools(some), { hold: DRAIN })).toBe(DRAIN);
    expect(instanceHoldOf(nodepools(some), { hold: undefined })).toBe(some);
    expect(instanceHoldOf(nodepools(some), undefined)).toBe(some);
  });

  it('no hold from either: none', () => {
    expect(instanceHoldOf(nodepools(undefined), { hold: undefined })).toBeUndefined();
  });
});
