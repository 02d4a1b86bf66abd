import { describe, expect, it } from 'vitest';
import { resolveNodeRole } from '../../../../src/detectors/nodeclaim-not-registered/node-role.ts';
import type { InstanceProfile } from '../../../../src/domain/aws.ts';
import { DEFAULT_DETECTION } from '../../../../src/domain/settings.ts';
import type { ClusterSnapshot } from '../../../../src/domain/snapshot.ts';
import { SnapshotIndex } from '../../../../src/domain/snapshot-index.ts';
import { ACCOUNT, cluster, instance, instanceProfile, snapshotOf } from '../../../factories/aws.ts';
import { ec2NodeClass } from '../../../factories/karpenter.ts';
import { T0 } from '../../../factories/kube.ts';
import { priceBookOf } from '../../../../src/domain/price-book.ts';

function resolve(snapshot: ClusterSnapshot, nodeClass: string | undefined = 'default', instanceIds: string[] = []) {
  return resolveNodeRole(
    {
      snapshot,
      index: new SnapshotIndex(snapshot),
      prices: priceBookOf(snapshot),
      settings: DEFAULT_DETECTION,
      now: new Date(T0),
    },
    nodeClass,
    instanceIds,
  );
}

const pathProfile: InstanceProfile = {
  name: 'demo_1976173924626587633',
  path: '/',
  arn: `arn:aws:iam::${ACCOUNT}:instance-profile/demo_1976173924626587633`,
  roles: [{ name: 'KarpenterNodeRole-demo', arn: `arn:aws:iam::${ACCOUNT}:role/nodes/KarpenterNodeRole-demo` }],
  tags: {},
};

describe('resolveNodeRole', () => {
  it('builds the ARN of spec.role from the cluster account, path unknown', () => {
    const { role } = resolve(snapshotOf({ nodeClasses: [ec2NodeClass({ name: 'default' })], cluster: cluster() }));

    expect(role).toMatchObject({
      name: 'KarpenterNodeRole-demo',
      arn: `arn:aws:iam::${ACCOUNT}:role/KarpenterNodeRole-demo`,
      pathKnown: false,
      source: 'EC2NodeClass default spec.role',
    });
  });

  it('learns the path of spec.role from the instance profile that holds it', () => {
    const { role } = resolve(snapshotOf({ nodeClasses: [ec2NodeClass({ name: 'default' })], instanceProfiles: [pathProfile] }));

    expect(role).toMatchObject({
      arn: `arn:aws:iam::${ACCOUNT}:role/nodes/KarpenterNodeRole-demo`,
      arnWithoutPath: `arn:aws:iam::${ACCOUNT}:role/KarpenterNodeRole-demo`,
      path: '/nodes/',
      pathKnown: true,
      instanceProfiles: ['demo_1976173924626587633'],
    });
  });

  it('takes spec.role given as an ARN with a path', () => {
    const nc = ec2NodeClass({ name: 'default', role: `arn:aws:iam::${ACCOUNT}:role/some/path/NodeRole` });

    expect(resolve(snapshotOf({ nodeClasses: [nc] })).role).toMatchObject({
      name: 'NodeRole',
      path: '/some/path/',
      arn: `arn:aws:iam::${ACCOUNT}:role/some/path/NodeRole`,
    });
  });

  it('takes the role inside spec.instanceProfile', () => {
    const nc = ec2NodeClass({ name: 'default', instanceProfile: 'KarpenterNodeInstanceProfile-demo' });
    const profiles = [instanceProfile({ name: 'KarpenterNodeInstanceProfile-demo', role: 'KarpenterNodeRole-demo' })];

    const { role } = resolve(snapshotOf({ nodeClasses: [nc], instanceProfiles: profiles }));

    expect(role).toMatchObject({ name: 'KarpenterNodeRole-demo', arn: `arn:aws:iam::${ACCOUNT}:role/KarpenterNodeRole-demo` });
    expect(role?.source).toContain('instance profile KarpenterNodeInstanceProfile-demo');
  });

  it('says what to capture when spec.instanceProfile was not captured', () => {
    const nc = ec2NodeClass({ name: 'default', instanceProfile: 'KarpenterNodeInstanceProfile-demo' });

    const { role, gaps } = resolve(snapshotOf({ nodeClasses: [nc] }));

    expect(role).toBeUndefined();
    expect(gaps.join()).toContain('aws iam get-instance-profile --instance-profile-name KarpenterNodeInstanceProfile-demo');
  });

  it("falls back to the instances' instance profile when the EC2NodeClass is missing", () => {
    const s = snapshotOf({
      nodeClasses: [],
      instances: [instance({ id: 'i-01d1ff6c07a0e70f9' })],
      instanceProfiles: [pathProfile],
    });

    const { role, gaps } = resolve(s, 'default', ['i-01d1ff6c07a0e70f9']);

    expect(role?.name).toBe('KarpenterNodeRole-demo');
    expect(gaps.join()).toContain('EC2NodeClass default not in the capture');
  });
});
