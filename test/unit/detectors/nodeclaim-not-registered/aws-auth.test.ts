import { describe, expect, it } from 'vitest';
import { checkAwsAuthRoles, readAwsAuth, type MapRole } from '../../../../src/detectors/nodeclaim-not-registered/aws-auth.ts';
import { snapshotOf } from '../../../factories/aws.ts';
import { awsAuth } from '../../../factories/kube.ts';

/** Seed 004's aws-auth: only the managed node group role, with the `---` marker of the fixed file. */
const SEED_MAP_ROLES = `---
- rolearn: arn:aws:iam::069057294951:role/aws-2026-eks-node-role
  groups:
  - system:bootstrappers
  - system:nodes
  username: system:node:{{EC2PrivateDNSName}}
`;

const KARPENTER_ROLE = {
  name: 'aws-2026-eks-karpenter-node',
  arnWithoutPath: 'arn:aws:iam::069057294951:role/aws-2026-eks-karpenter-node',
  instanceProfiles: ['aws-2026-eks_1976173924626587633'],
};

function entry(
  rolearn: string,
  groups: string[] = ['system:bootstrappers', 'system:nodes'],
  username: string | undefined = 'system:node:{{EC2PrivateDNSName}}',
): MapRole {
  return { rolearn, groups, username };
}

describe('readAwsAuth', () => {
  it('reads the seed mapRoles', () => {
    const read = readAwsAuth(snapshotOf({ configMaps: [awsAuth(SEED_MAP_ROLES)] }));

    expect(read).toEqual({ state: 'read', roles: [entry('arn:aws:iam::069057294951:role/aws-2026-eks-node-role')] });
  });

  it('tells not captured, absent and unreadable apart', () => {
    expect(readAwsAuth(snapshotOf({})).state).toBe('not-captured');
    expect(readAwsAuth(snapshotOf({ configMaps: [] })).state).toBe('absent');
    expect(readAwsAuth(snapshotOf({ configMaps: [awsAuth('- rolearn: [unclosed')] })).state).toBe('unreadable');
    expect(readAwsAuth(snapshotOf({ configMaps: [awsAuth('rolearn: x')] }))).toEqual({
      state: 'unreadable',
      error: 'mapRoles is not a YAML list',
    });
  });
});

describe('checkAwsAuthRoles', () => {
  it('accepts the role ARN without path with both node groups', () => {
    expect(checkAwsAuthRoles([entry(KARPENTER_ROLE.arnWithoutPath)], KARPENTER_ROLE)).toEqual({
      state: 'valid',
      entry: KARPENTER_ROLE.arnWithoutPath,
    });
  });

  it('finds no entry when only the node group role is mapped (seed 004)', () => {
    expect(checkAwsAuthRoles([entry('arn:aws:iam::069057294951:role/aws-2026-eks-node-role')], KARPENTER_ROLE)).toEqual({
      state: 'absent',
    });
  });

  it.each([
    [
      'a path in the ARN',
      entry('arn:aws:iam::069057294951:role/karpenter/aws-2026-eks-karpenter-node'),
      'includes the path /karpenter/',
    ],
    [
      'the instance profile ARN',
      entry('arn:aws:iam::069057294951:instance-profile/aws-2026-eks_1976173924626587633'),
      'is an instance-profile ARN',
    ],
    ['a different letter case', entry('arn:aws:iam::069057294951:role/AWS-2026-eks-karpenter-node'), 'differs in letter case'],
    ['a missing group', entry(KARPENTER_ROLE.arnWithoutPath, ['system:nodes']), 'lacks group system:bootstrappers'],
    ['a non-node username', entry(KARPENTER_ROLE.arnWithoutPath, undefined, 'admin'), 'has username admin'],
  ])('rejects %s', (_what, bad, problem) => {
    const check = checkAwsAuthRoles([bad], KARPENTER_ROLE);

    expect(check.state).toBe('invalid');
    expect(check.state === 'invalid' ? check.problems.join('; ') : '').toContain(problem);
  });

  it('ignores the same role name in another account', () => {
    expect(checkAwsAuthRoles([entry('arn:aws:iam::111122223333:role/aws-2026-eks-karpenter-node')], KARPENTER_ROLE)).toEqual({
      state: 'absent',
    });
  });

  it('compares names only when the account is unknown', () => {
    const role = { ...KARPENTER_ROLE, arnWithoutPath: undefined };

    expect(checkAwsAuthRoles([entry('arn:aws:iam::111122223333:role/aws-2026-eks-karpenter-node')], role).state).toBe('valid');
  });
});
