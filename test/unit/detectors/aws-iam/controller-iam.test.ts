import { describe, expect, it } from 'vitest';
import { controllerIdentity, grantSteps, policyResource } from '../../../../src/detectors/aws-iam/controller-iam.ts';
import { DEFAULT_DETECTION } from '../../../../src/domain/settings.ts';
import type { ClusterSnapshot } from '../../../../src/domain/snapshot.ts';
import { SnapshotIndex } from '../../../../src/domain/snapshot-index.ts';
import { snapshotOf } from '../../../factories/aws.ts';
import { T0, karpenterDeployment, karpenterPod } from '../../../factories/kube.ts';
import { priceBookOf } from '../../../../src/domain/price-book.ts';

function ctxOf(snapshot: ClusterSnapshot) {
  return {
    snapshot,
    index: new SnapshotIndex(snapshot),
    prices: priceBookOf(snapshot),
    settings: DEFAULT_DETECTION,
    now: new Date(T0),
  };
}

describe('policyResource', () => {
  it.each([
    ['arn:aws:iam::069057294951:instance-profile/', 'arn:aws:iam::069057294951:instance-profile/*'],
    ['arn:aws:ec2:us-east-1:069057294951:instance/i-0abc', 'arn:aws:ec2:us-east-1:069057294951:instance/*'],
    ['arn:aws:sqs:us-east-1:069057294951:demo', 'arn:aws:sqs:us-east-1:069057294951:demo'],
    [undefined, '*'],
  ])('%s → %s', (resource, expected) => {
    expect(policyResource(resource)).toBe(expected);
  });
});

describe('controllerIdentity', () => {
  it('falls back to karpenter/karpenter when the controller was not captured', () => {
    expect(controllerIdentity(ctxOf(snapshotOf({})))).toEqual({
      resource: { kind: 'Deployment', namespace: 'karpenter', name: 'karpenter' },
      namespace: 'karpenter',
      serviceAccount: 'karpenter',
      roleArn: undefined,
    });
  });

  it('reads namespace, service account and the IRSA role of the captured controller', () => {
    const pod = karpenterPod({ name: 'karpenter-5697769d6c-abcde', namespace: 'kube-system', nodeName: 'n1' });
    pod.spec = {
      ...pod.spec,
      serviceAccountName: 'karpenter-sa',
      containers: [
        { name: 'controller', env: [{ name: 'AWS_ROLE_ARN', value: 'arn:aws:iam::069057294951:role/KarpenterController' }] },
      ],
    };

    const id = controllerIdentity(
      ctxOf(snapshotOf({ deployments: [karpenterDeployment({ namespace: 'kube-system' })], pods: [pod] })),
    );

    expect(id).toEqual({
      resource: { kind: 'Deployment', namespace: 'kube-system', name: 'karpenter' },
      namespace: 'kube-system',
      serviceAccount: 'karpenter-sa',
      roleArn: 'arn:aws:iam::069057294951:role/KarpenterController',
    });
    expect(
      grantSteps(ctxOf(snapshotOf({ pods: [pod] })), {
        actions: ['iam:ListInstanceProfiles'],
        resource: undefined,
        principalRoleArn: undefined,
      }).at(-1),
    ).toContain('aws iam put-role-policy --role-name KarpenterController');
  });
});
