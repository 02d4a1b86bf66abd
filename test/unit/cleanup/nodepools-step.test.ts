import { describe, expect, it } from 'vitest';
import { nodePoolsStep } from '../../../src/cleanup/nodepools-step.ts';
import { SourceError } from '../../../src/ports/errors.ts';
import { cluster, snapshotOf } from '../../factories/aws.ts';
import { ec2NodeClass, nodeClaim, nodePool } from '../../factories/karpenter.ts';
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
  return stepWorld(snapshotOf({ cluster: cluster(), instances: [] }), { dryRun }, kube);
}

describe('nodePoolsStep', () => {
  it.each([false, true])(
    'NodeClaims that cannot be listed while a controller runs hold every instance, dry run or not (dryRun %s)',
    async (dryRun) => {
      const w = world(dryRun, new NodeClaimsForbidden({ nodePools: [nodePool({ name: 'spot-pool' })], pods: [CONTROLLER] }));

      const out = await nodePoolsStep(w.ctx);

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

    const out = await nodePoolsStep(w.ctx);

    expect(out.errors).toHaveLength(1);
    expect(out.hold).toBeUndefined();
  });

  it('a dry run lists the NodeClaims it would wait for, deletes nothing and waits for nothing', async () => {
    const kube = new FakeKarpenterKube({
      nodePools: [nodePool({ name: 'spot-pool' })],
      nodeClaims: [nodeClaim({ name: 'spot-pool-x7k2p', nodePool: 'spot-pool', instanceId: 'i-1' })],
      pods: [CONTROLLER],
    });
    const w = world(true, kube);

    const out = await nodePoolsStep(w.ctx);

    expect(out.done).toEqual(['spot-pool']);
    expect(kube.deletedNodePools).toEqual([]);
    expect(kube.nodeClaimLists).toHaveLength(1);
    expect(w.progress).toContainEqual({
      kind: 'step',
      step: 'nodepools',
      message: 'would wait up to 1m for 1 NodeClaim to be drained',
    });
  });

  it('hands on the EC2NodeClasses; a list refused is a note, not an error, and leaves them unknown', async () => {
    const listed = world(false, new FakeKarpenterKube({ nodeClasses: [ec2NodeClass({ name: 'default' })] }));
    const refusing = new FakeKarpenterKube();
    refusing.list = (query) =>
      query.resource === 'ec2nodeclasses'
        ? Promise.reject(new SourceError('403 Forbidden: ec2nodeclasses is forbidden', { code: '403' }))
        : FakeKarpenterKube.prototype.list.call(refusing, query);
    const refused = world(false, refusing);

    const outListed = await nodePoolsStep(listed.ctx);
    const outRefused = await nodePoolsStep(refused.ctx);

    expect(outListed.nodeClasses?.map((nc) => nc.metadata?.name)).toEqual(['default']);
    expect(outRefused.nodeClasses).toBeUndefined();
    expect(outRefused.errors).toEqual([]);
  });
});
