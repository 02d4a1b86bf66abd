import { describe, expect, it } from 'vitest';
import { accountOf, instanceProfileNameOf, parseRoleArn, regionOf, roleArn } from '../../../../src/detectors/aws-iam/iam-arn.ts';

describe('role ARNs', () => {
  it('splits a role ARN with a path', () => {
    const r = parseRoleArn('arn:aws:iam::069057294951:role/some/path/KarpenterNodeRole');

    expect(r).toEqual({ partition: 'aws', account: '069057294951', path: '/some/path/', name: 'KarpenterNodeRole' });
    expect(r && roleArn(r)).toBe('arn:aws:iam::069057294951:role/some/path/KarpenterNodeRole');
    expect(r && roleArn(r, false)).toBe('arn:aws:iam::069057294951:role/KarpenterNodeRole');
  });

  it('rejects what is not a role ARN', () => {
    expect(parseRoleArn('arn:aws:iam::069057294951:instance-profile/x')).toBeUndefined();
    expect(parseRoleArn('KarpenterNodeRole')).toBeUndefined();
  });

  it('reads instance profile names, accounts and regions', () => {
    expect(instanceProfileNameOf('arn:aws:iam::069057294951:instance-profile/aws-2026-eks_1976173924626587633')).toBe(
      'aws-2026-eks_1976173924626587633',
    );
    expect(accountOf('arn:aws-cn:eks:cn-north-1:111122223333:cluster/x')).toEqual({
      partition: 'aws-cn',
      account: '111122223333',
    });
    expect(regionOf({ clusterArn: 'arn:aws:eks:eu-west-1:111122223333:cluster/x', zone: 'us-east-1a' })).toBe('eu-west-1');
    expect(regionOf({ zone: 'us-east-1a' })).toBe('us-east-1');
    expect(regionOf({})).toBeUndefined();
  });
});
