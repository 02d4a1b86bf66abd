import { describe, expect, it } from 'vitest';
import { nodeTerminationStuck } from '../../../../src/detectors/node-termination-stuck/detector.ts';
import type { Node, NodeClaim } from '../../../../src/domain/kube.ts';
import { DEFAULT_DETECTION } from '../../../../src/domain/settings.ts';
import type { ClusterSnapshot } from '../../../../src/domain/snapshot.ts';
import { SnapshotIndex } from '../../../../src/domain/snapshot-index.ts';
import { instance, snapshotOf } from '../../../factories/aws.ts';
import { nodeClaim, nodePool } from '../../../factories/karpenter.ts';
import { T0, minutesAfter, node } from '../../../factories/kube.ts';
import { testPrices } from '../../../factories/prices.ts';

const NODE = 'ip-10-0-1-23.ec2.internal';
const INSTANCE = 'i-0a1b2c3d4e5f60718';
const NOW = new Date(minutesAfter(T0, 60));
const PRICES = testPrices({ 'm5.large': 0.096 }, { 'm5.large': 0.0352 });

function deleting<T extends Node | NodeClaim>(obj: T): T {
  return { ...obj, metadata: { ...obj.metadata, deletionTimestamp: T0, finalizers: ['karpenter.sh/termination'] } };
}

/** A Spot m5.large node Karpenter has been terminating for an hour, as its labels say. */
function heldNode(parts: Parameters<typeof snapshotOf>[0] = {}): ClusterSnapshot {
  const labels = {
    'karpenter.sh/nodepool': 'default',
    'node.kubernetes.io/instance-type': 'm5.large',
    'karpenter.sh/capacity-type': 'spot',
    'topology.kubernetes.io/zone': 'us-east-1a',
  };
  return snapshotOf({
    nodes: [deleting(node({ name: NODE, providerID: `aws:///us-east-1a/${INSTANCE}`, labels }))],
    nodeClaims: [deleting(nodeClaim({ name: 'default-x7k2p', instanceId: INSTANCE, nodeName: NODE }))],
    nodePools: [nodePool({ name: 'default' })],
    ...parts,
  });
}

function detect(snapshot: ClusterSnapshot) {
  return nodeTerminationStuck.detect({
    snapshot,
    index: new SnapshotIndex(snapshot),
    prices: PRICES,
    settings: DEFAULT_DETECTION,
    now: NOW,
  });
}

describe('NODE_TERMINATION_STUCK cost: the node held', () => {
  it('costs what its instance bills: a Spot node at the Spot price of its zone', () => {
    const [finding] = detect(heldNode());

    expect(finding?.cost).toEqual({
      perDayUsd: 0.84,
      basis: '1 × m5.large spot at $0.0352/h (spot in us-east-1a, test prices); × 24 h',
    });
  });

  it('an instance EC2 says is already terminated costs nothing, though the Node object lingers', () => {
    const findings = detect(heldNode({ instances: [{ ...instance({ id: INSTANCE }), state: 'terminated' }] }));

    expect(findings).toHaveLength(1);
    expect(findings[0]).not.toHaveProperty('cost');
  });
});
