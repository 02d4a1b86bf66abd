import { describe, expect, it } from 'vitest';
import { launchTemplatesStep } from '../../../src/cleanup/launch-templates-step.ts';
import { cluster, instance, karpenterLaunchTemplate, KARPENTER_LT_ID, snapshotOf } from '../../factories/aws.ts';
import { stepWorld } from '../../support/cleanup.ts';

function world(dryRun = false) {
  // A node-group instance launched from Karpenter's template (someone copied its id): it still runs.
  const nodeGroup = instance({
    id: 'i-nodegroup',
    nodePool: null,
    nodeGroup: 'system',
    tags: { 'aws:ec2launchtemplate:id': KARPENTER_LT_ID },
  });
  const karpenters = instance({ id: 'i-karpenter' });
  return stepWorld(
    snapshotOf({ cluster: cluster(), instances: [nodeGroup, karpenters], launchTemplates: [karpenterLaunchTemplate()] }),
    {
      dryRun,
    },
  );
}

describe('launchTemplatesStep', () => {
  it.each([false, true])('holds a template an instance not terminated names, dry run or not (dryRun %s)', async (dryRun) => {
    const w = world(dryRun);

    const out = await launchTemplatesStep(w.ctx, { instances: w.instances({ done: ['i-karpenter'] }) });

    expect(out.held).toEqual([
      { resource: KARPENTER_LT_ID, reason: 'named by 1 instance not terminated', instances: ['i-nodegroup'] },
    ]);
    expect(out.done).toEqual([]);
    expect(w.aws.callsTo('DeleteLaunchTemplate')).toEqual([]);
  });

  it('in a dry run, plans a template whose instances the instances step plans to terminate, and deletes nothing', async () => {
    const w = world(true);
    w.aws.updateInstance('i-nodegroup', (i) => (i.state = 'terminated'));

    const out = await launchTemplatesStep(w.ctx, { instances: w.instances({ done: ['i-karpenter'] }) });

    expect(out.done).toEqual([KARPENTER_LT_ID]);
    expect(w.aws.callsTo('DeleteLaunchTemplate')).toEqual([]);
  });

  it('without a listing of the instances that name them, deletes none and says why', async () => {
    const w = world();
    w.aws.faults.fail('DescribeInstances', { error: { code: 'UnauthorizedOperation' } });

    const out = await launchTemplatesStep(w.ctx, { instances: w.instances() });

    expect(out.errors).toEqual([
      {
        step: 'launch-templates',
        message: expect.stringMatching(
          /^DescribeInstances \(which launch templates instances of cluster demo still name; none deleted\) failed/,
        ),
      },
    ]);
    expect(out.done).toEqual([]);
  });
});
