import { describe, expect, it } from 'vitest';
import { chunks, mapBounded } from '../../../src/adapters/aws/bounded-map.ts';
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

describe('mapBounded', () => {
  it('keeps the input order and runs at most `limit` at once', async () => {
    // Prepare
    let inFlight = 0;
    let most = 0;

    // Act
    const out = await mapBounded([5, 1, 4, 2, 3], 2, async (n) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((resolve) => setTimeout(resolve, n));
      inFlight--;
      return n * 10;
    });

    // Assess
    expect(out).toEqual([50, 10, 40, 20, 30]);
    expect(most).toBe(2);
  });

  it('rejects with the first failure and starts nothing after it', async () => {
    const started: number[] = [];

    const outcome = mapBounded([1, 2, 3, 4], 1, async (n) => {
      started.push(n);
      if (n === 2) throw new Error('boom');
      return n;
    });

    await expect(outcome).rejects.toThrow('boom');
    expect(started).toEqual([1, 2]);
  });

  it('chunks', () => {
    expect(chunks([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(chunks([], 50)).toEqual([]);
  });
});
