import { describe, expect, it } from 'vitest';
import { instanceProfilesStep } from '../../../src/cleanup/instance-profiles-step.ts';
import { cluster, instance, instanceProfile, snapshotOf } from '../../factories/aws.ts';
import { ec2NodeClass } from '../../factories/karpenter.ts';
import { stepWorld } from '../../support/cleanup.ts';

const KARPENTERS = instanceProfile({ name: 'demo_111', path: '/karpenter/us-east-1/demo/uid/', role: 'KarpenterNodeRole-demo' });
const LOOK_ALIKE = instanceProfile({
  name: 'payments-api',
  path: '/team/payments-api/',
  role: 'PaymentsRole',
  tags: { 'karpenter.k8s.aws/ec2nodeclass': 'default', 'eks:eks-cluster-name': 'demo' },
});
const NODE_CLASS = ec2NodeClass({ name: 'default', role: 'KarpenterNodeRole-demo' });

function world(instances = [instance({ id: 'i-karpenter' })], dryRun = false) {
  const using = instances.map((i) => ({ ...i, iamInstanceProfileArn: KARPENTERS.arn }));
  return stepWorld(
    snapshotOf({ cluster: cluster(), instances: using, launchTemplates: [], instanceProfiles: [KARPENTERS, LOOK_ALIKE] }),
    { dryRun },
  );
}

describe('instanceProfilesStep when ListInstanceProfileTags fails for one profile', () => {
  const DENIED =
    'ListInstanceProfileTags failed: AccessDenied: User: arn:aws:sts::111122223333:assumed-role/CleanupRole/x is not authorized to perform: iam:ListInstanceProfileTags on resource: instance profile demo_222';
  const LEGACY = instanceProfile({
    name: 'demo_111222',
    role: 'KarpenterNodeRole-demo',
    tags: { 'karpenter.k8s.aws/ec2nodeclass': 'default', 'eks:eks-cluster-name': 'demo' },
  });
  const UNREADABLE = { ...instanceProfile({ name: 'demo_222', role: 'KarpenterNodeRole-demo' }), tagsUnreadable: DENIED };
  const OTHERS_UNREADABLE = { ...instanceProfile({ name: 'staging_333', role: 'StagingRole' }), tagsUnreadable: DENIED };

  it('goes on with the others; that profile is an error naming it, and keeps its role', async () => {
    const w = stepWorld(
      snapshotOf({
        cluster: cluster(),
        instances: [],
        launchTemplates: [],
        instanceProfiles: [KARPENTERS, LEGACY, UNREADABLE, OTHERS_UNREADABLE],
      }),
      { dryRun: false },
    );

    const out = await instanceProfilesStep(w.ctx, { nodeClasses: undefined, instances: w.instances() });

    expect([...out.done].sort()).toEqual(['demo_111', 'demo_111222']);
    expect(out.errors).toEqual([
      {
        step: 'instance-profiles',
        resource: 'demo_222',
        message: expect.stringMatching(
          /^ListInstanceProfileTags demo_222 failed: AccessDenied: .*iam:ListInstanceProfileTags.*; not deleted: only its tags can prove Karpenter made it for this cluster$/,
        ),
      },
    ]);
    expect(w.aws.state.instanceProfiles.get('demo_222')?.roles.map((r) => r.name)).toEqual(['KarpenterNodeRole-demo']);
    expect(w.aws.callsTo('DeleteInstanceProfile').map((c) => c.input.profileName)).not.toContain('demo_222');
    expect(w.aws.state.instanceProfiles.has('staging_333')).toBe(true);
  });
});

describe('instanceProfilesStep', () => {
  it('never takes a look-alike outside Karpenter’s path: its role stays on it', async () => {
    const w = world([]);

    const out = await instanceProfilesStep(w.ctx, { nodeClasses: undefined, instances: w.instances() });

    expect(out.done).toEqual(['demo_111']);
    expect(w.aws.state.instanceProfiles.get('payments-api')?.roles.map((r) => r.name)).toEqual(['PaymentsRole']);
  });

  it('holds a profile an instance not terminated still uses, naming it, and deletes nothing', async () => {
    const w = world([instance({ id: 'i-0payments', nodePool: null })]);

    const out = await instanceProfilesStep(w.ctx, { nodeClasses: undefined, instances: w.instances() });

    expect(out.held).toEqual([
      { resource: 'demo_111', reason: 'attached to 1 instance not terminated', instances: ['i-0payments'] },
    ]);
    expect(out.done).toEqual([]);
    expect(w.aws.callsTo('RemoveRoleFromInstanceProfile')).toEqual([]);
  });

  it('in a dry run, an instance the instances step plans to terminate counts as gone', async () => {
    const w = world([instance({ id: 'i-karpenter' })], true);

    const out = await instanceProfilesStep(w.ctx, {
      nodeClasses: undefined,
      instances: w.instances({ done: ['i-karpenter'] }),
    });

    expect(out.done).toEqual(['demo_111']);
    expect(out.held).toEqual([]);
    expect(w.aws.callsTo('DeleteInstanceProfile')).toEqual([]);
  });

  it('with the EC2NodeClasses known, holds a profile whose role none of them names', async () => {
    const w = world([]);

    const other = ec2NodeClass({ name: 'gpu', role: 'GpuNodeRole' });
    const out = await instanceProfilesStep(w.ctx, {
      nodeClasses: [other],
      instances: w.instances(),
    });

    expect(out.held).toEqual([
      {
        resource: 'demo_111',
        reason:
          'its role KarpenterNodeRole-demo is not the role of any EC2NodeClass, and no EC2NodeClass status names it (the 1 EC2NodeClass: they name GpuNodeRole)',
      },
    ]);
    expect(out.done).toEqual([]);
  });

  it('deletes a profile whose role an EC2NodeClass names, or that an EC2NodeClass status names', async () => {
    const byRole = world([]);
    const byStatus = world([]);
    const named = { ...ec2NodeClass({ name: 'x', role: 'Other' }), status: { instanceProfile: 'demo_111' } };

    const outByRole = await instanceProfilesStep(byRole.ctx, {
      nodeClasses: [NODE_CLASS],
      instances: byRole.instances(),
    });
    const outByStatus = await instanceProfilesStep(byStatus.ctx, {
      nodeClasses: [named],
      instances: byStatus.instances(),
    });

    expect(outByRole.done).toEqual(['demo_111']);
    expect(outByStatus.done).toEqual(['demo_111']);
  });

  it('when the instances using a profile cannot be listed: an error naming it, and it is not deleted', async () => {
    const w = world([]);
    w.aws.faults.fail('DescribeInstances', {
      error: { code: 'UnauthorizedOperation', message: 'You are not authorized to perform this operation.' },
    });

    const out = await instanceProfilesStep(w.ctx, { nodeClasses: undefined, instances: w.instances() });

    expect(out.errors).toEqual([
      {
        step: 'instance-profiles',
        resource: 'demo_111',
        message: expect.stringMatching(
          /^DescribeInstances \(instances using instance profile demo_111; not deleted\) failed: UnauthorizedOperation/,
        ),
      },
    ]);
    expect(out.done).toEqual([]);
    expect(w.aws.callsTo('DeleteInstanceProfile')).toEqual([]);
  });
});
