import { describe, expect, it } from 'vitest';
import { expiryOf } from '../../../../src/detectors/karpenter/nodeclaims.ts';
import type { NodePool } from '../../../../src/domain/kube.ts';
import { nodeClaim, nodePool } from '../../../factories/karpenter.ts';
import { T0, minutesAfter } from '../../../factories/kube.ts';

const NOW_MS = Date.parse(minutesAfter(T0, 120));

function setExpireAfter(pool: NodePool, expireAfter: string): void {
  const spec = pool.spec?.template?.spec;
  if (spec) spec.expireAfter = expireAfter;
}

function poolExpiringAfter(expireAfter: string): NodePool {
  const pool = nodePool({ name: 'default' });
  setExpireAfter(pool, expireAfter);
  return pool;
}

describe('expiryOf', () => {
  it("a NodeClaim older than its NodePool's expireAfter expired at its creation + expireAfter", () => {
    expect(expiryOf(nodeClaim({ name: 'a' }), poolExpiringAfter('1h'), NOW_MS)).toBe(Date.parse(minutesAfter(T0, 60)));
  });

  it('every NodeClaim of the pool is judged by the same expireAfter, whatever its age', () => {
    const pool = poolExpiringAfter('1h30m');
    const old = nodeClaim({ name: 'old' });
    const young = nodeClaim({ name: 'young', createdAt: minutesAfter(T0, 60) });

    expect(expiryOf(old, pool, NOW_MS)).toBe(Date.parse(minutesAfter(T0, 90)));
    expect(expiryOf(young, pool, NOW_MS)).toBeUndefined();
  });

  it('Never, an unreadable duration or no NodePool: never expired', () => {
    const claim = nodeClaim({ name: 'a' });

    expect(expiryOf(claim, poolExpiringAfter('Never'), NOW_MS)).toBeUndefined();
    expect(expiryOf(claim, poolExpiringAfter('soon'), NOW_MS)).toBeUndefined();
    expect(expiryOf(claim, undefined, NOW_MS)).toBeUndefined();
  });
});
