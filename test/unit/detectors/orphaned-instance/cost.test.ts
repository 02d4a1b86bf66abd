import { describe, expect, it } from 'vitest';
import { orphanedInstance } from '../../../../src/detectors/orphaned-instance/detector.ts';
import type { PriceBook } from '../../../../src/domain/cost.ts';
import { DEFAULT_DETECTION } from '../../../../src/domain/settings.ts';
import type { ClusterSnapshot } from '../../../../src/domain/snapshot.ts';
import { SnapshotIndex } from '../../../../src/domain/snapshot-index.ts';
import { cluster, instance, karpenterSnapshotOf } from '../../../factories/aws.ts';
import { nodeClaim } from '../../../factories/karpenter.ts';
import { T0, karpenterPod, minutesAfter } from '../../../factories/kube.ts';
import { testPrices } from '../../../factories/prices.ts';

const NOW = new Date(minutesAfter(T0, 60));
const PRICES = testPrices({ 't3a.xlarge': 0.1504 }, { 't3a.xlarge': 0.0612 });

function detect(snapshot: ClusterSnapshot, prices: PriceBook = PRICES) {
  return orphanedInstance.detect({ snapshot, index: new SnapshotIndex(snapshot), prices, settings: DEFAULT_DETECTION, now: NOW });
}

/** One orphan (the factory's instances are t3a.xlarge in us-east-1a) next to a claimed instance. */
function orphan(state = 'running', lifecycle?: string): ClusterSnapshot {
  const orphaned = { ...instance({ id: 'i-0bbbbbbbbbbbbbbb1', state }), ...(lifecycle ? { lifecycle } : {}) };
  return karpenterSnapshotOf({
    instances: [instance({ id: 'i-01d1ff6c07a0e70f9' }), orphaned],
    nodeClaims: [nodeClaim({ name: 'default-kb85v', instanceId: 'i-01d1ff6c07a0e70f9' })],
    pods: [karpenterPod({ name: 'karpenter-5697769d6c-cdwct', nodeName: 'ip-10-59-127-151.ec2.internal' })],
    cluster: cluster(),
  });
}

describe('ORPHANED_INSTANCE cost', () => {
  it('a running orphan costs its hourly price × 24, and the basis says which type at what price', () => {
    const [finding] = detect(orphan());

    expect(finding?.cost).toEqual({
      perDayUsd: 3.61,
      basis: '1 × t3a.xlarge on-demand at $0.1504/h (on-demand, test prices); × 24 h',
    });
  });

  it('a Spot orphan (EC2 InstanceLifecycle spot) is priced at the Spot price of its zone, not on-demand', () => {
    const [finding] = detect(orphan('running', 'spot'));

    expect(finding?.cost).toEqual({
      perDayUsd: 1.47,
      basis: '1 × t3a.xlarge spot at $0.0612/h (spot in us-east-1a, test prices); × 24 h',
    });
  });

  it('a stopped orphan is still a finding but costs no compute: no cost is claimed', () => {
    const findings = detect(orphan('stopped'));

    expect(findings).toHaveLength(1);
    expect(findings[0]?.cost).toBeUndefined();
  });

  it('a type the price book does not know: no cost rather than a guess', () => {
    const findings = detect(orphan(), testPrices({ 'm5.large': 0.096 }));

    expect(findings).toHaveLength(1);
    expect(findings[0]).not.toHaveProperty('cost');
  });
});
