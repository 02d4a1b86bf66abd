import { describe, expect, it } from 'vitest';
import { karpenterIamDenied } from '../../../../src/detectors/karpenter-iam-denied/detector.ts';
import { DEFAULT_DETECTION } from '../../../../src/domain/settings.ts';
import type { ClusterSnapshot } from '../../../../src/domain/snapshot.ts';
import { SnapshotIndex } from '../../../../src/domain/snapshot-index.ts';
import { parseLogLine } from '../../../../src/snapshot/controller-logs.ts';
import { cluster, logLine, snapshotOf } from '../../../factories/aws.ts';
import { T0, karpenterDeployment, karpenterPod, minutesAfter } from '../../../factories/kube.ts';
import { priceBookOf } from '../../../../src/domain/price-book.ts';

function detect(snapshot: ClusterSnapshot) {
  return karpenterIamDenied.detect({
    snapshot,
    index: new SnapshotIndex(snapshot),
    prices: priceBookOf(snapshot),
    settings: DEFAULT_DETECTION,
    now: new Date(minutesAfter(T0, 60)),
  });
}

/** Seed 004 #4, as one JSON line. */
const SEED_LINE =
  '{"level":"ERROR","controller":"instanceprofile.garbagecollection","aws-error-code":"AccessDenied","error":"listing instance profiles, User is not authorized to perform: iam:ListInstanceProfiles on resource: arn:aws:iam::069057294951:instance-profile/"}';

function seedAt(minutes: number, origin: string) {
  return logLine({ ...(JSON.parse(SEED_LINE) as Record<string, unknown>), time: minutesAfter(T0, minutes) }, origin);
}

describe('KARPENTER_IAM_DENIED: seed 004 #4', () => {
  const [f, ...rest] = detect(snapshotOf({ logs: [parseLogLine(SEED_LINE, 'karpenter.log:12')] }));

  it('reports one critical MISSING_PERMISSION finding on the controller Deployment', () => {
    expect(rest).toEqual([]);
    expect(f?.severity).toBe('critical');
    expect(f?.resource).toEqual({ kind: 'Deployment', namespace: 'karpenter', name: 'karpenter' });
    expect(f?.cause?.code).toBe('MISSING_PERMISSION');
    expect(f?.title).toBe("Karpenter's controller is denied iam:ListInstanceProfiles");
  });

  it('names the action, the resource and the controller sub-component', () => {
    expect(f?.cause?.detail).toContain('AWS denied iam:ListInstanceProfiles on arn:aws:iam::069057294951:instance-profile/');
    expect(f?.cause?.detail).toContain('in controller instanceprofile.garbagecollection (AccessDenied)');
    expect(f?.evidence).toEqual([
      '1 log line denied iam:ListInstanceProfiles in controller instanceprofile.garbagecollection',
      'sample karpenter.log:12: listing instance profiles, User is not authorized to perform: iam:ListInstanceProfiles on resource: arn:aws:iam::069057294951:instance-profile/',
    ]);
  });

  it('the message names no policy: the checks that decide come first, then the fix for each outcome', () => {
    const steps = f?.remediation?.steps ?? [];
    const at = (text: string) => steps.findIndex((s) => s.includes(text));

    expect(f?.cause?.detail).toContain('an SCP, a permissions boundary or a Deny statement give the same message');
    expect(steps[0]).toBe(
      '# AWS\'s own error message for the iam:ListInstanceProfiles events\naws cloudtrail lookup-events --lookup-attributes AttributeKey=EventName,AttributeValue=ListInstanceProfiles --max-results 20 --query \'Events[].CloudTrailEvent\' --output text | grep -o \'"errorMessage":"[^"]*"\'',
    );
    expect(steps).toContain(
      "# decision, allowed by the SCPs, allowed by the permissions boundary\naws iam simulate-principal-policy --policy-source-arn <controller-role-arn> --action-names iam:ListInstanceProfiles --query 'EvaluationResults[].[EvalActionName,EvalDecision,OrganizationsDecisionDetail.AllowedByOrganizations,PermissionsBoundaryDecisionDetail.AllowedByPermissionsBoundary]' --output text",
    );
    expect(steps).toContain(
      'aws iam put-role-policy --role-name <controller-role-name> --policy-name karpenter-sentinel-iam-ListInstanceProfiles --policy-document \'{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["iam:ListInstanceProfiles"],"Resource":"arn:aws:iam::069057294951:instance-profile/*"}]}\'',
    );
    expect(at('simulate-principal-policy')).toBeLessThan(at('put-role-policy'));
    expect(at('If AllowedByOrganizations is False')).toBeGreaterThan(at('put-role-policy'));
    expect(steps.join('\n')).toContain(
      "If AllowedByPermissionsBoundary is False, allow iam:ListInstanceProfiles in the role's permissions boundary",
    );
  });
});

describe('KARPENTER_IAM_DENIED: grouping and context', () => {
  it('one finding per action with count and first/last time', () => {
    const queue = logLine(
      {
        level: 'ERROR',
        time: minutesAfter(T0, 4),
        controller: 'interruption',
        'aws-error-code': 'AccessDenied',
        error:
          'receiving sqs messages, api error AccessDenied: User: arn:aws:sts::069057294951:assumed-role/KarpenterController-demo/123 is not authorized to perform: sqs:ReceiveMessage on resource: arn:aws:sqs:us-east-1:069057294951:demo',
      },
      'karpenter.log:9',
    );
    const s = snapshotOf({
      logs: [seedAt(5, 'karpenter.log:1'), queue, seedAt(1, 'karpenter.log:2'), seedAt(9, 'karpenter.log:3')],
    });

    const findings = detect(s);

    expect(findings.map((x) => x.title)).toEqual([
      "Karpenter's controller is denied iam:ListInstanceProfiles",
      "Karpenter's controller is denied sqs:ReceiveMessage",
    ]);
    expect(findings[0]?.evidence.slice(0, 2)).toEqual([
      '3 log lines denied iam:ListInstanceProfiles in controller instanceprofile.garbagecollection',
      `first at ${minutesAfter(T0, 1)}, last at ${minutesAfter(T0, 9)}`,
    ]);
    expect(findings[0]?.since).toBe(minutesAfter(T0, 1));
    expect(findings[0]?.id).not.toBe(findings[1]?.id);
    expect(findings[1]?.remediation?.steps.join('\n')).toContain('aws iam put-role-policy --role-name KarpenterController-demo');
  });

  it('uses the captured controller Deployment, service account and IRSA role', () => {
    const pod = karpenterPod({ name: 'karpenter-5697769d6c-abcde', namespace: 'kube-system', nodeName: 'n1' });
    pod.spec = {
      ...pod.spec,
      serviceAccountName: 'karpenter-sa',
      containers: [
        { name: 'controller', env: [{ name: 'AWS_ROLE_ARN', value: 'arn:aws:iam::069057294951:role/KarpenterController-demo' }] },
      ],
    };
    const s = snapshotOf({
      logs: [parseLogLine(SEED_LINE, 'karpenter.log:12')],
      deployments: [karpenterDeployment({ namespace: 'kube-system' })],
      pods: [pod],
      cluster: cluster(),
    });

    const [f] = detect(s);

    expect(f?.resource).toEqual({ kind: 'Deployment', namespace: 'kube-system', name: 'karpenter' });
    expect(f?.remediation?.steps).toContain(
      "# controller role arn:aws:iam::069057294951:role/KarpenterController-demo; confirm it is the one its service account uses\nkubectl get sa -n kube-system karpenter-sa -o jsonpath='{.metadata.annotations.eks\\.amazonaws\\.com/role-arn}'",
    );
    expect(f?.remediation?.steps.join('\n')).toContain(
      '--policy-source-arn arn:aws:iam::069057294951:role/KarpenterController-demo',
    );
    expect(f?.remediation?.steps.join('\n')).toContain('--role-name KarpenterController-demo');
  });

  it('reads the EC2NodeClass validation line and its explicit deny (karpenter-provider-aws #8432)', () => {
    const line = logLine({
      level: 'ERROR',
      time: '2025-08-29T20:55:48.007Z',
      message: 'unauthorized to call ec2:CreateFleet',
      controller: 'nodeclass',
      'aws-error-code': 'UnauthorizedOperation',
      'aws-operation-name': 'CreateFleet',
      'aws-service-name': 'EC2',
      error:
        'operation error EC2: CreateFleet, https response error StatusCode: 403, api error UnauthorizedOperation: You are not authorized to perform this operation. User: arn:aws:sts::330700974597:assumed-role/scale-test-karpenter/1756500455459701167 is not authorized to perform: ec2:CreateFleet on resource: arn:aws:ec2:us-west-2:330700974597:fleet/* with an explicit deny in an identity-based policy. Encoded authorization failure message: abc',
    });

    const [f] = detect(snapshotOf({ logs: [line] }));

    expect(f?.title).toBe("Karpenter's controller is denied ec2:CreateFleet");
    expect(f?.since).toBe('2025-08-29T20:55:48Z');
    expect(f?.cause?.code).toBe('EXPLICIT_DENY');
    expect(f?.cause?.detail).toContain('The deny is explicit, in an identity-based policy');
    expect(f?.remediation?.steps.join('\n')).toContain('an Allow cannot override it');
    expect(f?.remediation?.steps.join('\n')).not.toContain('put-role-policy');
  });

  it('takes the action from aws-service-name and aws-operation-name when the text has none', () => {
    const line = logLine({
      level: 'ERROR',
      'aws-error-code': 'UnauthorizedOperation',
      'aws-service-name': 'EC2',
      'aws-operation-name': 'DescribeInstances',
      error: 'api error UnauthorizedOperation: You are not authorized to perform this operation.',
    });

    expect(detect(snapshotOf({ logs: [line] }))[0]?.title).toBe("Karpenter's controller is denied ec2:DescribeInstances");
  });

  it('without any action, says to decode the authorization message', () => {
    const line = logLine({
      level: 'ERROR',
      error:
        'describing subnets, UnauthorizedOperation: You are not authorized to perform this operation. Encoded authorization failure message: QmFzZTY0YmxvYg',
    });

    const [f] = detect(snapshotOf({ logs: [line] }));

    expect(f?.title).toBe("Karpenter's controller is denied an AWS call");
    expect(f?.cause?.code).toBe('DENIED_UNKNOWN_POLICY');
    expect(f?.remediation?.steps[0]).toBe(
      '# names the action, the resource and whether the deny is explicit\naws sts decode-authorization-message --encoded-message QmFzZTY0YmxvYg --query DecodedMessage --output text',
    );
    expect(f?.remediation?.steps.join('\n')).not.toContain('put-role-policy');
  });

  it('ignores launches, the Spot service-linked role and ordinary lines', () => {
    const s = snapshotOf({
      logs: [
        logLine({
          level: 'ERROR',
          message: 'Reconciler error',
          error:
            'launching nodeclaim, creating instance, with fleet error(s), UnauthorizedOperation: You are not authorized to perform this operation.',
        }),
        logLine({
          level: 'ERROR',
          error:
            'with fleet error(s), AuthFailure.ServiceLinkedRoleCreationNotPermitted: The provided credentials do not have permission to create the service-linked role for EC2 Spot Instances.',
        }),
        logLine({ level: 'INFO', message: 'discovered ssm parameter', controller: 'nodeclass' }),
      ],
    });

    expect(detect(s)).toEqual([]);
  });
});

describe('KARPENTER_IAM_DENIED: old and repeated denials', () => {
  const routine = (minutes: number) =>
    logLine({ level: 'INFO', time: minutesAfter(T0, minutes), message: 'discovered ssm parameter' }, `karpenter.log:${minutes}`);

  it('1,000 denials of one action are one finding that counts them', () => {
    const logs = Array.from({ length: 1000 }, (_, i) => seedAt(i / 20, `karpenter.log:${i + 1}`));
    const findings = detect(snapshotOf({ logs }));
    expect(findings).toHaveLength(1);
    expect(findings[0]?.evidence[0]).toBe(
      '1000 log lines denied iam:ListInstanceProfiles in controller instanceprofile.garbagecollection',
    );
  });

  it('denials that stopped more than an hour before the newest log line were fixed since: no finding', () => {
    // controller-runtime retries a failing reconcile at least every ~17 minutes; three quiet hours mean it works now.
    const fixed = snapshotOf({ logs: [seedAt(0, 'karpenter.log:1'), seedAt(3, 'karpenter.log:2'), routine(183)] });
    expect(detect(fixed)).toEqual([]);
  });

  it('still reported when the last denial is within the hour before the newest line', () => {
    const recent = snapshotOf({ logs: [seedAt(0, 'karpenter.log:1'), routine(60)] });
    expect(detect(recent)).toHaveLength(1);
  });

  it('denials without a time cannot be judged old', () => {
    const untimed = snapshotOf({ logs: [parseLogLine(SEED_LINE, 'karpenter.log:1'), routine(300)] });
    expect(detect(untimed)).toHaveLength(1);
  });
});

/**
 * Which policy refused the call. The context phrases are AWS's (IAM User Guide, "Troubleshooting
 * access denied error messages"; the boundary line with its policy ARN as EC2 prints it in public
 * reports), inside Karpenter's validation log line (karpenter-provider-aws #8432).
 */
describe('KARPENTER_IAM_DENIED: which policy denied', () => {
  const ROLE = 'arn:aws:sts::330700974597:assumed-role/scale-test-karpenter/1756500455459701167';
  const validation = (operation: string, context: string, origin = 'karpenter.log:1') =>
    logLine(
      {
        level: 'ERROR',
        time: T0,
        message: `unauthorized to call ec2:${operation}`,
        controller: 'nodeclass',
        'aws-error-code': 'UnauthorizedOperation',
        error: `operation error EC2: ${operation}, https response error StatusCode: 403, api error UnauthorizedOperation: You are not authorized to perform this operation. User: ${ROLE} is not authorized to perform: ec2:${operation} on resource: arn:aws:ec2:us-west-2:330700974597:instance/* ${context}. Encoded authorization failure message: AbC_123-xyz`,
      },
      origin,
    );
  const steps = (f: { remediation?: { steps: string[] } | null } | undefined) => f?.remediation?.steps.join('\n') ?? '';
  /** What must never be printed when a policy other than the role's own is named: adding an Allow. */
  const ADD_ALLOW = ['put-role-policy', '"Effect":"Allow"'];

  it('an SCP: no Allow on the role; the decoded message, the SCPs and the NodePool way out instead', () => {
    const [f] = detect(snapshotOf({ logs: [validation('RunInstances', 'with an explicit deny in a service control policy')] }));

    expect(f?.cause?.code).toBe('DENIED_BY_SCP');
    expect(f?.cause?.detail).toContain(
      'AWS says the deny is in a service control policy: an Allow on the role cannot override it.',
    );
    for (const s of ADD_ALLOW) expect(steps(f)).not.toContain(s);
    expect(f?.remediation?.steps[0]).toContain('aws sts decode-authorization-message --encoded-message AbC_123-xyz');
    expect(steps(f)).toContain(
      'aws organizations list-policies-for-target --target-id 330700974597 --filter SERVICE_CONTROL_POLICY',
    );
    expect(steps(f)).toContain("narrow the NodePools' requirements");
  });

  it('a permissions boundary named by ARN: shows it and changes it, never the role', () => {
    const [f] = detect(
      snapshotOf({
        logs: [
          validation(
            'CreateFleet',
            'with an explicit deny in a permissions boundary: arn:aws:iam::330700974597:policy/umak-lab-boundary',
          ),
        ],
      }),
    );

    expect(f?.cause?.code).toBe('DENIED_BY_PERMISSIONS_BOUNDARY');
    expect(f?.cause?.detail).toContain('(arn:aws:iam::330700974597:policy/umak-lab-boundary)');
    for (const s of ADD_ALLOW) expect(steps(f)).not.toContain(s);
    expect(steps(f)).toContain('aws iam get-role --role-name scale-test-karpenter --query Role.PermissionsBoundary');
    expect(steps(f)).toContain('aws iam get-policy-version --policy-arn arn:aws:iam::330700974597:policy/umak-lab-boundary');
  });

  it("a boundary that does not allow the action (implicit) is the boundary's too", () => {
    const [f] = detect(
      snapshotOf({ logs: [validation('CreateFleet', 'because no permissions boundary allows the ec2:CreateFleet action')] }),
    );

    expect(f?.cause?.code).toBe('DENIED_BY_PERMISSIONS_BOUNDARY');
    for (const s of ADD_ALLOW) expect(steps(f)).not.toContain(s);
  });

  it('a VPC endpoint policy: the endpoint policies, not the role', () => {
    const [f] = detect(
      snapshotOf({
        logs: [validation('RunInstances', 'with an explicit deny in a VPC endpoint policy')],
        cluster: cluster(),
      }),
    );

    expect(f?.cause?.code).toBe('DENIED_BY_OTHER_POLICY');
    for (const s of ADD_ALLOW) expect(steps(f)).not.toContain(s);
    expect(steps(f)).toContain('aws ec2 describe-vpc-endpoints --filters Name=service-name,Values=com.amazonaws.us-east-1.ec2');
  });

  it('"no identity-based policy allows" proves the missing grant: the statement to add, no detour', () => {
    const [f] = detect(
      snapshotOf({ logs: [validation('RunInstances', 'because no identity-based policy allows the ec2:RunInstances action')] }),
    );

    expect(f?.cause?.code).toBe('MISSING_PERMISSION');
    expect(f?.cause?.detail).toContain("AWS says no identity-based policy allows it: the controller role's policy lacks it.");
    expect(steps(f)).toContain('aws iam put-role-policy --role-name scale-test-karpenter');
    expect(steps(f)).not.toContain('simulate-principal-policy');
  });

  it('one line that names the SCP decides for the lines of the same action that do not', () => {
    const bare = logLine({
      level: 'ERROR',
      time: T0,
      error: `api error UnauthorizedOperation: User: ${ROLE} is not authorized to perform: ec2:RunInstances on resource: arn:aws:ec2:us-west-2:330700974597:instance/*`,
    });
    const findings = detect(
      snapshotOf({ logs: [bare, validation('RunInstances', 'with an explicit deny in a service control policy')] }),
    );

    expect(findings.map((x) => x.cause?.code)).toEqual(['DENIED_BY_SCP']);
    for (const s of ADD_ALLOW) expect(steps(findings[0])).not.toContain(s);
  });
});

/** karpenter-provider-aws #1666: the reporter's line, a trust policy keyed by the provider ARN. */
describe('KARPENTER_IAM_DENIED: IRSA trust policy', () => {
  const IRSA_LINE = parseLogLine(
    '2022-04-12T16:42:31.413Z\tERROR\tcontroller.controller.provisioning\tReconciler error\t{"commit": "2346ed5", "reconciler group": "karpenter.sh", "reconciler kind": "Provisioner", "name": "test-provisioner", "namespace": "", "error": "fetching instance types using ec2.DescribeInstanceTypes, WebIdentityErr: failed to retrieve credentials\\ncaused by: AccessDenied: Not authorized to perform sts:AssumeRoleWithWebIdentity\\n\\tstatus code: 403, request id: a88c1c3c-e52e-4a72-9baa"}',
    'karpenter.log:1',
  );

  it('names the action and the trust policy, and never adds a permission', () => {
    const [f] = detect(snapshotOf({ logs: [IRSA_LINE] }));
    const steps = f?.remediation?.steps.join('\n') ?? '';

    expect(f?.title).toBe("Karpenter's controller is denied sts:AssumeRoleWithWebIdentity");
    expect(f?.cause?.code).toBe('IRSA_TRUST_POLICY_MISMATCH');
    expect(steps).not.toContain('put-role-policy');
    expect(steps).not.toContain('simulate-principal-policy');
    expect(steps).toContain('aws eks describe-cluster --name demo --query cluster.identity.oidc.issuer --output text');
    expect(steps).toContain('aws iam get-role --role-name <controller-role-name> --query Role.AssumeRolePolicyDocument');
    expect(steps).toContain('= "system:serviceaccount:karpenter:karpenter"');
  });

  it('names the role and the service account the pods run with', () => {
    const pod = karpenterPod({ name: 'karpenter-5697769d6c-abcde', namespace: 'kube-system', nodeName: 'n1' });
    pod.spec = {
      ...pod.spec,
      serviceAccountName: 'karpenter-sa',
      containers: [
        { name: 'controller', env: [{ name: 'AWS_ROLE_ARN', value: 'arn:aws:iam::069057294951:role/KarpenterIRSA-demo' }] },
      ],
    };
    const [f] = detect(
      snapshotOf({ logs: [IRSA_LINE], pods: [pod], deployments: [karpenterDeployment({ namespace: 'kube-system' })] }),
    );
    const steps = f?.remediation?.steps.join('\n') ?? '';

    expect(steps).toContain('aws iam get-role --role-name KarpenterIRSA-demo --query Role.AssumeRolePolicyDocument');
    expect(steps).toContain('arn:aws:iam::069057294951:oidc-provider/');
    expect(steps).toContain('= "system:serviceaccount:kube-system:karpenter-sa"');
  });
});
