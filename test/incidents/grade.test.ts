import { describe, expect, it } from 'vitest';
import type { CauseCode, FindingCode, Severity } from '../../src/domain/codes.ts';
import type { Finding } from '../../src/domain/finding.ts';
import { gradeAnswer, gradeRank, type IncidentExpectation } from './grade.ts';

/** An incident like vpc-endpoint-sg-secondary-cidr: the endpoint exists, so creating one is contradicted. */
const expected: IncidentExpectation = {
  source: 'https://github.com/aws/karpenter-provider-aws/issues/3188',
  now: '2023-01-10T12:00:00Z',
  established: 'The STS endpoint security group drops the secondary CIDR.',
  kinds: ['filtered-endpoint'],
  expect: { finding: 'KARPENTER_CONTROLLER_UNHEALTHY', cause: 'VPC_ENDPOINT_BLOCKED', mentions: ['sts', 'security group'] },
  partly: [{ finding: 'KARPENTER_IAM_DENIED', cause: 'MISSING_PERMISSION' }],
  mustNotSay: ['create-vpc-endpoint'],
  grade: 'wrong',
};

/** A synthetic finding; `cause` may be one the corpus expects before it exists. */
function finding(
  code: FindingCode,
  cause: string,
  text: { detail?: string; steps?: string[]; severity?: Severity } = {},
): Finding {
  return {
    id: '0',
    code,
    severity: text.severity ?? 'critical',
    title: `Deployment karpenter/karpenter: ${code}`,
    resource: { kind: 'Deployment', namespace: 'karpenter', name: 'karpenter' },
    since: null,
    cause: { code: cause as CauseCode, detail: text.detail ?? '' },
    evidence: [],
    remediation: { action: 'MANUAL', status: 'manual', reason: '', steps: text.steps ?? [] },
  };
}

describe('gradeAnswer', () => {
  it('right: the expected finding and cause, naming every mention (any case)', () => {
    // Act
    const verdict = gradeAnswer(
      expected,
      [
        finding('KARPENTER_CONTROLLER_UNHEALTHY', 'VPC_ENDPOINT_BLOCKED', {
          detail: 'The STS endpoint: its Security Group drops 443',
        }),
      ],
      ['aws ec2 describe-security-groups --group-ids sg-1'],
    );

    // Assess
    expect(verdict.grade).toBe('right');
  });

  it('partly: the expected cause without a mention, the expected finding with another cause, or a partly area', () => {
    // Act
    const unnamed = gradeAnswer(
      expected,
      [finding('KARPENTER_CONTROLLER_UNHEALTHY', 'VPC_ENDPOINT_BLOCKED', { detail: 'sts' })],
      [],
    );
    const otherCause = gradeAnswer(expected, [finding('KARPENTER_CONTROLLER_UNHEALTHY', 'UNKNOWN')], []);
    const area = gradeAnswer(expected, [finding('KARPENTER_IAM_DENIED', 'MISSING_PERMISSION')], []);
    const outsideArea = gradeAnswer(expected, [finding('KARPENTER_IAM_DENIED', 'UNKNOWN')], []);

    // Assess
    expect(unnamed).toMatchObject({
      grade: 'partly',
      reason: 'KARPENTER_CONTROLLER_UNHEALTHY/VPC_ENDPOINT_BLOCKED without security group',
    });
    expect(otherCause.grade).toBe('partly');
    expect(area.grade).toBe('partly');
    expect(outsideArea.grade).toBe('wrong');
  });

  it('wrong: a contradicted step, even beside the right finding; or only findings about something else', () => {
    // Prepare
    const right = finding('KARPENTER_CONTROLLER_UNHEALTHY', 'VPC_ENDPOINT_BLOCKED', { detail: 'sts security group' });
    const step = 'aws ec2 create-vpc-endpoint --vpc-endpoint-type Interface --service-name com.amazonaws.us-east-2.sts';

    // Act
    const contradicted = gradeAnswer(expected, [right], ['No contradiction in the table', step]);
    const elsewhere = gradeAnswer(expected, [finding('SUBNET_IPS_LOW', 'FEW_FREE_ADDRESSES', { severity: 'warning' })], []);

    // Assess
    expect(contradicted).toEqual({
      grade: 'wrong',
      reason: 'prints "create-vpc-endpoint"',
      contradicted: ['create-vpc-endpoint'],
    });
    expect(elsewhere).toMatchObject({ grade: 'wrong', contradicted: [] });
  });

  it('missed: no findings, or only findings below warning about something else', () => {
    // Act
    const none = gradeAnswer(expected, [], ['No findings.']);
    const infoOnly = gradeAnswer(expected, [finding('SUBNET_IPS_LOW', 'FEW_FREE_ADDRESSES', { severity: 'info' })], []);

    // Assess
    expect(none).toEqual({ grade: 'missed', reason: 'no findings', contradicted: [] });
    expect(infoOnly.grade).toBe('missed');
  });

  it('ranks a contradicted answer below no answer', () => {
    expect((['right', 'partly', 'missed', 'wrong'] as const).map(gradeRank)).toEqual([3, 2, 1, 0]);
  });
});
