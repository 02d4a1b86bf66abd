import { describe, expect, it } from 'vitest';
import { awsCallOutcome, awsErrorName, awsErrorText, isNotFound, sourceError } from '../../../src/adapters/aws/errors.ts';
import { SourceError } from '../../../src/ports/errors.ts';
import { InvocationTimeoutError } from '../../../src/support/abort.ts';
import { ec2Error } from './sdk-fixtures.ts';

/** What EC2 appends to a denial: base64url of the whole authorization context, kilobytes long. */
const ENCODED_BLOB = `9qAb_Zx-${'Qm9keSBvZiB0aGUgZGVuaWFs'.repeat(80)}Lk-_w`;

describe('sourceError', () => {
  it('names missing credentials by the provider error the SDK throws', () => {
    // Prepare
    const missing = new Error('Could not load credentials from any providers');
    missing.name = 'CredentialsProviderError';

    // Act
    const error = sourceError('DescribeCluster', missing);

    // Assess
    expect(error).toMatchObject({
      code: 'CredentialsProviderError',
      summary: 'DescribeCluster failed: CredentialsProviderError: Could not load credentials from any providers',
    });
    expect(error.cause).toBe(missing);
  });

  it("uses a network error's code (ECONNREFUSED, ETIMEDOUT) when its name says nothing", () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:443'), { code: 'ECONNREFUSED' });

    expect(sourceError('ListClusters', refused).code).toBe('ECONNREFUSED');
  });

  it('keeps one line of bounded length whatever the message', () => {
    const error = sourceError(
      'DescribeInstances',
      ec2Error('UnauthorizedOperation', `denied.\nEncoded authorization failure message: ${'x'.repeat(2000)}`),
    );

    expect(error.summary).not.toContain('\n');
    expect(error.summary.length).toBeLessThanOrEqual(300);
  });

  it('replaces the encoded authorization message with how to decode it, so the words before it stay in the line', () => {
    // Prepare
    const because =
      'User: arn:aws:sts::069057294951:assumed-role/karpenter-sentinel-prod-cleanup/fn is not authorized to perform: ec2:TerminateInstances ' +
      'because no identity-based policy allows the ec2:TerminateInstances action.';
    const denied = ec2Error('UnauthorizedOperation', `${because} Encoded authorization failure message: ${ENCODED_BLOB}`);

    // Act
    const summary = sourceError('TerminateInstances', denied).summary;

    // Assess: too long for one line with the note, so the denial is cut and the note kept whole.
    expect(summary.length).toBe(300);
    expect(summary).toMatch(
      /^TerminateInstances failed: UnauthorizedOperation: User: arn:aws:sts::069057294951:assumed-role\/karpenter-sentinel-prod-cleanup\/fn is not authorized to perform: ec2:TerminateInstances because .*… \(encoded authorization message omitted: aws sts decode-authorization-message\)$/,
    );
    expect(summary).not.toContain(ENCODED_BLOB.slice(0, 20));
  });

  it('shows a denial that fits whole, the encoded message named but not shown', () => {
    const denied = ec2Error(
      'UnauthorizedOperation',
      `You are not authorized to perform this operation.\nEncoded authorization failure message: ${ENCODED_BLOB}`,
    );

    expect(sourceError('DescribeSubnets', denied).summary).toBe(
      'DescribeSubnets failed: UnauthorizedOperation: You are not authorized to perform this operation. (encoded authorization message omitted: aws sts decode-authorization-message)',
    );
  });

  it('passes a SourceError through unchanged', () => {
    const original = new SourceError('DescribeInstances failed: unexpected response', { code: 'UnexpectedResponse' });

    expect(sourceError('DescribeInstances', original)).toBe(original);
  });
});

describe('awsErrorText', () => {
  it('shows a short denial whole, with the encoded message named but not shown (a per-instance termination error)', () => {
    // Prepare
    const denied = ec2Error(
      'UnauthorizedOperation',
      `You are not authorized to perform this operation. Encoded authorization failure message: ${ENCODED_BLOB}`,
    );

    // Act
    const text = awsErrorText(denied);

    // Assess
    expect(text).toBe(
      'UnauthorizedOperation: You are not authorized to perform this operation. (encoded authorization message omitted: aws sts decode-authorization-message)',
    );
  });

  it('leaves a message without an encoded authorization message as it is', () => {
    expect(awsErrorText(ec2Error('RequestLimitExceeded', 'Request limit exceeded.'))).toBe(
      'RequestLimitExceeded: Request limit exceeded.',
    );
  });
});

describe('isNotFound', () => {
  it.each([
    ['ResourceNotFoundException', true],
    ['NoSuchEntityException', true],
    ['NoSuchEntity', true],
    ['InvalidLaunchTemplateId.NotFound', true],
    ['InvalidLaunchTemplateName.NotFoundException', true],
    ['InvalidLaunchTemplateId.Malformed', false],
    ['AccessDeniedException', false],
  ])('%s → %s', (code, expected) => {
    expect(isNotFound(ec2Error(code, 'x'))).toBe(expected);
    expect(awsErrorName(ec2Error(code, 'x'))).toBe(code);
  });
});

describe('awsCallOutcome: how a failed AWS call is counted (ApiCalls, Outcome)', () => {
  const named = (name: string, fields: Record<string, unknown> = {}) =>
    Object.assign(new Error(`${name} happened`), { name, ...fields });

  it.each([
    ['EC2 RequestLimitExceeded', ec2Error('RequestLimitExceeded', 'Request limit exceeded.'), 'throttled'],
    ['EKS ThrottlingException', named('ThrottlingException'), 'throttled'],
    ['any code on an HTTP 429', named('SomethingElse', { $metadata: { httpStatusCode: 429 } }), 'throttled'],
    [
      'EC2 UnauthorizedOperation',
      ec2Error('UnauthorizedOperation', 'You are not authorized to perform this operation.'),
      'access-denied',
    ],
    ['EKS AccessDeniedException', named('AccessDeniedException'), 'access-denied'],
    ['IAM AccessDenied', named('AccessDenied'), 'access-denied'],
    ['EC2 InvalidLaunchTemplateId.NotFound', ec2Error('InvalidLaunchTemplateId.NotFound', 'not found'), 'not-found'],
    ['IAM NoSuchEntity', named('NoSuchEntity'), 'not-found'],
    ["the SDK's request timeout", named('TimeoutError'), 'timeout'],
    ['connection refused', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:443'), { code: 'ECONNREFUSED' }), 'network'],
    ['an unresolved endpoint', Object.assign(new Error('getaddrinfo ENOTFOUND ec2.x'), { code: 'ENOTFOUND' }), 'network'],
    ['an invalid parameter', ec2Error('InvalidParameterValue', 'bad filter'), 'other'],
    ['missing credentials', named('CredentialsProviderError'), 'other'],
  ])('%s → %s, bare or as the SourceError the adapter throws', (_, error, outcome) => {
    expect(awsCallOutcome(error)).toBe(outcome);
    expect(awsCallOutcome(sourceError('DescribeInstances', error))).toBe(outcome);
  });

  it("counts the invocation's deadline as a timeout, whichever way the abort surfaced", () => {
    expect(awsCallOutcome(new InvocationTimeoutError('DescribeInstances stopped: the invocation’s deadline'))).toBe('timeout');
    expect(awsCallOutcome(named('AbortError'))).toBe('timeout');
  });

  it('counts what is not an Error at all as other', () => {
    expect(awsCallOutcome('a string')).toBe('other');
  });
});
