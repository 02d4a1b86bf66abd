import { describe, expect, it } from 'vitest';
import { karpenterIamDenied } from '../../../../src/detectors/karpenter-iam-denied/detector.ts';
import { nodeClaimLaunchFailed } from '../../../../src/detectors/nodeclaim-launch-failed/detector.ts';
import type { NodePool } from '../../../../src/domain/kube.ts';
import { DEFAULT_DETECTION } from '../../../../src/domain/settings.ts';
import type { ClusterSnapshot } from '../../../../src/domain/snapshot.ts';
import { SnapshotIndex } from '../../../../src/domain/snapshot-index.ts';
import { parseLogLine } from '../../../../src/snapshot/controller-logs.ts';
import { cluster, logLine, snapshotOf, subnet } from '../../../factories/aws.ts';
import { ec2NodeClass, nodeClaim, nodePool } from '../../../factories/karpenter.ts';
import { T0, condition, event, minutesAfter } from '../../../factories/kube.ts';
import { priceBookOf } from '../../../../src/domain/price-book.ts';

const NOW = minutesAfter(T0, 30);

function ctxOf(snapshot: ClusterSnapshot) {
  return {
    snapshot,
    index: new SnapshotIndex(snapshot),
    prices: priceBookOf(snapshot),
    settings: DEFAULT_DETECTION,
    now: new Date(NOW),
  };
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
      '# names the action, the resource and whether the deny is explicit\naws sts decode-authorization-message --encoded-message HZ_v0123456789abcdefghij --query DecodedMessage --output text',
    );
    expect(f?.remediation?.steps.join('\n')).not.toContain('put-role-policy');
    expect(karpenterIamDenied.detect(ctxOf(s))).toEqual([]);
  });

  // Karpenter >= 1.1 sets these `Unauthorized` messages (pkg/errors ToReasonMessage) when AWS's text
  // named an SCP or a permissions boundary; the NodeClaim no longer carries AWS's text.
  it('UNAUTHORIZED by an SCP: the NodePool way out and the SCP, never an Allow on the role', () => {
    const message = 'User is not authorized to perform this operation due to a service control policy';
    const [f] = detect(snapshotOf({ nodeClaims: [failedClaim('default-abcde', 'Unauthorized', message)], cluster: cluster() }));
    const steps = f?.remediation?.steps.join('\n') ?? '';

    expect(f?.cause?.code).toBe('UNAUTHORIZED');
    expect(f?.cause?.detail).toContain('AWS says the deny is in a service control policy');
    expect(steps).not.toContain('put-role-policy');
    expect(steps).not.toContain('"Effect":"Allow"');
    expect(steps).toContain("narrow the NodePools' requirements");
    expect(steps).toContain('aws organizations list-policies-for-target --target-id');
  });

  it('UNAUTHORIZED by a permission boundary: the boundary, never an Allow on the role', () => {
    const message = 'User is not authorized to perform this operation due to a permission boundary';
    const [f] = detect(snapshotOf({ nodeClaims: [failedClaim('default-abcde', 'Unauthorized', message)], cluster: cluster() }));
    const steps = f?.remediation?.steps.join('\n') ?? '';

    expect(f?.cause?.detail).toContain('AWS says the deny is in a permissions boundary');
    expect(steps).not.toContain('put-role-policy');
    expect(steps).toContain('--query Role.PermissionsBoundary');
  });

  it("UNAUTHORIZED with Karpenter's fallback message: checks first, since it is said of any other denial", () => {
    const message = 'User is not authorized to perform this operation because no identity-based policy allows it';
    const [f] = detect(snapshotOf({ nodeClaims: [failedClaim('default-abcde', 'Unauthorized', message)], cluster: cluster() }));
    const steps = f?.remediation?.steps ?? [];

    expect(steps.join('\n')).not.toContain('put-role-policy');
    expect(steps.join('\n')).toContain('service control policy');
    expect(steps.join('\n')).toContain('permissions boundary');
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

describe('NODECLAIM_LAUNCH_FAILED: SUBNET_IP_EXHAUSTED, never INSUFFICIENT_CAPACITY', () => {
  const FULL = 'subnet-0c4e1f7a9b2d38e51';
  const ROOMY = 'subnet-07d2f9c4a1e6b3058';
  const FLEET_ERROR = `InsufficientFreeAddressesInSubnet: There are not enough free addresses in subnet '${FULL}' to satisfy the requested number of instances.`;
  const iceEvent = (claim: string, fleetErrors = FLEET_ERROR) =>
    event({
      kind: 'NodeClaim',
      name: claim,
      reason: 'InsufficientCapacityError',
      source: 'karpenter',
      message: `NodeClaim ${claim} event: creating instance, insufficient capacity, with fleet error(s), ${fleetErrors}`,
    });
  const network = {
    nodePools: [nodePool({ name: 'default' })],
    nodeClasses: [
      ec2NodeClass({
        name: 'default',
        subnets: [
          { id: FULL, zone: 'us-east-1a' },
          { id: ROOMY, zone: 'us-east-1b' },
        ],
      }),
    ],
    subnets: [
      subnet({ id: FULL, zone: 'us-east-1a', cidr: '10.59.1.0/24', free: 0 }),
      subnet({ id: ROOMY, zone: 'us-east-1b', cidr: '10.59.96.0/19', free: 8012 }),
    ],
    cluster: cluster(),
  };

  it('the InsufficientCapacityError event of deleted NodeClaims: names the subnet, its zone and room, and the zone with room', () => {
    // Prepare
    const s = snapshotOf({ events: [iceEvent('default-x7k2p'), iceEvent('default-q9w8e')], ...network });

    // Act
    const findings = detect(s);

    // Assess
    expect(findings.map((f) => [f.resource.name, f.cause?.code])).toEqual([['default', 'SUBNET_IP_EXHAUSTED']]);
    const f = findings[0];
    expect(f?.title).toBe('NodePool default cannot launch nodes: a subnet has no free IP addresses');
    expect(f?.cause?.detail).toContain(`EC2 has no free IP addresses left in subnet ${FULL} (InsufficientFreeAddressesInSubnet)`);
    expect(f?.cause?.detail).toContain(`describe-subnets: ${FULL} (us-east-1a, 10.59.1.0/24): 0 of 256 addresses free.`);
    expect(f?.cause?.detail).toContain(
      `Other zones of EC2NodeClass default still have room: ${ROOMY} in us-east-1b (8,012 free)`,
    );
    expect(f?.counts).toEqual({ objects: 2, nodePool: 'default' });
    const steps = f?.remediation?.steps ?? [];
    expect(steps[0]).toBe(
      `aws ec2 describe-subnets --subnet-ids ${FULL} --region us-east-1 --query 'Subnets[].[SubnetId,AvailabilityZone,CidrBlock,AvailableIpAddressCount]' --output table`,
    );
    expect(steps.join('\n')).toContain(
      'aws ec2 create-subnet --vpc-id vpc-0a1b2c3d4e5f60001 --availability-zone us-east-1a --cidr-block <unused-cidr> --region us-east-1',
    );
    expect(steps.join('\n')).toContain(
      'its subnetSelectorTerms are {"tags":{"karpenter.sh/discovery":"demo"}}\naws ec2 create-tags --resources <new-subnet-id> --tags Key=karpenter.sh/discovery,Value=demo',
    );
    expect(steps.join('\n')).toContain('aws ec2 associate-vpc-cidr-block --vpc-id vpc-0a1b2c3d4e5f60001 --cidr-block <new-cidr>');
    expect(steps.join('\n')).toContain('prefix delegation');
  });

  it('mixed with InsufficientInstanceCapacity in one fleet error: one SUBNET_IP_EXHAUSTED finding', () => {
    const mixed = `InsufficientInstanceCapacity: We currently do not have sufficient m5.large capacity in the Availability Zone you requested (us-east-1b).; ${FLEET_ERROR}`;

    const findings = detect(snapshotOf({ events: [iceEvent('default-x7k2p', mixed)], ...network }));

    expect(findings.map((f) => f.cause?.code)).toEqual(['SUBNET_IP_EXHAUSTED']);
  });

  it('the v1.2+ Launched reason names no subnet: the EC2NodeClass subnets that are low are named instead', () => {
    const claim = failedClaim(
      'default-abcde',
      'InsufficientFreeAddressesInSubnet',
      'There are not enough free IP addresses to launch an instance in this subnet',
    );

    const [f] = detect(snapshotOf({ nodeClaims: [claim], ...network }));

    expect(f?.cause?.code).toBe('SUBNET_IP_EXHAUSTED');
    expect(f?.cause?.detail).toContain('a subnet of EC2NodeClass default (the message does not say which)');
    expect(f?.cause?.detail).toContain(`${FULL} (us-east-1a, 10.59.1.0/24): 0 of 256 addresses free`);
    expect(f?.remediation?.steps[0]).toContain(`aws ec2 describe-subnets --subnet-ids ${FULL} `);
  });

  it('a NodePool NodeRegistrationHealthy=False with the reason, and the controller log line, say the same', () => {
    const pool = nodePool({
      name: 'default',
      conditions: [
        condition('NodeRegistrationHealthy', 'False', {
          reason: 'InsufficientFreeAddressesInSubnet',
          message: 'There are not enough free IP addresses to launch an instance in this subnet',
        }),
      ],
    });
    const line = logLine({
      level: 'ERROR',
      time: minutesAfter(T0, 20),
      message: 'failed launching nodeclaim',
      controller: 'nodeclaim.lifecycle',
      NodeClaim: { name: 'default-x7k2p' },
      NodePool: { name: 'default' },
      error: `creating instance, insufficient capacity, with fleet error(s), ${FLEET_ERROR}`,
    });

    expect(detect(snapshotOf({ nodePools: [pool] })).map((f) => f.cause?.code)).toEqual(['SUBNET_IP_EXHAUSTED']);
    expect(detect(snapshotOf({ logs: [line] })).map((f) => [f.resource.name, f.cause?.code])).toEqual([
      ['default', 'SUBNET_IP_EXHAUSTED'],
    ]);
  });

  it('without describe-subnets the detail says so, and the step still checks the subnet EC2 named', () => {
    const [f] = detect(snapshotOf({ events: [iceEvent('default-x7k2p')], nodePools: [nodePool({ name: 'default' })] }));

    expect(f?.cause?.detail).toContain('Free addresses per subnet were not captured (aws ec2 describe-subnets).');
    expect(f?.remediation?.steps[0]).toContain(`aws ec2 describe-subnets --subnet-ids ${FULL} `);
    expect(f?.remediation?.steps.join('\n')).toContain('--vpc-id <vpc-id> --availability-zone <zone>');
  });
});

describe('NODECLAIM_LAUNCH_FAILED: API_THROTTLED', () => {
  it.each([
    [
      'v1.2+ Launched reason',
      failedClaim('default-abcde', 'RequestLimitExceeded', 'Error creating fleet request: Request limit exceeded'),
    ],
    [
      'v1.0 Launched message',
      failedClaim(
        'default-abcde',
        'LaunchFailed',
        'creating instance, creating fleet operation error EC2: CreateFleet, https response error StatusCode: 503, RequestID: 5d2c8a71-0c9e-4f3b-9a7e-2b1f6c0d4e88, api error RequestLimitExceeded: Request limit exceeded.',
      ),
    ],
  ])('%s', (_name, claim) => {
    // Act
    const [f] = detect(snapshotOf({ nodeClaims: [claim], cluster: cluster() }));

    // Assess
    expect(f?.cause?.code).toBe('API_THROTTLED');
    expect(f?.title).toBe('NodePool default cannot launch nodes: EC2 is throttling API calls');
    const steps = f?.remediation?.steps.join('\n') ?? '';
    expect(steps).toContain(
      `aws cloudtrail lookup-events --lookup-attributes AttributeKey=EventSource,AttributeValue=ec2.amazonaws.com --start-time ${minutesAfter(T0, -30)} --max-items 5000 --region us-east-1`,
    );
    expect(steps).toContain('not in Service Quotas: ask AWS Support for an EC2 API throttling increase');
    expect(steps).toContain(
      'kubectl set env deployment/karpenter -n karpenter AMI_REFRESH_INTERVAL=10m SUBNET_REFRESH_INTERVAL=10m',
    );
  });

  it('the SDK retry quota in a launch log line, with the throttled API', () => {
    const line = logLine({
      level: 'ERROR',
      time: minutesAfter(T0, 10),
      message: 'Reconciler error',
      NodeClaim: { name: 'default-abcde' },
      error:
        'launching nodeclaim, creating instance, getting launch template configs, operation error EC2: DescribeLaunchTemplates, failed to get rate limit token, retry quota exceeded, 0 available, 5 requested',
    });

    const [f] = detect(
      snapshotOf({ logs: [line], nodeClasses: [ec2NodeClass({ name: 'default' }), ec2NodeClass({ name: 'gpu' })] }),
    );

    expect(f?.cause?.code).toBe('API_THROTTLED');
    expect(f?.cause?.detail).toContain("EC2 throttled Karpenter's DescribeLaunchTemplates calls");
    expect(f?.cause?.detail).toContain('"failed to get rate limit token" is the SDK\'s retry quota running out');
    expect(f?.remediation?.steps.join('\n')).toContain('(2 here)');
  });
});
