import { describe, expect, it } from 'vitest';
import { nodeClaimNotRegistered } from '../../../../src/detectors/nodeclaim-not-registered/detector.ts';
import type { NodeClaim } from '../../../../src/domain/kube.ts';
import { DEFAULT_DETECTION } from '../../../../src/domain/settings.ts';
import type { ClusterSnapshot } from '../../../../src/domain/snapshot.ts';
import { SnapshotIndex } from '../../../../src/domain/snapshot-index.ts';
import { instance, snapshotOf } from '../../../factories/aws.ts';
import { ec2NodeClass, nodeClaim, nodePool, unregisteredConditions } from '../../../factories/karpenter.ts';
import { T0, condition, minutesAfter } from '../../../factories/kube.ts';
import { testPrices } from '../../../factories/prices.ts';

const NOW = new Date(minutesAfter(T0, 12));
const PRICES = testPrices({ 't3a.xlarge': 0.1504, 'm5.large': 0.096 });

function detect(snapshot: ClusterSnapshot) {
  return nodeClaimNotRegistered.detect({
    snapshot,
    index: new SnapshotIndex(snapshot),
    prices: PRICES,
    settings: DEFAULT_DETECTION,
    now: NOW,
  });
}

/** A NodeClaim launched at T0 that never registered; `type` is the instance type Karpenter labels it with. */
function stuck(name: string, instanceId: string, type?: string): NodeClaim {
  const nc = nodeClaim({ name, instanceId, conditions: unregisteredConditions(T0) });
  if (type) nc.metadata!.labels = { ...nc.metadata?.labels, 'node.kubernetes.io/instance-type': type };
  return nc;
}

function scenario(parts: Parameters<typeof snapshotOf>[0]): ClusterSnapshot {
  return snapshotOf({ nodePools: [nodePool({ name: 'default' })], nodeClasses: [ec2NodeClass({ name: 'default' })], ...parts });
}

describe('NODECLAIM_NOT_REGISTERED cost: the relaunch loop', () => {
  it('one instance per stuck NodeClaim, priced by the captured instances, and the basis says why it keeps running', () => {
    const snapshot = scenario({
      nodeClaims: [stuck('default-kb85v', 'i-01d1ff6c07a0e70f9'), stuck('default-njzpq', 'i-0c4e8b2a9f7d13e56')],
      instances: [instance({ id: 'i-01d1ff6c07a0e70f9' }), instance({ id: 'i-0c4e8b2a9f7d13e56' })],
    });

    const [finding] = detect(snapshot);

    expect(finding?.cost?.perDayUsd).toBe(7.22);
    expect(finding?.cost?.basis).toBe(
      '2 × t3a.xlarge on-demand at $0.1504/h (on-demand, test prices); × 24 h; each NodeClaim is relaunched every 15 minutes, so about one such instance runs per stuck NodeClaim',
    );
  });

  it('without the instances captured, the type comes from the NodeClaim label; one the price book lacks is named, not guessed', () => {
    const snapshot = scenario({
      nodeClaims: [
        stuck('default-kb85v', 'i-01d1ff6c07a0e70f9', 'm5.large'),
        stuck('default-njzpq', 'i-0c4e8b2a9f7d13e56', 'x9z.huge'),
      ],
    });

    const [finding] = detect(snapshot);

    expect(finding?.cost?.perDayUsd).toBe(2.3);
    expect(finding?.cost?.basis).toContain('1 × m5.large on-demand at $0.0960/h');
    expect(finding?.cost?.basis).toContain('1 × x9z.huge not priced (no price known for the type)');
  });

  it('a forged label cannot grow the basis or put control characters in it: it counts as an unknown type', () => {
    const forged = stuck('default-njzpq', 'i-0c4e8b2a9f7d13e56');
    forged.metadata!.labels = {
      ...forged.metadata?.labels,
      'node.kubernetes.io/instance-type': `m5.large\u001b[2J${'x'.repeat(10_000)}`,
      'karpenter.sh/capacity-type': 'spot\nCRITICAL',
    };
    const snapshot = scenario({ nodeClaims: [stuck('default-kb85v', 'i-01d1ff6c07a0e70f9', 'm5.large'), forged] });

    const [finding] = detect(snapshot);

    expect(finding?.cost?.basis).toContain('1 × m5.large on-demand at $0.0960/h');
    expect(finding?.cost?.basis).toContain('1 not priced (instance type unknown)');
    expect(finding?.cost?.basis.length).toBeLessThan(300);
    expect([...(finding?.cost?.basis ?? '')].some((c) => c.charCodeAt(0) < 0x20)).toBe(false);
  });

  it('an instance EC2 says is terminated bills nothing: only the running one is counted', () => {
    const snapshot = scenario({
      nodeClaims: [stuck('default-kb85v', 'i-01d1ff6c07a0e70f9'), stuck('default-njzpq', 'i-0c4e8b2a9f7d13e56')],
      instances: [instance({ id: 'i-01d1ff6c07a0e70f9' }), instance({ id: 'i-0c4e8b2a9f7d13e56', state: 'terminated' })],
    });

    const [finding] = detect(snapshot);

    expect(finding?.cost?.basis).toMatch(/^1 × t3a\.xlarge/);
    expect(finding?.cost?.perDayUsd).toBe(3.61);
  });

  it('from NodeRegistrationHealthy=False alone no instance is known: no cost', () => {
    const pool = nodePool({ name: 'default' });
    pool.status = {
      conditions: [
        condition('NodeRegistrationHealthy', 'False', { reason: 'RegistrationFailed', message: 'Failed to register node' }),
      ],
    };
    const snapshot = scenario({ nodeClaims: [], nodePools: [pool] });

    const findings = detect(snapshot);

    expect(findings).toHaveLength(1);
    expect(findings[0]).not.toHaveProperty('cost');
  });
});
