/**
 * The live scan's Spot prices (docs/cost.md, "Prices"): one DescribeSpotPriceHistory for the Spot
 * types of the Nodes, NodeClaims and instances read, none when nothing runs on Spot.
 */
import { describe, expect, it } from 'vitest';
import { collectSnapshot } from '../../../src/collect/collect.ts';
import type { SpotPrice } from '../../../src/domain/aws.ts';
import { priceBookOf } from '../../../src/domain/price-book.ts';
import { SOURCE_NAMES, type SourceName } from '../../../src/domain/snapshot.ts';
import { awsError } from '../../../src/simulator/in-memory-aws.ts';
import { simulateSnapshot, type Simulation } from '../../../src/simulator/simulation.ts';
import { instance, snapshotOf } from '../../factories/aws.ts';
import { nodeClaim, nodePool } from '../../factories/karpenter.ts';
import { karpenterDeployment, karpenterPod, node } from '../../factories/kube.ts';
import { closedAfterEachTest } from '../../support/simulation.ts';

const simulations = closedAfterEachTest();

const M5_PRICE: SpotPrice = {
  instanceType: 'm5.large',
  availabilityZone: 'us-east-1a',
  usd: 0.0345,
  timestamp: '2026-11-29T04:12:00.000Z',
  productDescription: 'Linux/UNIX',
};

const spotNode = (name: string, type: string) =>
  node({ name, labels: { 'karpenter.sh/capacity-type': 'spot', 'node.kubernetes.io/instance-type': type } });

/** A cluster with a Spot node (m5.large), an on-demand node (c5.large) and an orphaned Spot instance (r5.large). */
async function cluster(captured: readonly SourceName[] = SOURCE_NAMES, prices = true): Promise<Simulation> {
  const orphan = { ...instance({ id: 'i-0aaaaaaaaaaaaaaa1' }), instanceType: 'r5.large', lifecycle: 'spot' };
  const seed = snapshotOf(
    {
      pods: [karpenterPod({ name: 'karpenter-1', nodeName: 'node-a' })],
      deployments: [karpenterDeployment()],
      nodes: [
        spotNode('node-a', 'm5.large'),
        node({
          name: 'node-b',
          labels: { 'karpenter.sh/capacity-type': 'on-demand', 'node.kubernetes.io/instance-type': 'c5.large' },
        }),
      ],
      nodeClaims: [nodeClaim({ name: 'default-a', nodeName: 'node-a' })],
      nodePools: [nodePool({ name: 'default' })],
      instances: [orphan],
      ...(prices ? { spotPrices: [M5_PRICE, { ...M5_PRICE, instanceType: 'c5.large' }] } : {}),
    },
    'demo',
  );
  seed.cluster = { name: 'demo', status: 'ACTIVE' };
  for (const source of captured) seed.captured.add(source);
  const simulation = await simulateSnapshot(seed);
  simulations.push(simulation);
  return simulation;
}

describe('collectSnapshot: Spot prices', () => {
  it('asks once, for the Spot types of the Nodes and instances only, and the scan prices the Spot node by it', async () => {
    const simulation = await cluster();

    const { snapshot } = await collectSnapshot(simulation.connection, { clusterName: 'demo' });

    expect(simulation.aws.callsTo('DescribeSpotPriceHistory')).toEqual([
      { operation: 'DescribeSpotPriceHistory', input: { instanceTypes: ['m5.large', 'r5.large'] } },
    ]);
    expect(snapshot.captured.has('spotprices')).toBe(true);
    expect(snapshot.spotPrices).toEqual([M5_PRICE]);
    expect(priceBookOf(snapshot).hourly({ instanceType: 'm5.large', capacityType: 'spot', zone: 'us-east-1a' })?.usd).toBe(
      0.0345,
    );
  });

  it('asks nothing when nothing runs on Spot; a denied call is a gap that leaves the rest read', async () => {
    const quiet = await cluster(SOURCE_NAMES.filter((s) => s !== 'instances' && s !== 'nodes'));
    const denied = await cluster();
    denied.aws.faults.fail('DescribeSpotPriceHistory', {
      error: awsError('UnauthorizedOperation', 'You are not authorized to perform this operation.'),
    });

    const none = await collectSnapshot(quiet.connection, {
      clusterName: 'demo',
      sources: new Set(SOURCE_NAMES.filter((s) => s !== 'instances' && s !== 'nodes')),
    });
    const gap = await collectSnapshot(denied.connection, { clusterName: 'demo' });

    expect(quiet.aws.callsTo('DescribeSpotPriceHistory')).toEqual([]);
    expect(none.snapshot.captured.has('spotprices')).toBe(true);
    expect(gap.unreadable).toBeUndefined();
    expect(gap.snapshot.gaps).toEqual([
      {
        source: 'spotprices',
        error: 'DescribeSpotPriceHistory failed: UnauthorizedOperation: You are not authorized to perform this operation.',
      },
    ]);
    expect(gap.snapshot.nodes).toHaveLength(2);
  });

  it('the simulator answers no Spot prices when the capture held none: it never makes prices up', async () => {
    const simulation = await cluster(
      SOURCE_NAMES.filter((s) => s !== 'spotprices'),
      false,
    );

    const prices = await simulation.aws.ec2.describeSpotPrices(['m5.large', 'x99.huge']);

    expect(prices).toEqual([]);
  });
});
