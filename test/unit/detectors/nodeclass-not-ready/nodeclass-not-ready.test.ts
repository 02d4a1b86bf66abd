import { describe, expect, it } from 'vitest';
import { nodeClassNotReady } from '../../../../src/detectors/nodeclass-not-ready/detector.ts';
import type { Condition, EC2NodeClass } from '../../../../src/domain/kube.ts';
import { DEFAULT_DETECTION } from '../../../../src/domain/settings.ts';
import type { ClusterSnapshot } from '../../../../src/domain/snapshot.ts';
import { SnapshotIndex } from '../../../../src/domain/snapshot-index.ts';
import { cluster, fargateProfile, snapshotOf } from '../../../factories/aws.ts';
import { ec2NodeClass, nodePool } from '../../../factories/karpenter.ts';
import { T0, condition, minutesAfter } from '../../../factories/kube.ts';
import { priceBookOf } from '../../../../src/domain/price-book.ts';

const NOW = minutesAfter(T0, 60);
const FAILED_AT = minutesAfter(T0, 3);

function detect(snapshot: ClusterSnapshot, now = NOW) {
  return nodeClassNotReady.detect({
    snapshot,
    index: new SnapshotIndex(snapshot),
    prices: priceBookOf(snapshot),
    settings: DEFAULT_DETECTION,
    now: new Date(now),
  });
}

/** Karpenter's conditions with the given ones failing; Ready follows as Karpenter computes it. */
function failing(...failed: Condition[]): Condition[] {
  const types = ['AMIsReady', 'SubnetsReady', 'SecurityGroupsReady', 'InstanceProfileReady', 'ValidationSucceeded'];
  const byType = new Map(failed.map((c) => [c.type, c]));
  const subs = types.map((t) => byType.get(t) ?? condition(t, 'True'));
  const unhealthy = subs.filter((c) => c.status !== 'True');
  const anyFalse = unhealthy.some((c) => c.status === 'False');
  return [
    ...subs,
    condition('Ready', anyFalse ? 'False' : 'Unknown', {
      reason: anyFalse ? 'UnhealthyDependents' : 'ReconcilingDependents',
      message: unhealthy.map((c) => `${c.type}=${c.status}`).join(', '),
      lastTransitionTime: FAILED_AT,
    }),
  ];
}

const dependenciesNotReady = condition('ValidationSucceeded', 'False', {
  reason: 'DependenciesNotReady',
  message: 'Awaiting AMI, Instance Profile, Security Group, and Subnet resolution',
  lastTransitionTime: FAILED_AT,
});

function withSpec(nc: EC2NodeClass, spec: Partial<NonNullable<EC2NodeClass['spec']>>): EC2NodeClass {
  return { ...nc, spec: { ...nc.spec, ...spec } };
}

describe('NODECLASS_NOT_READY', () => {
  it('AL2 selector on EKS 1.33 (seed 004 #7): AMI_NOT_FOUND with the AL2023 selector as the fix', () => {
    // Prepare
    const nc = withSpec(
      ec2NodeClass({
        name: 'default',
        amis: [],
        conditions: failing(
          condition('AMIsReady', 'False', {
            reason: 'AMINotFound',
            message: 'AMISelector did not match any AMIs',
            lastTransitionTime: FAILED_AT,
          }),
          dependenciesNotReady,
        ),
      }),
      { amiFamily: 'AL2', amiSelectorTerms: [{ owner: '602401143452', name: 'amazon-eks-node-1.33-*' }] },
    );
    const snapshot = snapshotOf({ nodeClasses: [nc], cluster: cluster({ version: '1.33' }) });

    // Act
    const findings = detect(snapshot);

    // Assess
    expect(findings).toHaveLength(1);
    const f = findings[0]!;
    expect(f).toMatchObject({
      code: 'NODECLASS_NOT_READY',
      severity: 'critical',
      resource: { kind: 'EC2NodeClass', name: 'default' },
      since: FAILED_AT,
      cause: { code: 'AMI_NOT_FOUND' },
      remediation: { action: 'MANUAL', status: 'manual' },
    });
    expect(f.cause?.detail).toContain('amiFamily AL2');
    expect(f.cause?.detail).toContain('amazon-eks-node-1.33-*');
    expect(f.cause?.detail).toContain('Amazon Linux 2');
    expect(f.cause?.detail).toContain('1.33, which has no AL2 AMI');
    expect(f.evidence).toContain('AMIsReady=False (AMINotFound: AMISelector did not match any AMIs)');
    const steps = f.remediation!.steps.join('\n');
    expect(steps).toContain(`aws ec2 describe-images --owners 602401143452 --filters 'Name=name,Values=amazon-eks-node-1.33-*'`);
    expect(steps).toContain(
      `kubectl patch ec2nodeclass default --type=merge -p '{"spec":{"amiFamily":"AL2023","amiSelectorTerms":[{"alias":"al2023@latest"}]}}'`,
    );
    expect(steps).toContain('{"owner":"602401143452","name":"amazon-eks-node-al2023-x86_64-standard-1.33-*"}');
    // DependenciesNotReady is a consequence, never a cause of its own
    expect(f.cause?.detail).not.toContain('failed validation');
  });

  it('AL2 alias without a cluster version still explains AL2 and offers the alias fix', () => {
    const nc = withSpec(
      ec2NodeClass({
        name: 'al2',
        conditions: failing(
          condition('AMIsReady', 'False', { reason: 'AMINotFound', message: 'AMISelector did not match any AMIs' }),
        ),
      }),
      { amiFamily: undefined, amiSelectorTerms: [{ alias: 'al2@latest' }] },
    );

    const [f] = detect(snapshotOf({ nodeClasses: [nc] }));

    expect(f?.cause?.code).toBe('AMI_NOT_FOUND');
    expect(f?.cause?.detail).toContain('AL2023');
    expect(f?.remediation?.steps.join('\n')).toContain('kubectl patch ec2nodeclass al2 --type=merge');
  });

  it('AL2 alias on EKS 1.33: the SSM parameter Karpenter reads is the lookup step', () => {
    const nc = withSpec(
      ec2NodeClass({
        name: 'default',
        conditions: failing(
          condition('AMIsReady', 'False', { reason: 'AMINotFound', message: 'AMISelector did not match any AMIs' }),
        ),
      }),
      { amiFamily: 'AL2', amiSelectorTerms: [{ alias: 'al2@latest' }] },
    );

    const [f] = detect(snapshotOf({ nodeClasses: [nc], cluster: cluster({ version: '1.33' }) }));

    expect(f?.remediation?.steps.join('\n')).toContain(
      'aws ssm get-parameter --name /aws/service/eks/optimized-ami/1.33/amazon-linux-2/recommended/image_id',
    );
  });

  it('non-AL2 AMI selector that matches nothing: AMI_NOT_FOUND without the AL2 story', () => {
    const nc = withSpec(
      ec2NodeClass({
        name: 'custom',
        conditions: failing(
          condition('AMIsReady', 'False', { reason: 'AMINotFound', message: 'AMISelector did not match any AMIs' }),
        ),
      }),
      { amiSelectorTerms: [{ id: 'ami-0123456789abcdef0' }] },
    );

    const [f] = detect(snapshotOf({ nodeClasses: [nc] }));

    expect(f?.cause?.code).toBe('AMI_NOT_FOUND');
    expect(f?.cause?.detail).not.toContain('Amazon Linux 2');
    expect(f?.remediation?.steps.join('\n')).toContain('aws ec2 describe-images --image-ids ami-0123456789abcdef0');
    expect(f?.remediation?.steps.join('\n')).toContain('kubectl edit ec2nodeclass custom');
  });

  it('SUBNETS_NOT_FOUND: describe-subnets from the actual terms, tagging the known subnets', () => {
    const nc = withSpec(
      ec2NodeClass({
        name: 'default',
        conditions: failing(
          condition('SubnetsReady', 'False', { reason: 'SubnetsNotFound', message: 'SubnetSelector did not match any Subnets' }),
          dependenciesNotReady,
        ),
      }),
      { subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'aws-2026-eks' } }] },
    );
    const fp = fargateProfile({ name: 'karpenter', selectors: [{ namespace: 'karpenter' }] });

    const [f] = detect(snapshotOf({ nodeClasses: [nc], fargateProfiles: [fp] }));

    expect(f?.cause?.code).toBe('SUBNETS_NOT_FOUND');
    expect(f?.title).toContain('no subnet matches');
    expect(f?.evidence).toContain('SubnetsReady=False (SubnetsNotFound: SubnetSelector did not match any Subnets)');
    const steps = f!.remediation!.steps.join('\n');
    expect(steps).toContain(`aws ec2 describe-subnets --filters Name=tag:karpenter.sh/discovery,Values=aws-2026-eks`);
    expect(steps).toContain(
      'aws ec2 create-tags --resources subnet-0a1b2c3d4e5f60001 subnet-0a1b2c3d4e5f60002 --tags Key=karpenter.sh/discovery,Value=aws-2026-eks',
    );
  });

  it('SECURITY_GROUPS_NOT_FOUND: describe-security-groups from the terms and explicit IDs as the fix (seed 000)', () => {
    const nc = withSpec(
      ec2NodeClass({
        name: 'default',
        conditions: failing(
          condition('SecurityGroupsReady', 'False', {
            reason: 'SecurityGroupsNotFound',
            message: 'SecurityGroupSelector did not match any SecurityGroups',
          }),
        ),
      }),
      { securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'pattern-infra-eks-dev' } }] },
    );

    const [f] = detect(snapshotOf({ nodeClasses: [nc] }, 'pattern-infra-eks-dev'));

    expect(f?.cause?.code).toBe('SECURITY_GROUPS_NOT_FOUND');
    const steps = f!.remediation!.steps.join('\n');
    expect(steps).toContain(
      `aws ec2 describe-security-groups --filters Name=tag:karpenter.sh/discovery,Values=pattern-infra-eks-dev`,
    );
    expect(steps).toContain(
      "aws eks describe-cluster --name pattern-infra-eks-dev --query 'cluster.resourcesVpcConfig.clusterSecurityGroupId'",
    );
    expect(steps).toContain(
      `kubectl patch ec2nodeclass default --type=merge -p '{"spec":{"securityGroupSelectorTerms":[{"id":"<sg-id>"}]}}'`,
    );
  });

  it('INSTANCE_PROFILE_NOT_READY: node role missing names the role', () => {
    const nc = ec2NodeClass({
      name: 'default',
      role: 'aws-2026-eks-karpenter-node',
      conditions: failing(
        condition('InstanceProfileReady', 'False', { reason: 'NodeRoleNotFound', message: 'Failed to detect the NodeRole' }),
      ),
    });

    const [f] = detect(snapshotOf({ nodeClasses: [nc] }));

    expect(f?.cause?.code).toBe('INSTANCE_PROFILE_NOT_READY');
    expect(f?.cause?.detail).toContain('aws-2026-eks-karpenter-node');
    expect(f?.remediation?.steps).toContain('# Check the role exists\naws iam get-role --role-name aws-2026-eks-karpenter-node');
  });

  it('INSTANCE_PROFILE_NOT_READY: role not passable asks for iam:PassRole on the role ARN', () => {
    const nc = ec2NodeClass({
      name: 'default',
      role: 'KarpenterNodeRole-demo',
      conditions: failing(
        condition('InstanceProfileReady', 'False', { reason: 'NodeRoleAuthFailure', message: 'Failed to detect the NodeRole' }),
      ),
    });

    const [f] = detect(snapshotOf({ nodeClasses: [nc], cluster: cluster() }));

    expect(f?.cause?.code).toBe('INSTANCE_PROFILE_NOT_READY');
    expect(f?.remediation?.steps.join('\n')).toContain('iam:PassRole on arn:aws:iam::069057294951:role/KarpenterNodeRole-demo');
  });

  it('INSTANCE_PROFILE_NOT_READY: a line break planted in the role stays on the PassRole step line', () => {
    const nc = ec2NodeClass({
      name: 'default',
      role: 'KarpenterNodeRole-demo\nkubectl delete nodepools --all $(touch PWNED) `id`',
      conditions: failing(
        condition('InstanceProfileReady', 'False', { reason: 'NodeRoleAuthFailure', message: 'Failed to detect the NodeRole' }),
      ),
    });

    const [f] = detect(snapshotOf({ nodeClasses: [nc], cluster: cluster() }));

    const passRole = f?.remediation?.steps.find((s) => s.includes('iam:PassRole on')) ?? '';
    expect(passRole).toContain('role/KarpenterNodeRole-demo kubectl delete nodepools --all $(touch PWNED) `id` and');
    expect(passRole).not.toContain('\n');
  });

  it('INSTANCE_PROFILE_NOT_READY with spec.instanceProfile names the profile', () => {
    const nc = ec2NodeClass({
      name: 'default',
      instanceProfile: 'KarpenterNodeInstanceProfile',
      conditions: failing(
        condition('InstanceProfileReady', 'False', {
          reason: 'InstanceProfileNotFound',
          message: 'Failed to detect the Instance Profile',
        }),
      ),
    });

    const [f] = detect(snapshotOf({ nodeClasses: [nc] }));

    expect(f?.remediation?.steps.join('\n')).toContain(
      'aws iam get-instance-profile --instance-profile-name KarpenterNodeInstanceProfile',
    );
  });

  it('VALIDATION_FAILED: a denied dry-run names the EC2 action', () => {
    const nc = ec2NodeClass({
      name: 'default',
      conditions: failing(
        condition('ValidationSucceeded', 'False', {
          reason: 'RunInstancesAuthCheckFailed',
          message: "Controller isn't authorized to call ec2:RunInstances",
        }),
      ),
    });

    const [f] = detect(snapshotOf({ nodeClasses: [nc], nodePools: [nodePool({ name: 'default' })] }));
    const steps = f?.remediation?.steps ?? [];
    const at = (text: string) => steps.findIndex((s) => s.includes(text));

    expect(f?.cause?.code).toBe('VALIDATION_FAILED');
    expect(f?.cause?.detail).toContain('ec2:RunInstances');
    // The message names no policy (scp-denies-instance-types-nodeclass: an SCP it was): checks first.
    expect(f?.cause?.detail).toContain('or an SCP (often one that allows only some instance types)');
    expect(steps[0]).toContain("grep 'unauthorized to call ec2:RunInstances'");
    expect(
      at('simulate-principal-policy --policy-source-arn <controller-role-arn> --action-names ec2:RunInstances'),
    ).toBeLessThan(at('put-role-policy'));
    expect(steps.join('\n')).toContain("narrow the NodePools' requirements");
    expect(steps).toContain(
      "# requirements of NodePool default, which uses this node class\nkubectl get nodepool default -o jsonpath='{.spec.template.spec.requirements}'",
    );
  });

  // Karpenter's messages when AWS's text named the policy (karpenter-provider-aws validation_test.go).
  it.each([
    [
      "Controller isn't authorized to call ec2:RunInstances: User is not authorized to perform this operation due to a service control policy",
      'an Organizations service control policy denies it',
      "narrow the NodePools' requirements",
    ],
    [
      "Controller isn't authorized to call ec2:RunInstances: User is not authorized to perform this operation due to a permission boundary",
      "the controller role's permissions boundary denies it",
      'Role.PermissionsBoundary',
    ],
  ])('VALIDATION_FAILED: %s → never an Allow on the role', (message, detail, step) => {
    const nc = ec2NodeClass({
      name: 'default',
      conditions: failing(condition('ValidationSucceeded', 'False', { reason: 'RunInstancesAuthCheckFailed', message })),
    });

    const [f] = detect(snapshotOf({ nodeClasses: [nc] }));
    const steps = f?.remediation?.steps.join('\n') ?? '';

    expect(f?.cause?.code).toBe('VALIDATION_FAILED');
    expect(f?.cause?.detail).toContain(detail);
    expect(steps).toContain(step);
    expect(steps).not.toContain('put-role-policy');
    expect(steps).not.toContain('"Effect":"Allow"');
  });

  it('VALIDATION_FAILED: reserved tag keys in spec.tags are named', () => {
    const nc = withSpec(
      ec2NodeClass({
        name: 'default',
        conditions: failing(
          condition('ValidationSucceeded', 'False', {
            reason: 'TagValidationFailed',
            message: 'invalid tag key eks:eks-cluster-name',
          }),
        ),
      }),
      { tags: { 'eks:eks-cluster-name': 'demo', team: 'platform' } },
    );

    const [f] = detect(snapshotOf({ nodeClasses: [nc] }));

    expect(f?.cause?.code).toBe('VALIDATION_FAILED');
    expect(f?.remediation?.steps[0]).toBe('# Remove eks:eks-cluster-name from spec.tags\nkubectl edit ec2nodeclass default');
  });

  it('UNKNOWN: Ready Unknown for minutes with no False sub-condition', () => {
    const nc = ec2NodeClass({
      name: 'default',
      conditions: failing(condition('InstanceProfileReady', 'Unknown', { reason: 'AwaitingReconciliation' })),
    });

    const [f] = detect(snapshotOf({ nodeClasses: [nc] }));

    expect(f?.cause?.code).toBe('UNKNOWN');
    expect(f?.evidence).toContain('InstanceProfileReady=Unknown (AwaitingReconciliation)');
    expect(f?.remediation?.steps).toContain('kubectl describe ec2nodeclass default');
  });

  it('several failing sub-conditions: the first is the cause, the steps cover all of them', () => {
    const nc = ec2NodeClass({
      name: 'default',
      conditions: failing(
        condition('AMIsReady', 'False', { reason: 'AMINotFound', message: 'AMISelector did not match any AMIs' }),
        condition('SubnetsReady', 'False', { reason: 'SubnetsNotFound', message: 'SubnetSelector did not match any Subnets' }),
        dependenciesNotReady,
      ),
    });

    const findings = detect(snapshotOf({ nodeClasses: [nc] }));

    expect(findings).toHaveLength(1);
    expect(findings[0]?.cause?.code).toBe('AMI_NOT_FOUND');
    const steps = findings[0]!.remediation!.steps.join('\n');
    expect(steps).toContain('aws ec2 describe-subnets --filters Name=tag:karpenter.sh/discovery,Values=demo');
    expect(steps).toContain('Correct spec.amiSelectorTerms of EC2NodeClass default');
  });

  it('a ready node class is no finding', () => {
    expect(detect(snapshotOf({ nodeClasses: [ec2NodeClass({ name: 'default' })] }))).toEqual([]);
  });

  it('Ready=False is reported at once', () => {
    const nc = ec2NodeClass({
      name: 'default',
      conditions: failing(
        condition('AMIsReady', 'False', { reason: 'AMINotFound', message: 'AMISelector did not match any AMIs' }),
      ),
    });

    expect(detect(snapshotOf({ nodeClasses: [nc] }), FAILED_AT)).toHaveLength(1);
  });

  it('Ready=Unknown counts from 5 minutes after its transition, not before', () => {
    const nc = ec2NodeClass({ name: 'default', conditions: failing(condition('AMIsReady', 'Unknown')) });
    const snapshot = snapshotOf({ nodeClasses: [nc] });

    expect(detect(snapshot, minutesAfter(FAILED_AT, 4))).toEqual([]);
    expect(detect(snapshot, minutesAfter(FAILED_AT, 5))).toHaveLength(1);
  });

  it('no status at all: nothing while young, UNKNOWN ("never reconciled") once older than 5 minutes', () => {
    const nc: EC2NodeClass = { ...ec2NodeClass({ name: 'fresh' }), status: {} };
    const snapshot = snapshotOf({ nodeClasses: [nc] });

    expect(detect(snapshot, minutesAfter(T0, 2))).toEqual([]);
    const [f] = detect(snapshot, minutesAfter(T0, 10));
    expect(f?.cause?.code).toBe('UNKNOWN');
    expect(f?.cause?.detail).toContain('no status');
    expect(f?.since).toBe(T0);
    expect(f?.evidence[0]).toBe('EC2NodeClass fresh has no Ready condition');
  });

  it('a v1beta1 EC2NodeClass with resolved AMIs and subnets but no conditions (Karpenter before v0.37 wrote none) is not called unreconciled', () => {
    // Prepare: the shape of aws/karpenter-provider-aws#5091 (test/incidents/ami-name-wildcard-picks-bottlerocket).
    const nc: EC2NodeClass = {
      ...ec2NodeClass({ name: 'default' }),
      apiVersion: 'karpenter.k8s.aws/v1beta1',
      status: {
        amis: [{ id: 'ami-0f0a0e9a1b2c3d4e5', name: 'bottlerocket-aws-k8s-1.27-x86_64-v1.16.1-763f6d4c' }],
        subnets: [{ id: 'subnet-1', zone: 'us-east-1a' }],
      },
    };

    // Act
    const findings = detect(snapshotOf({ nodeClasses: [nc] }), minutesAfter(T0, 60));

    // Assess
    expect(findings).toEqual([]);
  });

  it('one finding per node class, each with its own id', () => {
    const broken = (name: string) =>
      ec2NodeClass({
        name,
        conditions: failing(
          condition('AMIsReady', 'False', { reason: 'AMINotFound', message: 'AMISelector did not match any AMIs' }),
        ),
      });

    const findings = detect(snapshotOf({ nodeClasses: [broken('a'), broken('b'), ec2NodeClass({ name: 'ok' })] }));

    expect(findings.map((f) => f.resource.name)).toEqual(['a', 'b']);
    expect(new Set(findings.map((f) => f.id)).size).toBe(2);
  });
});
