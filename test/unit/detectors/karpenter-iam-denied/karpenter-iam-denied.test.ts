import { describe, expect, it } from 'vitest';
import { karpenterIamDenied } from '../../../../src/detectors/karpenter-iam-denied/index.ts';
import { DEFAULT_DETECTION } from '../../../../src/domain/settings.ts';
import type { ClusterSnapshot } from '../../../../src/domain/snapshot.ts';
import { SnapshotIndex } from '../../../../src/domain/snapshot-index.ts';
import { parseLogLine } from '../../../../src/snapshot/controller-logs.ts';
import { cluster, logLine, snapshotOf } from '../../../factories/aws.ts';
import { T0, karpenterDeployment, karpenterPod, minutesAfter } from '../../../factories/kube.ts';

function detect(snapshot: ClusterSnapshot) {
  return karpenterIamDenied.detect({
    snapshot,
    index: new SnapshotIndex(snapshot),
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

  it('gives the policy statement and how to find the controller role', () => {
    expect(f?.remediation?.steps).toEqual([
      "# find the controller role (IRSA)\nkubectl get sa -n karpenter karpenter -o jsonpath='{.metadata.annotations.eks\\.amazonaws\\.com/role-arn}'",
      '# or (EKS Pod Identity)\naws eks list-pod-identity-associations --cluster-name demo --namespace karpenter --service-account karpenter',
      '# add this statement to the controller role\'s policy (or to the IaC that owns it)\n{"Effect":"Allow","Action":["iam:ListInstanceProfiles"],"Resource":"arn:aws:iam::069057294951:instance-profile/*"}',
      'aws iam put-role-policy --role-name <controller-role-name> --policy-name karpenter-sentinel-iam-ListInstanceProfiles --policy-document \'{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["iam:ListInstanceProfiles"],"Resource":"arn:aws:iam::069057294951:instance-profile/*"}]}\'',
    ]);
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
    expect(findings[1]?.remediation?.steps.at(-1)).toContain('aws iam put-role-policy --role-name KarpenterController-demo');
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
    expect(f?.remediation?.steps[0]).toBe(
      "# controller role arn:aws:iam::069057294951:role/KarpenterController-demo; confirm it is the one its service account uses\nkubectl get sa -n kube-system karpenter-sa -o jsonpath='{.metadata.annotations.eks\\.amazonaws\\.com/role-arn}'",
    );
    expect(f?.remediation?.steps.at(-1)).toContain('--role-name KarpenterController-demo');
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
    expect(f?.cause?.detail).toContain('The deny is explicit, in an identity-based policy');
    expect(f?.remediation?.steps.join('\n')).toContain('an Allow on the role cannot override it');
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
    expect(f?.remediation?.steps[0]).toBe(
      'aws sts decode-authorization-message --encoded-message QmFzZTY0YmxvYg --query DecodedMessage --output text',
    );
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
