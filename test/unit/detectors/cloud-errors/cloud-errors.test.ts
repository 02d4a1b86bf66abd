import { describe, expect, it } from 'vitest';
import {
  classifyCloudError,
  deniedCall,
  deniedCallInText,
  isCloudLaunchFailure,
  isDeniedLogLine,
  isLaunchFailureCondition,
  isLaunchLogLine,
  trimError,
} from '../../../../src/detectors/cloud-errors/cloud-errors.ts';
import { logLine } from '../../../factories/aws.ts';

const SEED_SPOT_SLR =
  'launching nodeclaim, creating instance, with fleet error(s), AuthFailure.ServiceLinkedRoleCreationNotPermitted: The provided credentials do not have permission to create the service-linked role for EC2 Spot Instances.';
const SEED_LIST_PROFILES =
  'listing instance profiles, User is not authorized to perform: iam:ListInstanceProfiles on resource: arn:aws:iam::069057294951:instance-profile/';

describe('classifyCloudError', () => {
  it.each([
    [SEED_SPOT_SLR, 'SPOT_SERVICE_LINKED_ROLE_MISSING', 'AuthFailure.ServiceLinkedRoleCreationNotPermitted'],
    [
      'SpotSLRCreationFailed: User does not hae sufficient permission to create the Spot ServiceLinkedRole',
      'SPOT_SERVICE_LINKED_ROLE_MISSING',
      'SpotSLRCreationFailed',
    ],
    [
      'creating instance, insufficient capacity, with fleet error(s), InsufficientInstanceCapacity: We currently do not have sufficient t3a.xlarge capacity',
      'INSUFFICIENT_CAPACITY',
      'InsufficientInstanceCapacity',
    ],
    [
      'all requested instance types were unavailable during launch',
      'INSUFFICIENT_CAPACITY',
      'all requested instance types were unavailable',
    ],
    [
      'api error UnauthorizedOperation: You are not authorized to perform this operation. User: arn:aws:sts::1:assumed-role/r/s is not authorized to perform: ec2:RunInstances',
      'UNAUTHORIZED',
      'UnauthorizedOperation',
    ],
    [
      "api error InvalidAMIID.NotFound: The image id '[ami-0123456789abcdef0]' does not exist",
      'AMI_NOT_FOUND',
      'InvalidAMIID.NotFound',
    ],
    ['InvalidAMIID.Malformed: Invalid id: "ami-x"', 'AMI_NOT_FOUND', 'InvalidAMIID.Malformed'],
    [
      'InvalidParameter: Security group sg-0a1b2c3d4e5f60001 and subnet subnet-0a1b2c3d4e5f60002 belong to different networks.',
      'SECURITY_GROUP_SUBNET_VPC_MISMATCH',
      'belong to different networks',
    ],
    [
      "InvalidGroup.NotFound: The security group 'sg-0a1b2c3d' does not exist in VPC 'vpc-0123'",
      'SECURITY_GROUP_SUBNET_VPC_MISMATCH',
      'InvalidGroup.NotFound',
    ],
    [
      'VcpuLimitExceeded: You have requested more vCPU capacity than your current vCPU limit of 16 allows',
      'QUOTA_EXCEEDED',
      'VcpuLimitExceeded',
    ],
    ['VCPULimitExceeded: An instance was requested that would exceed your VCPU quota', 'QUOTA_EXCEEDED', 'VCPULimitExceeded'],
    ['MaxSpotInstanceCountExceeded: Max spot instance count exceeded', 'QUOTA_EXCEEDED', 'MaxSpotInstanceCountExceeded'],
    ['InstanceLimitExceeded: Your quota allows for 0 more running instance(s)', 'QUOTA_EXCEEDED', 'InstanceLimitExceeded'],
  ])('%s → %s', (text, cause, code) => {
    expect(classifyCloudError(text)).toEqual({ cause, code });
  });

  it('reads the spot role failure even when Karpenter wraps it as insufficient capacity', () => {
    const text = `creating instance, insufficient capacity, with fleet error(s), ${SEED_SPOT_SLR.split('error(s), ')[1]}`;

    expect(classifyCloudError(text)?.cause).toBe('SPOT_SERVICE_LINKED_ROLE_MISSING');
  });

  it('prefers the quota over the insufficient-capacity wrapper', () => {
    expect(classifyCloudError('insufficient capacity, with fleet error(s), VcpuLimitExceeded: limit of 16')?.cause).toBe(
      'QUOTA_EXCEEDED',
    );
  });

  describe('subnet exhaustion is never insufficient capacity (v1.0–v1.14 wordings)', () => {
    it.each([
      [
        'v1.0–v1.14 InsufficientCapacityError event',
        "NodeClaim default-x7k2p event: creating instance, insufficient capacity, with fleet error(s), InsufficientFreeAddressesInSubnet: There are not enough free addresses in subnet 'subnet-0c4e1f7a9b2d38e51' to satisfy the requested number of instances.",
        'InsufficientFreeAddressesInSubnet',
      ],
      [
        'v1.2+ Launched reason and message',
        'InsufficientFreeAddressesInSubnet: There are not enough free IP addresses to launch an instance in this subnet',
        'InsufficientFreeAddressesInSubnet',
      ],
      [
        'the v1.2+ message alone',
        'There are not enough free IP addresses to launch an instance in this subnet',
        'InsufficientFreeAddressesInSubnet',
      ],
      [
        'mixed with InsufficientInstanceCapacity in one fleet error: the subnet wins',
        "creating instance, insufficient capacity, with fleet error(s), InsufficientInstanceCapacity: We currently do not have sufficient m5.large capacity in the Availability Zone you requested (us-east-1b).; InsufficientFreeAddressesInSubnet: There are not enough free addresses in subnet 'subnet-0c4e1f7a9b2d38e51' to satisfy the requested number of instances.",
        'InsufficientFreeAddressesInSubnet',
      ],
    ])('%s', (_name, text, code) => {
      expect(classifyCloudError(text)).toEqual({ cause: 'SUBNET_IP_EXHAUSTED', code });
    });

    it('a quota error in the same fleet error wins: it fails every subnet alike', () => {
      const text =
        "with fleet error(s), VcpuLimitExceeded: You have requested more vCPU capacity than your current vCPU limit of 32 allows; InsufficientFreeAddressesInSubnet: There are not enough free addresses in subnet 'subnet-0c4e1f7a9b2d38e51'";

      expect(classifyCloudError(text)?.cause).toBe('QUOTA_EXCEEDED');
    });
  });

  it.each([
    [
      'v1.0–v1.1 log line',
      'launching nodeclaim, creating instance, creating fleet operation error EC2: CreateFleet, https response error StatusCode: 503, RequestID: 5d2c8a71-0c9e-4f3b-9a7e-2b1f6c0d4e88, api error RequestLimitExceeded: Request limit exceeded.',
      'RequestLimitExceeded',
    ],
    [
      'v1.2+ Launched reason and message',
      'RequestLimitExceeded: Error creating fleet request: Request limit exceeded',
      'RequestLimitExceeded',
    ],
    ['the v1.2+ message alone', 'Error getting launch template configs: Request limit exceeded', 'Request limit exceeded'],
    [
      'the SDK retry quota',
      'launching nodeclaim, creating instance, getting launch template configs, operation error EC2: DescribeLaunchTemplates, failed to get rate limit token, retry quota exceeded, 0 available, 5 requested',
      'failed to get rate limit token',
    ],
  ])('API_THROTTLED: %s', (_name, text, code) => {
    expect(classifyCloudError(text)).toEqual({ cause: 'API_THROTTLED', code });
  });

  it('names nothing for text without a cloud error', () => {
    expect(classifyCloudError('resolving ec2nodeclass, object is awaiting reconciliation')).toBeUndefined();
    expect(classifyCloudError('Instance launch failed')).toBeUndefined();
  });
});

describe('isLaunchFailureCondition', () => {
  it('counts Karpenter launch reasons, and cloud errors under any reason', () => {
    expect(isLaunchFailureCondition({ reason: 'LaunchFailed', message: 'Instance launch failed' })).toBe(true);
    expect(isLaunchFailureCondition({ reason: 'SpotSLRCreationFailed', message: 'x' })).toBe(true);
    expect(isLaunchFailureCondition({ reason: 'Whatever', message: 'VcpuLimitExceeded: limit' })).toBe(true);
  });

  it('does not count registration failures or conditions without a reason', () => {
    expect(isLaunchFailureCondition({ reason: 'RegistrationFailed', message: 'Failed to register node' })).toBe(false);
    expect(isLaunchFailureCondition({})).toBe(false);
    expect(isLaunchFailureCondition({ reason: 'NodeClassReadinessUnknown', message: 'NodeClass is in Ready=Unknown' })).toBe(
      false,
    );
  });
});

describe('log line predicates', () => {
  it('recognises the seed launch error as a cloud launch failure and the seed IAM error as a denied non-launch call', () => {
    const launch = logLine({ level: 'ERROR', message: 'Reconciler error', error: SEED_SPOT_SLR });
    const denied = logLine({
      level: 'ERROR',
      controller: 'instanceprofile.garbagecollection',
      'aws-error-code': 'AccessDenied',
      error: SEED_LIST_PROFILES,
    });

    expect(isLaunchLogLine(launch)).toBe(true);
    expect(isCloudLaunchFailure(launch)).toBe(true);
    expect(isDeniedLogLine(launch)).toBe(false);
    expect(isLaunchLogLine(denied)).toBe(false);
    expect(isDeniedLogLine(denied)).toBe(true);
  });

  it('does not take an instance profile error for a launch', () => {
    const line = logLine({
      error: 'creating instance profile, AccessDenied: User: x is not authorized to perform: iam:CreateInstanceProfile',
    });

    expect(isLaunchLogLine(line)).toBe(false);
    expect(isDeniedLogLine(line)).toBe(true);
  });

  it('does not count a launch that never reached the cloud', () => {
    const line = logLine({
      message: 'Reconciler error',
      error: 'launching nodeclaim, resolving ec2nodeclass, object is awaiting reconciliation',
    });

    expect(isCloudLaunchFailure(line)).toBe(false);
  });
});

describe('deniedCall', () => {
  it('takes only ARN characters of a resource and only a word as an operation, so a planted message stays out of policies', () => {
    const planted = deniedCall(
      logLine({
        'aws-service-name': 'IAM',
        'aws-operation-name': 'List$(touch PWNED)',
        error:
          'User: arn:aws:sts::069057294951:assumed-role/KarpenterController/x is not authorized to perform: iam:GetRole on resource: arn:aws:iam::069057294951:role/x"$(touch PWNED)',
      }),
    );
    const fromFields = deniedCall(
      logLine({ 'aws-service-name': 'IAM', 'aws-operation-name': 'List$(touch PWNED)', error: 'AccessDenied' }),
    );

    expect(planted.resource).toBe('arn:aws:iam::069057294951:role/x');
    expect(fromFields.action).toBeUndefined();
  });

  it('reads action and resource from the seed line', () => {
    const call = deniedCall(logLine({ 'aws-error-code': 'AccessDenied', error: SEED_LIST_PROFILES }));

    expect(call.action).toBe('iam:ListInstanceProfiles');
    expect(call.resource).toBe('arn:aws:iam::069057294951:instance-profile/');
  });

  it('reads principal, explicit deny and encoded message from an SDK v2 error', () => {
    const call = deniedCall(
      logLine({
        error:
          'operation error EC2: CreateFleet, https response error StatusCode: 403, api error UnauthorizedOperation: You are not authorized to perform this operation. User: arn:aws:sts::330700974597:assumed-role/scale-test-karpenter/1756500455459701167 is not authorized to perform: ec2:CreateFleet on resource: arn:aws:ec2:us-west-2:330700974597:fleet/* with an explicit deny in a service control policy. Encoded authorization failure message: AbC_123-xyz',
      }),
    );

    expect(call).toEqual({
      action: 'ec2:CreateFleet',
      resource: 'arn:aws:ec2:us-west-2:330700974597:fleet/*',
      principalRole: 'scale-test-karpenter',
      principalArn: 'arn:aws:iam::330700974597:role/scale-test-karpenter',
      explicitDenyIn: 'a service control policy',
      notAllowedBy: undefined,
      denyingPolicyArn: undefined,
      encodedMessage: 'AbC_123-xyz',
      webIdentity: false,
    });
  });

  // AWS's wordings from the IAM User Guide ("Troubleshooting access denied error messages") and
  // real reports; Karpenter's from pkg/errors ToReasonMessage.
  it.each([
    [
      'User: arn:aws:iam::548387266019:user/acsad-g05 is not authorized to perform: ec2:RunInstances on resource: arn:aws:ec2:ap-southeast-1:548387266019:instance/* with an explicit deny in a permissions boundary: arn:aws:iam::548387266019:policy/umak-lab-boundary. Encoded authorization failure message: owhWHgYS',
      { explicitDenyIn: 'a permissions boundary', denyingPolicyArn: 'arn:aws:iam::548387266019:policy/umak-lab-boundary' },
    ],
    [
      'User: arn:aws:iam::123456789012:user/JohnDoe is not authorized to perform: codedeploy:ListDeployments on resource: arn:aws:codedeploy:us-east-1:123456789012:deploymentgroup:* because no permissions boundary allows the codedeploy:ListDeployments action',
      { explicitDenyIn: undefined, notAllowedBy: 'permissions boundary' },
    ],
    [
      'User: arn:aws:iam::123456789012:user/JohnDoe is not authorized to perform: codecommit:ListRepositories because no identity-based policy allows the codecommit:ListRepositories action',
      { explicitDenyIn: undefined, notAllowedBy: 'identity-based policy' },
    ],
    [
      'User: arn:aws:sts::111122223333:assumed-role/role-name/role-session-name is not authorized to perform: SNS:Publish on resource: arn:aws:sns:us-east-1:444455556666:role-name-2 with an explicit deny in a VPC endpoint policy transitively through a service control policy',
      { explicitDenyIn: 'a service control policy' },
    ],
    [
      "Controller isn't authorized to call ec2:RunInstances: User is not authorized to perform this operation due to a service control policy",
      { action: 'ec2:RunInstances', explicitDenyIn: 'a service control policy' },
    ],
    [
      "Controller isn't authorized to call ec2:CreateFleet: User is not authorized to perform this operation due to a permission boundary",
      { action: 'ec2:CreateFleet', explicitDenyIn: 'a permissions boundary' },
    ],
    // Karpenter's fallback, said of every other denial: no evidence of which policy.
    [
      "Controller isn't authorized to call ec2:RunInstances: User is not authorized to perform this operation because no identity-based policy allows it",
      { action: 'ec2:RunInstances', explicitDenyIn: undefined, notAllowedBy: undefined },
    ],
    [
      'WebIdentityErr: failed to retrieve credentials\ncaused by: AccessDenied: Not authorized to perform sts:AssumeRoleWithWebIdentity\n\tstatus code: 403',
      { action: 'sts:AssumeRoleWithWebIdentity', webIdentity: true },
    ],
  ])('reads which policy denied: %s', (text, expected) => {
    expect(deniedCallInText(text)).toMatchObject(expected);
  });

  it('falls back to the structured aws-service-name and aws-operation-name fields', () => {
    const call = deniedCall(
      logLine({
        'aws-error-code': 'UnauthorizedOperation',
        'aws-service-name': 'EC2',
        'aws-operation-name': 'DescribeInstances',
        error: 'You are not authorized to perform this operation.',
      }),
    );

    expect(call.action).toBe('ec2:DescribeInstances');
  });
});

describe('trimError', () => {
  it('collapses whitespace, drops encoded blobs and caps the length', () => {
    const text = `a\n   b Encoded authorization failure message: ${'x'.repeat(400)}`;

    expect(trimError(text)).toBe('a b Encoded authorization failure message: …');
    expect(trimError('y'.repeat(300), 10)).toBe(`${'y'.repeat(9)}…`);
  });
});
