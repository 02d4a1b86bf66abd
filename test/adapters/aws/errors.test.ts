import { describe, expect, it } from 'vitest';
import { awsErrorName, isNotFound, sourceError } from '../../../src/adapters/aws/errors.ts';
import { SourceError } from '../../../src/ports/errors.ts';
import { ec2Error } from './sdk-fixtures.ts';

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

  it('passes a SourceError through unchanged', () => {
    const original = new SourceError('DescribeInstances failed: unexpected response', { code: 'UnexpectedResponse' });

    expect(sourceError('DescribeInstances', original)).toBe(original);
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
