import { describe, expect, it } from 'vitest';
import { nodeClaimWaitStep } from '../../../src/cleanup/nodeclaim-wait.ts';
import type { NodeClaimDrain } from '../../../src/cleanup/nodepools-outcome.ts';
import { nodePoolOfClaim } from '../../../src/domain/tags.ts';
import { SourceError } from '../../../src/ports/errors.ts';
import { cluster, snapshotOf } from '../../factories/aws.ts';
import { nodeClaim, nodePool } from '../../factories/karpenter.ts';
import { karpenterPod } from '../../factories/kube.ts';
import { FakeKarpenterKube } from '../../factories/ports.ts';
import { stepWorld } from '../../support/cleanup.ts';

const CONTROLLER = karpenterPod({ name: 'karpenter-5697769d6c-x7k2p', nodeName: 'ip-10-0-1-20.ec2.internal' });

/** NodeClaims that cannot be listed: the API answers every other list. */
class NodeClaimsForbidden extends FakeKarpenterKube {
  override list(query: Parameters<FakeKarpenterKube['list']>[0]) {
    if (query.resource === 'nodeclaims')
      return Promise.reject(new SourceError('403 Forbidden: nodeclaims is forbidden', { code: '403' }));
    return super.list(query);
  }
}

function world(dryRun: boolean, kube: FakeKarpenterKube) {
  const w = stepWorld(snapshotOf({ cluster: cluster(), instances: [] }), { dryRun }, kube);
  // As the NodePools step hands it on for NodePool spot-pool going.
  const drain: NodeClaimDrain = { kube, cluster: cluster(), isWaitedFor: (c) => nodePoolOfClaim(c) === 'spot-pool' };
  return { ...w, drain };
}

describe('nodeClaimWaitStep', () => {
  it.each([false, true])(
    'NodeClaims that cannot be listed while a controller runs hold every instance, dry run or not (dryRun %s)',
    async (dryRun) => {
      const w = world(dryRun, new NodeClaimsForbidden({ nodePools: [nodePool({ name: 'spot-pool' })], pods: [CONTROLLER] }));

      const out = await nodeClaimWaitStep(w.ctx, w.drain);

      expect(out.errors).toEqual([
        {
          step: 'nodepools',
          message: 'NodeClaims not waited for: list NodeClaims failed: 403 Forbidden: nodeclaims is forbidden',
        },
      ]);
      expect(out.hold?.reason).toMatch(/^Karpenter's drain cannot be waited for \(list NodeClaims failed: 403 Forbidden/);
      expect(out.hold?.nodePools).toBeUndefined();
    },
  );

  it('NodeClaims that cannot be listed with no controller to drain them: an error, no hold', async () => {
    const w = world(false, new NodeClaimsForbidden({ nodePools: [nodePool({ name: 'spot-pool' })] }));

    const out = await nodeClaimWaitStep(w.ctx, w.drain);

    expect(out.errors).toHaveLength(1);
    expect(out.hold).toBeUndefined();
  });

  it('a dry run lists the NodeClaims it would wait for once, and waits for nothing', async () => {
    const kube = new FakeKarpenterKube({
      nodePools: [nodePool({ name: 'spot-pool' })],
      nodeClaims: [nodeClaim({ name: 'spot-pool-x7k2p', nodePool: 'spot-pool', instanceId: 'i-1' })],
      pods: [CONTROLLER],
    });
    const w = world(true, kube);

    const out = await nodeClaimWaitStep(w.ctx, w.drain);

    expect(kube.nodeClaimLists).toHaveLength(1);
    expect(w.progress).toContainEqual({
      kind: 'step',
      step: 'nodepools',
      message: 'would wait up to 1m for 1 NodeClaim to be drained',
    });
    expect(w.progress.filter((p) => p.kind === 'waiting')).toEqual([]);
    expect(out.stopped).toBe(false);
  });

  it('apply waits while the NodeClaims remain, up to the bound, then hands on to the instances step', async () => {
    const kube = new FakeKarpenterKube({
      nodePools: [nodePool({ name: 'spot-pool' })],
      nodeClaims: [nodeClaim({ name: 'spot-pool-x7k2p', nodePool: 'spot-pool', instanceId: 'i-1' })],
      pods: [CONTROLLER],
    });
    const w = world(false, kube);

    const out = await nodeClaimWaitStep(w.ctx, w.drain);

    expect(w.progress.filter((p) => p.kind === 'waiting').map((p) => p.waitedMs)).toEqual([
      0, 10_000, 20_000, 30_000, 40_000, 50_000,
    ]);
    expect(w.progress).toContainEqual({
      kind: 'step',
      step: 'nodepools',
      message: 'stopped waiting for 1 NodeClaim after 1m: their instances are terminated next',
    });
    expect(out).toMatchObject({ errors: [], hold: undefined, stopped: false });
  });

  it('hands on a frozen outcome: no later step can change what the wait found', async () => {
    const w = world(false, new NodeClaimsForbidden({ pods: [CONTROLLER] }));

    const out = await nodeClaimWaitStep(w.ctx, w.drain);

    expect(Object.isFrozen(out)).toBe(true);
    expect(Object.isFrozen(out.errors)).toBe(true);
    expect(Object.isFrozen(out.hold)).toBe(true);
  });
});
