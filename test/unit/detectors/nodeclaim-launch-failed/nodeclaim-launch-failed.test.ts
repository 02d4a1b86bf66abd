import { describe, expect, it } from 'vitest';
import { karpenterIamDenied } from '../../../../src/detectors/karpenter-iam-denied/index.ts';
import { nodeClaimLaunchFailed } from '../../../../src/detectors/nodeclaim-launch-failed/index.ts';
import type { NodePool } from '../../../../src/domain/kube.ts';
import { DEFAULT_DETECTION } from '../../../../src/domain/settings.ts';
import type { ClusterSnapshot } from '../../../../src/domain/snapshot.ts';
import { SnapshotIndex } from '../../../../src/domain/snapshot-index.ts';
import { parseLogLine } from '../../../../src/snapshot/controller-logs.ts';
import { cluster, logLine, snapshotOf } from '../../../factories/aws.ts';
import { nodeClaim, nodePool } from '../../../factories/karpenter.ts';
import { T0, condition, event, minutesAfter } from '../../../factories/kube.ts';

const NOW = minutesAfter(T0, 30);

function ctxOf(snapshot: ClusterSnapshot) {
  return { snapshot, index: new SnapshotIndex(snapshot), settings: DEFAULT_DETECTION, now: new Date(NOW) };
}
function detect(snapshot: ClusterSnapshot) {
  return nodeClaimLaunchFailed.detect(ctxOf(snapshot));
}

/** Seed 004 #3, as one JSON line the way `kubectl logs` prints it. */
const SEED_SPOT_LINE =
  '{"level":"ERROR","message":"Reconciler error","error":"launching nodeclaim, creating instance, with fleet error(s), AuthFailure.ServiceLinkedRoleCreationNotPermitted: The provided credentials do not have permission to create the service-linked role for EC2 Spot Instances."}';

function failedClaim(name: string, reason: string, message: string, nodePoolName = 'default', at = minutesAfter(T0, 1)) {
  return nodeClaim({
    name,
    nodePool: nodePoolName,
    conditions: [condition('Launched', 'Unknown', { reason, message, lastTransitionTime: at })],
  });
}

function poolWithCapacityTypes(name: string, types: string[]): NodePool {
  const np = nodePool({ name });
  const reqs = np.spec?.template?.spec?.requirements ?? [];
  const replaced = reqs.map((r) => (r.key === 'karpenter.sh/capacity-type' ? { ...r, values: types } : r));
  return {
    ...np,
    spec: { ...np.spec, template: { ...np.spec?.template, spec: { ...np.spec?.template?.spec, requirements: replaced } } },
  };
}

describe('NODECLAIM_LAUNCH_FAILED: Spot service-linked role (seeds 002 and 004 #3)', () => {
  it('reads the seed log line; without NodeClaim or NodePool it is about the cluster', () => {
    const s = snapshotOf({ logs: [parseLogLine(SEED_SPOT_LINE, 'karpenter.log:7')] });

    const findings = detect(s);

    expect(findings).toHaveLength(1);
    const f = findings[0];
    expect(f?.severity).toBe('warning');
    expect(f?.resource).toEqual({ kind: 'Cluster', name: 'demo' });
    expect(f?.cause?.code).toBe('SPOT_SERVICE_LINKED_ROLE_MISSING');
    expect(f?.evidence[1]).toBe(
      'karpenter.log:7: launching nodeclaim, creating instance, with fleet error(s), AuthFailure.ServiceLinkedRoleCreationNotPermitted: The provided credentials do not have permission to create the service-linked role for EC2 Spot Instances.',
    );
    expect(f?.remediation?.steps[0]).toContain('aws iam create-service-linked-role --aws-service-name spot.amazonaws.com');
  });

  it('is not reported again as KARPENTER_IAM_DENIED', () => {
    const s = snapshotOf({ logs: [parseLogLine(SEED_SPOT_LINE, 'karpenter.log:7')] });

    expect(karpenterIamDenied.detect(ctxOf(s))).toEqual([]);
  });

  it('names the NodePool from the log line and offers restricting it to on-demand', () => {
    const line = logLine({
      level: 'ERROR',
      time: minutesAfter(T0, 3),
      message: 'Reconciler error',
      controller: 'nodeclaim.lifecycle',
      NodeClaim: { name: 'spot-x7k2p' },
      NodePool: { name: 'spot' },
      error: JSON.parse(SEED_SPOT_LINE).error,
    });
    const s = snapshotOf({ logs: [line], nodePools: [poolWithCapacityTypes('spot', ['spot'])] });

    const [f] = detect(s);

    expect(f?.resource).toEqual({ kind: 'NodePool', name: 'spot' });
    expect(f?.since).toBe(minutesAfter(T0, 3));
    expect(f?.cause?.detail).toContain('NodePool spot allows only Spot capacity, so it launches nothing until the role exists');
    expect(f?.remediation?.steps).toContainEqual(
      expect.stringMatching(/^# or restrict NodePool spot to on-demand\nkubectl edit nodepool spot /),
    );
  });

  it('reads the event Karpenter puts on the NodeClaim (seed 002) and finds the NodePool through the NodeClaim', () => {
    const ev = event({
      kind: 'NodeClaim',
      name: 'default-abcde',
      reason: '',
      source: 'karpenter',
      message: 'Attempted to launch a spot instance but failed due to "AuthFailure.ServiceLinkedRoleCreationNotPermitted"',
    });
    const s = snapshotOf({
      events: [ev],
      nodeClaims: [failedClaim('default-abcde', 'LaunchFailed', 'Instance launch failed', 'default')],
      nodePools: [nodePool({ name: 'default' })],
    });

    const findings = detect(s);

    expect(findings.map((f) => [f.resource.name, f.cause?.code])).toEqual([['default', 'SPOT_SERVICE_LINKED_ROLE_MISSING']]);
    expect(findings[0]?.cause?.detail).toContain('launches on-demand instead where NodePool default allows it');
  });

  it('reads the v1.1 SpotSLRCreationFailed reason on the NodeClaim and on the NodePool', () => {
    const slr = {
      reason: 'SpotSLRCreationFailed',
      message: 'User does not hae sufficient permission to create the Spot ServiceLinkedRole to launch spot instances',
    };
    const pool = nodePool({ name: 'default', conditions: [condition('NodeRegistrationHealthy', 'False', slr)] });

    expect(detect(snapshotOf({ nodeClaims: [failedClaim('default-abcde', slr.reason, slr.message)] }))[0]?.cause?.code).toBe(
      'SPOT_SERVICE_LINKED_ROLE_MISSING',
    );
    expect(detect(snapshotOf({ nodePools: [pool] }))[0]?.cause?.code).toBe('SPOT_SERVICE_LINKED_ROLE_MISSING');
  });
});

describe('NODECLAIM_LAUNCH_FAILED: causes', () => {
  it('INSUFFICIENT_CAPACITY from the InsufficientCapacityError event of a NodeClaim already deleted', () => {
    const ev = event({
      kind: 'NodeClaim',
      name: 'default-q9w8e',
      reason: 'InsufficientCapacityError',
      source: 'karpenter',
      message:
        'NodeClaim default-q9w8e event: creating instance, insufficient capacity, with fleet error(s), InsufficientInstanceCapacity: We currently do not have sufficient t3a.xlarge capacity in the Availability Zone you requested (us-east-1a).',
    });

    const [f] = detect(snapshotOf({ events: [ev], nodePools: [nodePool({ name: 'default' })] }));

    expect(f?.resource).toEqual({ kind: 'NodePool', name: 'default' });
    expect(f?.cause?.code).toBe('INSUFFICIENT_CAPACITY');
    expect(f?.cause?.detail).toContain('InsufficientInstanceCapacity');
    expect(f?.remediation?.steps[0]).toBe("kubectl get nodepool default -o jsonpath='{.spec.template.spec.requirements}'");
  });

  it('UNAUTHORIZED names the action and the controller role from the error', () => {
    const message =
      'Error creating fleet request: operation error EC2: CreateFleet, https response error StatusCode: 403, api error UnauthorizedOperation: You are not authorized to perform this operation. User: arn:aws:sts::069057294951:assumed-role/KarpenterController-demo/1756 is not authorized to perform: ec2:CreateFleet on resource: arn:aws:ec2:us-east-1:069057294951:fleet/* because no identity-based policy allows the ec2:CreateFleet action.';
    const s = snapshotOf({ nodeClaims: [failedClaim('default-abcde', 'Unauthorized', message)], cluster: cluster() });

    const [f] = detect(s);

    expect(f?.cause?.code).toBe('UNAUTHORIZED');
    expect(f?.cause?.detail).toContain('AWS denied ec2:CreateFleet on arn:aws:ec2:us-east-1:069057294951:fleet/*');
    expect(f?.cause?.detail).toContain('arn:aws:iam::069057294951:role/KarpenterController-demo');
    const steps = f?.remediation?.steps.join('\n') ?? '';
    expect(steps).toContain(
      '{"Effect":"Allow","Action":["ec2:CreateFleet"],"Resource":"arn:aws:ec2:us-east-1:069057294951:fleet/*"}',
    );
    expect(steps).toContain('aws iam put-role-policy --role-name KarpenterController-demo');
  });

  it('UNAUTHORIZED inside a launch log line is not also KARPENTER_IAM_DENIED', () => {
    const line = logLine({
      level: 'ERROR',
      message: 'Reconciler error',
      'aws-error-code': 'UnauthorizedOperation',
      error:
        'launching nodeclaim, creating instance, with fleet error(s), UnauthorizedOperation: You are not authorized to perform this operation. Encoded authorization failure message: HZ_v0123456789abcdefghij',
    });
    const s = snapshotOf({ logs: [line] });

    const [f] = detect(s);

    expect(f?.cause?.code).toBe('UNAUTHORIZED');
    expect(f?.remediation?.steps[0]).toBe(
      'aws sts decode-authorization-message --encoded-message HZ_v0123456789abcdefghij --query DecodedMessage --output text   # names the action and resource',
    );
    expect(karpenterIamDenied.detect(ctxOf(s))).toEqual([]);
  });

  it('AMI_NOT_FOUND names the AMI and the EC2NodeClass', () => {
    const line = logLine({
      level: 'ERROR',
      message: 'Reconciler error',
      NodeClaim: { name: 'default-abcde' },
      error:
        "launching nodeclaim, creating instance, creating fleet request, api error InvalidAMIID.NotFound: The image id '[ami-0123456789abcdef0]' does not exist",
    });

    const [f] = detect(
      snapshotOf({
        logs: [line],
        nodeClaims: [failedClaim('default-abcde', 'LaunchFailed', 'Instance launch failed')],
        cluster: cluster(),
      }),
    );

    expect(f?.cause?.code).toBe('AMI_NOT_FOUND');
    expect(f?.remediation?.steps).toContain('aws ec2 describe-images --image-ids ami-0123456789abcdef0 --region us-east-1');
    expect(f?.remediation?.steps.join('\n')).toContain('kubectl edit ec2nodeclass default');
  });

  it('SECURITY_GROUP_SUBNET_VPC_MISMATCH names the security group and subnet', () => {
    const msg =
      'creating instance, with fleet error(s), InvalidParameter: Security group sg-0a1b2c3d4e5f60001 and subnet subnet-0a1b2c3d4e5f60002 belong to different networks.';

    const [f] = detect(snapshotOf({ nodeClaims: [failedClaim('default-abcde', 'LaunchFailed', msg)] }));

    expect(f?.cause?.code).toBe('SECURITY_GROUP_SUBNET_VPC_MISMATCH');
    const steps = f?.remediation?.steps.join('\n') ?? '';
    expect(steps).toContain(
      "aws ec2 describe-security-groups --group-ids sg-0a1b2c3d4e5f60001 --query 'SecurityGroups[].[GroupId,VpcId]'",
    );
    expect(steps).toContain(
      "aws ec2 describe-subnets --subnet-ids subnet-0a1b2c3d4e5f60002 --query 'Subnets[].[SubnetId,VpcId]'",
    );
  });

  it.each([
    ['VcpuLimitExceeded: You have requested more vCPU capacity than your current vCPU limit of 16 allows', 'L-1216C47A'],
    ['MaxSpotInstanceCountExceeded: Max spot instance count exceeded', 'L-34B43A08'],
  ])('QUOTA_EXCEEDED: %s', (fleetError, quota) => {
    const [f] = detect(
      snapshotOf({
        nodeClaims: [
          failedClaim(
            'default-abcde',
            'LaunchFailed',
            `creating instance, insufficient capacity, with fleet error(s), ${fleetError}`,
          ),
        ],
      }),
    );

    expect(f?.cause?.code).toBe('QUOTA_EXCEEDED');
    expect(f?.remediation?.steps[0]).toContain(`aws service-quotas get-service-quota --service-code ec2 --quota-code ${quota}`);
  });

  it('UNKNOWN when Karpenter says only that the launch failed', () => {
    const [f] = detect(snapshotOf({ nodeClaims: [failedClaim('default-abcde', 'LaunchFailed', 'Instance launch failed')] }));

    expect(f?.cause?.code).toBe('UNKNOWN');
    expect(f?.remediation?.steps[0]).toBe('kubectl describe nodeclaim default-abcde');
  });

  it("the NodeClaim's log line replaces its vague condition", () => {
    const line = logLine({
      level: 'ERROR',
      message: 'failed launching nodeclaim',
      NodeClaim: { name: 'default-abcde' },
      error: 'creating instance, insufficient capacity, with fleet error(s), InsufficientInstanceCapacity: no t3a.xlarge',
    });

    const findings = detect(
      snapshotOf({ nodeClaims: [failedClaim('default-abcde', 'LaunchFailed', 'Instance launch failed')], logs: [line] }),
    );

    expect(findings.map((f) => f.cause?.code)).toEqual(['INSUFFICIENT_CAPACITY']);
    expect(findings[0]?.resource).toEqual({ kind: 'NodePool', name: 'default' });
  });
});

describe('NODECLAIM_LAUNCH_FAILED: grouping and negatives', () => {
  it('one finding per NodePool and cause, since the earliest occurrence', () => {
    const ice = 'creating instance, insufficient capacity, with fleet error(s), InsufficientInstanceCapacity: no capacity';
    const quota = 'creating instance, with fleet error(s), VcpuLimitExceeded: limit of 16';
    const s = snapshotOf({
      nodeClaims: [
        failedClaim('default-aaaaa', 'LaunchFailed', ice, 'default', minutesAfter(T0, 5)),
        failedClaim('default-bbbbb', 'LaunchFailed', ice, 'default', minutesAfter(T0, 2)),
        failedClaim('default-ccccc', 'LaunchFailed', quota, 'default'),
        failedClaim('gpu-ddddd', 'LaunchFailed', ice, 'gpu'),
      ],
    });

    const findings = detect(s);

    expect(findings.map((f) => [f.resource.name, f.cause?.code])).toEqual([
      ['default', 'INSUFFICIENT_CAPACITY'],
      ['default', 'QUOTA_EXCEEDED'],
      ['gpu', 'INSUFFICIENT_CAPACITY'],
    ]);
    expect(findings[0]?.since).toBe(minutesAfter(T0, 2));
    expect(findings[0]?.evidence[0]).toBe('2 failed launch reports for NodeClaims default-bbbbb, default-aaaaa');
    expect(findings[0]?.evidence[1]).toContain('(2 times)');
    expect(new Set(findings.map((f) => f.id)).size).toBe(3);
  });

  it('ignores launched NodeClaims, launches still in progress and launches that never reached EC2', () => {
    const s = snapshotOf({
      nodeClaims: [
        nodeClaim({ name: 'default-ok', instanceId: 'i-0abc' }),
        nodeClaim({ name: 'default-new', conditions: [condition('Launched', 'Unknown')] }),
      ],
      logs: [
        logLine({
          level: 'ERROR',
          message: 'Reconciler error',
          error: 'launching nodeclaim, resolving ec2nodeclass, object is awaiting reconciliation',
        }),
      ],
      events: [event({ kind: 'Pod', name: 'web-1', reason: 'FailedScheduling', message: 'insufficient capacity' })],
    });

    expect(detect(s)).toEqual([]);
  });

  it('leaves NodeRegistrationHealthy=False RegistrationFailed to NODECLAIM_NOT_REGISTERED', () => {
    const pool = nodePool({
      name: 'default',
      conditions: [
        condition('NodeRegistrationHealthy', 'False', { reason: 'RegistrationFailed', message: 'Failed to register node' }),
      ],
    });

    expect(detect(snapshotOf({ nodePools: [pool] }))).toEqual([]);
  });
});

describe('NODECLAIM_LAUNCH_FAILED: old log lines', () => {
  const spotAt = (minutes: number) =>
    logLine(
      { ...(JSON.parse(SEED_SPOT_LINE) as Record<string, unknown>), time: minutesAfter(T0, minutes) },
      `karpenter.log:${minutes}`,
    );
  const routine = (minutes: number) =>
    logLine({ level: 'INFO', time: minutesAfter(T0, minutes), message: 'computed new nodeclaim(s) to fit pod(s)' });

  it('a failure known only from log lines that stopped over an hour before the newest line is over: no finding', () => {
    expect(detect(snapshotOf({ logs: [spotAt(0), spotAt(5), routine(125)] }))).toEqual([]);
    expect(detect(snapshotOf({ logs: [spotAt(0), spotAt(5), routine(60)] }))).toHaveLength(1);
  });

  it('an old log line still counts next to a NodeClaim that reports the failure now', () => {
    const claim = failedClaim('default-abcde', 'SpotSLRCreationFailed', 'Instance launch failed');
    const findings = detect(snapshotOf({ logs: [spotAt(0), routine(125)], nodeClaims: [claim] }));
    expect(findings.map((f) => f.cause?.code)).toEqual(['SPOT_SERVICE_LINKED_ROLE_MISSING']);
  });
});
