import { describe, expect, it } from 'vitest';
import { nodePoolsStep } from '../../../src/cleanup/nodepools-step.ts';
import { SourceError } from '../../../src/ports/errors.ts';
import { cluster, snapshotOf } from '../../factories/aws.ts';
import { ec2NodeClass, nodeClaim, nodePool } from '../../factories/karpenter.ts';
import { karpenterPod } from '../../factories/kube.ts';
import { FakeKarpenterKube } from '../../factories/ports.ts';
import { stepWorld } from '../../support/cleanup.ts';

const CONTROLLER = karpenterPod({ name: 'karpenter-5697769d6c-x7k2p', nodeName: 'ip-10-0-1-20.ec2.internal' });

function world(dryRun: boolean, kube: FakeKarpenterKube) {
  return stepWorld(snapshotOf({ cluster: cluster(), instances: [] }), { dryRun }, kube);
}

describe('nodePoolsStep', () => {
  it('a dry run deletes nothing and hands on the NodeClaims of the NodePools it would delete, for the wait', async () => {
    const waitedFor = nodeClaim({ name: 'spot-pool-x7k2p', nodePool: 'spot-pool', instanceId: 'i-1' });
    const kept = nodeClaim({ name: 'gpu-pool-q2w7r', nodePool: 'gpu-pool', instanceId: 'i-2' });
    const kube = new FakeKarpenterKube({
      nodePools: [nodePool({ name: 'spot-pool' })],
      nodeClaims: [waitedFor],
      pods: [CONTROLLER],
    });
    const w = stepWorld(snapshotOf({ cluster: cluster(), instances: [] }), { dryRun: true, nodePools: ['spot-pool'] }, kube);

    const out = await nodePoolsStep(w.ctx);

    expect(out.done).toEqual(['spot-pool']);
    expect(kube.deletedNodePools).toEqual([]);
    expect(kube.nodeClaimLists).toEqual([]);
    expect(out.drain?.kube).toBe(kube);
    expect([waitedFor, kept].filter((c) => out.drain?.isWaitedFor(c) === true)).toEqual([waitedFor]);
  });

  it.each([
    ['deleteNodePools false', { deleteNodePools: false }, cluster()],
    ['the cluster gone', {}, cluster({ gone: true })],
    ['the cluster DELETING', {}, cluster({ status: 'DELETING' })],
  ])('with %s, hands on no NodeClaims to wait for', async (_, request, info) => {
    const w = stepWorld(
      snapshotOf({ cluster: info, instances: [] }),
      request,
      new FakeKarpenterKube({ nodePools: [nodePool({ name: 'spot-pool' })] }),
    );

    const out = await nodePoolsStep(w.ctx);

    expect(out.drain).toBeUndefined();
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
