import { describe, expect, it } from 'vitest';
import { instancesStep } from '../../../src/cleanup/instances-step.ts';
import { cluster, instance, karpenterLaunchTemplate, snapshotOf } from '../../factories/aws.ts';
import { candidatesOf, stepWorld } from '../../support/cleanup.ts';

const SPOT = instance({ id: 'i-spot', nodePool: 'spot-pool' });
const ON_DEMAND = instance({ id: 'i-ondemand', nodePool: 'ondemand-pool' });

function world(dryRun: boolean) {
  return stepWorld(
    snapshotOf({ cluster: cluster(), instances: [SPOT, ON_DEMAND], launchTemplates: [karpenterLaunchTemplate()] }),
    {
      dryRun,
    },
  );
}

describe('instancesStep', () => {
  it.each([false, true])(
    'leaves the instances of a NodePool held by the NodePools step, dry run or not (dryRun %s)',
    async (dryRun) => {
      const w = world(dryRun);
      const candidates = candidatesOf({ instances: [SPOT, ON_DEMAND], launchTemplates: [karpenterLaunchTemplate()] });

      const out = await instancesStep(w.ctx, {
        candidates,
        hold: w.hold((o) => o.holdNodePools(['spot-pool'])),
      });

      expect(out.done).toEqual(['i-ondemand']);
      expect(out.notStarted).toMatchObject([{ step: 'instances', nodePools: ['spot-pool'] }]);
      expect(out.notAllTerminated).toEqual(['1 instance of NodePools not deleted left running']);
      expect(w.aws.state.instances.get('i-spot')?.state).toBe('running');
    },
  );

  it('a dry run terminates nothing and plans the proven instances', async () => {
    const w = world(true);

    const out = await instancesStep(w.ctx, {
      candidates: candidatesOf({ instances: [SPOT, ON_DEMAND], launchTemplates: [karpenterLaunchTemplate()] }),
      hold: undefined,
    });

    expect(out.done).toEqual(['i-ondemand', 'i-spot']);
    expect(w.aws.callsTo('TerminateInstances')).toEqual([]);
  });

  it.each([false, true])('with every instance held, does not start, dry run or not (dryRun %s)', async (dryRun) => {
    const w = world(dryRun);

    const out = await instancesStep(w.ctx, {
      candidates: candidatesOf(),
      hold: w.hold((o) => o.holdAll('list NodePools failed: 403 Forbidden')),
    });

    expect(out.done).toEqual([]);
    expect(out.notStarted).toMatchObject([
      { step: 'instances', reason: expect.stringMatching(/^NodePools could not be deleted/) },
    ]);
    expect(out.notAllTerminated).toEqual(['the instances step did not start']);
    expect(w.aws.callsTo('DescribeInstances')).toEqual([]);
  });

  it.each([false, true])('when the fresh listing fails, says so for the steps after it (dryRun %s)', async (dryRun) => {
    const w = world(dryRun);
    w.aws.faults.fail('DescribeInstances', { error: { code: 'UnauthorizedOperation' } });

    const out = await instancesStep(w.ctx, { candidates: candidatesOf(), hold: undefined });

    expect(out.notAllTerminated).toEqual([expect.stringMatching(/^DescribeInstances \(instances of cluster demo\) failed/)]);
    expect(out.done).toEqual([]);
  });
});
