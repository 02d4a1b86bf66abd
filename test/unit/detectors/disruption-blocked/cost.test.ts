import { describe, expect, it } from 'vitest';
import { disruptionBlocked } from '../../../../src/detectors/disruption-blocked/detector.ts';
import { DEFAULT_DETECTION } from '../../../../src/domain/settings.ts';
import { SnapshotIndex } from '../../../../src/domain/snapshot-index.ts';
import { snapshotOf } from '../../../factories/aws.ts';
import { T0, minutesAfter } from '../../../factories/kube.ts';
import { testPrices } from '../../../factories/prices.ts';
import { claimNode, poolWith, runningClaim } from './fixtures.ts';

describe('DISRUPTION_BLOCKED cost', () => {
  it('claims none: Karpenter launches no replacement for a NodeClaim it may not disrupt, so the blocked node is the only one billed (docs/cost.md)', () => {
    const claim = runningClaim({ name: 'default-a1b2c', drift: { reason: 'AMIDrift' } });
    claim.metadata!.labels = { ...claim.metadata?.labels, 'node.kubernetes.io/instance-type': 'm5.large' };
    const snapshot = snapshotOf({ nodeClaims: [claim], nodePools: [poolWith({})], nodes: [claimNode('default-a1b2c')] });

    const findings = disruptionBlocked.detect({
      snapshot,
      index: new SnapshotIndex(snapshot),
      prices: testPrices({ 'm5.large': 0.096 }),
      settings: DEFAULT_DETECTION,
      now: new Date(minutesAfter(T0, 5 * 60)),
    });

    expect(findings).toHaveLength(1);
    expect(findings[0]).not.toHaveProperty('cost');
  });
});
