import { describe, expect, it } from 'vitest';
import { nodeClassNotReady } from '../../../../src/detectors/nodeclass-not-ready/detector.ts';
import type { EC2NodeClass } from '../../../../src/domain/kube.ts';
import { DEFAULT_DETECTION } from '../../../../src/domain/settings.ts';
import type { ClusterSnapshot } from '../../../../src/domain/snapshot.ts';
import { SnapshotIndex } from '../../../../src/domain/snapshot-index.ts';
import { parseLogLine } from '../../../../src/snapshot/controller-logs.ts';
import { cluster, snapshotOf } from '../../../factories/aws.ts';
import { ec2NodeClass } from '../../../factories/karpenter.ts';
import { T0, condition, minutesAfter } from '../../../factories/kube.ts';
import { priceBookOf } from '../../../../src/domain/price-book.ts';

const NOW = minutesAfter(T0, 60);

function detect(snapshot: ClusterSnapshot) {
  return nodeClassNotReady.detect({
    snapshot,
    index: new SnapshotIndex(snapshot),
    prices: priceBookOf(snapshot),
    settings: DEFAULT_DETECTION,
    now: new Date(NOW),
  });
}

/** Karpenter v1.0 to v1.6 (pkg/controllers/nodeclass readiness.go): the cause on Ready itself, every sub-condition True. */
const cidrClass = ec2NodeClass({
  name: 'default',
  conditions: [
    condition('AMIsReady', 'True'),
    condition('SubnetsReady', 'True'),
    condition('SecurityGroupsReady', 'True'),
    condition('InstanceProfileReady', 'True'),
    condition('ValidationSucceeded', 'True'),
    condition('Ready', 'False', { reason: 'NodeClassNotReady', message: 'Failed to detect the cluster CIDR' }),
  ],
});

/** Karpenter's `failed to detect the cluster CIDR, %w` around the AWS SDK's error for a denied DescribeCluster. */
const cidrLine = (error: string) =>
  parseLogLine(
    JSON.stringify({
      level: 'ERROR',
      time: minutesAfter(T0, 50),
      logger: 'controller',
      message: 'Reconciler error',
      controller: 'nodeclass',
      controllerGroup: 'karpenter.k8s.aws',
      controllerKind: 'EC2NodeClass',
      EC2NodeClass: { name: 'default' },
      name: 'default',
      error: `failed to detect the cluster CIDR, ${error}`,
    }),
    'karpenter.log:4',
  );

/** aws/karpenter-provider-aws#4985, verbatim (Karpenter v0.32.0 in a private VPC). */
const IAM_TIMEOUT =
  '{"level":"ERROR","time":"2023-10-31T16:25:09.325Z","logger":"controller","message":"Reconciler error","commit":"3a61217","controller":"nodeclass","controllerGroup":"karpenter.k8s.aws","controllerKind":"EC2NodeClass","EC2NodeClass":{"name":"default"},"namespace":"","name":"default","reconcileID":"1b18814b-c28d-45fb-bb32-bd804070a03b","error":"resolving instance profile, getting instance profile \\"REDACTED\\", RequestError: send request failed\\ncaused by: Post \\"https://iam.amazonaws.com/\\": dial tcp 52.46.159.95:443: i/o timeout"}';

function withoutStatus(nc: EC2NodeClass): EC2NodeClass {
  const { status: _status, ...rest } = nc;
  return rest;
}

describe("NODECLASS_NOT_READY: Karpenter's own words when no sub-condition explains", () => {
  it('"Failed to detect the cluster CIDR" on Ready, no log: names what it can be and leads with the check that tells them apart', () => {
    const [f] = detect(snapshotOf({ nodeClasses: [cidrClass], cluster: cluster() }));

    expect(f?.cause?.code).toBe('CLUSTER_CIDR_NOT_RESOLVED');
    expect(f?.cause?.detail).toContain('NodeClassNotReady: Failed to detect the cluster CIDR');
    expect(f?.cause?.detail).toContain('eks:DescribeCluster');
    expect(f?.remediation?.steps[0]).toContain("grep -i 'cluster CIDR'");
    // Without the AWS error nothing is granted on a guess.
    expect(f?.remediation?.steps.join('\n')).not.toContain('put-role-policy');
  });

  it('the log says AccessDeniedException: the grant of eks:DescribeCluster to the named controller role', () => {
    const denied =
      'operation error EKS: DescribeCluster, https response error StatusCode: 403, RequestID: 8e10d6df-356f-4831-8cd4-7eb14d19e849, api error AccessDeniedException: User: arn:aws:sts::111122223333:assumed-role/KarpenterControllerRole-demo/1678700083010048590 is not authorized to perform: eks:DescribeCluster on resource: arn:aws:eks:us-east-1:111122223333:cluster/demo';

    const [f] = detect(snapshotOf({ nodeClasses: [cidrClass], cluster: cluster(), logs: [cidrLine(denied)] }));

    expect(f?.cause?.code).toBe('CLUSTER_CIDR_NOT_RESOLVED');
    expect(f?.evidence.join('\n')).toContain('AccessDeniedException');
    const steps = f?.remediation?.steps.join('\n') ?? '';
    expect(steps).toContain('"Action":["eks:DescribeCluster"]');
    expect(steps).toContain('KarpenterControllerRole-demo');
  });

  it('the log says the cluster does not exist: the cluster name is checked, no permission is granted', () => {
    const missing =
      'operation error EKS: DescribeCluster, https response error StatusCode: 404, RequestID: 2b8e5f7a-0c1d-4e3f-9a8b-7c6d5e4f3a2b, api error ResourceNotFoundException: No cluster found for name: demo-old.';

    const [f] = detect(snapshotOf({ nodeClasses: [cidrClass], cluster: cluster(), logs: [cidrLine(missing)] }));

    expect(f?.cause?.code).toBe('CLUSTER_CIDR_NOT_RESOLVED');
    expect(f?.remediation?.steps.join('\n')).toContain('CLUSTER_NAME');
    expect(f?.remediation?.steps.join('\n')).not.toContain('eks:DescribeCluster"]');
  });

  it('v1.7+ writes it on ValidationSucceeded (ClusterCIDRResolutionFailed): the same cause', () => {
    const nc = ec2NodeClass({
      name: 'default',
      conditions: [
        condition('ValidationSucceeded', 'False', {
          reason: 'ClusterCIDRResolutionFailed',
          message: 'Failed to detect the cluster CIDR',
        }),
        condition('Ready', 'False', { reason: 'UnhealthyDependents', message: 'ValidationSucceeded=False' }),
      ],
    });

    const [f] = detect(snapshotOf({ nodeClasses: [nc] }));

    expect(f?.cause?.code).toBe('CLUSTER_CIDR_NOT_RESOLVED');
  });

  it('a Ready message no rule knows is quoted instead of "no sub-condition says why"', () => {
    const nc = ec2NodeClass({
      name: 'default',
      conditions: [condition('Ready', 'False', { reason: 'NodeClassNotReady', message: 'Failed to resolve subnets' })],
    });

    const [f] = detect(snapshotOf({ nodeClasses: [nc] }));

    expect(f?.cause?.code).toBe('UNKNOWN');
    expect(f?.cause?.detail).toContain('NodeClassNotReady: Failed to resolve subnets');
  });

  it('no status, the nodeclass controller times out on iam.amazonaws.com (aws/karpenter-provider-aws#4985): spec.instanceProfile, not "is the controller running?"', () => {
    const nc = withoutStatus(ec2NodeClass({ name: 'default', role: 'KarpenterNodeRole-demo' }));

    const [f] = detect(snapshotOf({ nodeClasses: [nc], logs: [parseLogLine(IAM_TIMEOUT, 'karpenter.log:1')] }));

    expect(f?.cause?.code).toBe('IAM_API_UNREACHABLE');
    expect(f?.cause?.detail).toContain('iam.amazonaws.com');
    expect(f?.cause?.detail).not.toContain('Is the controller running');
    const steps = f?.remediation?.steps.join('\n') ?? '';
    expect(steps).toContain('--role-name KarpenterNodeRole-demo');
    expect(steps).toContain('"instanceProfile":"<instance-profile-name>"');
    expect(steps).not.toContain('put-role-policy');
  });

  it('a timeout to another service is not read as the IAM API: quoted, UNKNOWN', () => {
    const nc = withoutStatus(ec2NodeClass({ name: 'default' }));
    const ec2Timeout = IAM_TIMEOUT.replace(
      'resolving instance profile, getting instance profile \\"REDACTED\\"',
      'getting subnets',
    ).replace('https://iam.amazonaws.com/', 'https://ec2.us-east-1.amazonaws.com/');

    const [f] = detect(snapshotOf({ nodeClasses: [nc], logs: [parseLogLine(ec2Timeout, 'karpenter.log:1')] }));

    expect(f?.cause?.code).toBe('UNKNOWN');
    expect(f?.cause?.detail).toContain('ec2.us-east-1.amazonaws.com');
    expect(f?.remediation?.steps.join('\n')).not.toContain('instanceProfile');
  });
});
