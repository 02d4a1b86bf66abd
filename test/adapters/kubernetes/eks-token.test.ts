import { describe, expect, it, vi } from 'vitest';
import { EksTokenSource, presignEksToken, stsHost } from '../../../src/adapters/kubernetes/eks-token.ts';
import type { AwsCredentials } from '../../../src/adapters/kubernetes/eks-token.ts';

// Made once, offline, by the AWS CLI v1 (aws-cli/1.45.11 botocore/1.43.11), with no network:
//   AWS_ACCESS_KEY_ID=AKIDEXAMPLE AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY \
//   AWS_DEFAULT_REGION=us-east-1 aws eks get-token --cluster-name demo
// Decoded: https://sts.us-east-1.amazonaws.com/?Action=GetCallerIdentity&...&X-Amz-Date=20261121T060128Z&...
const CLI_TOKEN_US_EAST_1 =
  'k8s-aws-v1.aHR0cHM6Ly9zdHMudXMtZWFzdC0xLmFtYXpvbmF3cy5jb20vP0FjdGlvbj1HZXRDYWxsZXJJZGVudGl0eSZWZXJzaW9uPTIwMTEtMDYtMTUmWC1BbXotQWxnb3JpdGhtPUFXUzQtSE1BQy1TSEEyNTYmWC1BbXotQ3JlZGVudGlhbD1BS0lERVhBTVBMRSUyRjIwMjYxMTIxJTJGdXMtZWFzdC0xJTJGc3RzJTJGYXdzNF9yZXF1ZXN0JlgtQW16LURhdGU9MjAyNjExMjFUMDYwMTI4WiZYLUFtei1FeHBpcmVzPTYwJlgtQW16LVNpZ25lZEhlYWRlcnM9aG9zdCUzQngtazhzLWF3cy1pZCZYLUFtei1TaWduYXR1cmU9MGNjY2VmYjVhOTE3MzIxMDRkZTU3N2Y5OWQzMDUzYzAzYzMwYmM2ZmU0ODA0ODA2NzVkZjcyZjJhOGNmODUxMg';
// Same, with AWS_SESSION_TOKEN=FwoGZXIvYXdzEXAMPLE/session+token= AWS_DEFAULT_REGION=eu-west-1, cluster prod-eu,
// X-Amz-Date=20261121T060138Z.
const CLI_TOKEN_EU_WEST_1_SESSION =
  'k8s-aws-v1.aHR0cHM6Ly9zdHMuZXUtd2VzdC0xLmFtYXpvbmF3cy5jb20vP0FjdGlvbj1HZXRDYWxsZXJJZGVudGl0eSZWZXJzaW9uPTIwMTEtMDYtMTUmWC1BbXotQWxnb3JpdGhtPUFXUzQtSE1BQy1TSEEyNTYmWC1BbXotQ3JlZGVudGlhbD1BS0lERVhBTVBMRSUyRjIwMjYxMTIxJTJGZXUtd2VzdC0xJTJGc3RzJTJGYXdzNF9yZXF1ZXN0JlgtQW16LURhdGU9MjAyNjExMjFUMDYwMTM4WiZYLUFtei1FeHBpcmVzPTYwJlgtQW16LVNpZ25lZEhlYWRlcnM9aG9zdCUzQngtazhzLWF3cy1pZCZYLUFtei1TZWN1cml0eS1Ub2tlbj1Gd29HWlhJdllYZHpFWEFNUExFJTJGc2Vzc2lvbiUyQnRva2VuJTNEJlgtQW16LVNpZ25hdHVyZT1hN2IyOTFmMzBlZGFiOWNjN2JhZmU5YTZiMTBkOWI5YTBjMDQ5YjI4OWY4ZmM3ZTZhMGQ1NDEzZjNkNTczOTJj';

const CREDENTIALS: AwsCredentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };

function decode(token: string): URL {
  return new URL(Buffer.from(token.slice('k8s-aws-v1.'.length), 'base64url').toString('utf8'));
}

describe('presignEksToken', () => {
  it('matches aws eks get-token byte for byte (regional STS endpoint, as the CLI uses)', async () => {
    const token = await presignEksToken({
      clusterName: 'demo',
      region: 'us-east-1',
      credentials: CREDENTIALS,
      signingDate: new Date('2026-11-21T06:01:28Z'),
    });

    expect(token).toBe(CLI_TOKEN_US_EAST_1);
    expect(token).not.toMatch(/=/);
  });

  it('matches aws eks get-token with a session token', async () => {
    const token = await presignEksToken({
      clusterName: 'prod-eu',
      region: 'eu-west-1',
      credentials: { ...CREDENTIALS, sessionToken: 'FwoGZXIvYXdzEXAMPLE/session+token=' },
      signingDate: new Date('2026-11-21T06:01:38Z'),
    });

    expect(token).toBe(CLI_TOKEN_EU_WEST_1_SESSION);
  });

  it('signs for the global endpoint in us-east-1 when asked', async () => {
    const token = await presignEksToken({
      clusterName: 'demo',
      region: 'eu-west-1',
      stsEndpoint: 'global',
      credentials: CREDENTIALS,
      signingDate: new Date('2026-11-21T06:01:28Z'),
    });

    const url = decode(token);
    expect(url.host).toBe('sts.amazonaws.com');
    expect(url.searchParams.get('X-Amz-Credential')).toBe('AKIDEXAMPLE/20261121/us-east-1/sts/aws4_request');
    expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('host;x-k8s-aws-id');
    expect(url.searchParams.get('X-Amz-Expires')).toBe('60');
  });

  it('names the regional STS host per partition', () => {
    expect(stsHost('us-west-2', 'regional')).toBe('sts.us-west-2.amazonaws.com');
    expect(stsHost('cn-north-1', 'regional')).toBe('sts.cn-north-1.amazonaws.com.cn');
  });
});

describe('EksTokenSource', () => {
  function source(options: { now: () => Date; credentials?: () => Promise<AwsCredentials> }) {
    const credentials = vi.fn(options.credentials ?? (async () => CREDENTIALS));
    return {
      credentials,
      tokens: new EksTokenSource({ clusterName: 'demo', region: 'us-east-1', credentials, clock: { now: options.now } }),
    };
  }

  it('reuses a token younger than 10 minutes and signs a new one after', async () => {
    let now = new Date('2026-11-21T06:01:28Z');
    const { credentials, tokens } = source({ now: () => now });

    const first = await tokens.token();
    now = new Date('2026-11-21T06:11:27Z');
    const stillCached = await tokens.token();
    now = new Date('2026-11-21T06:11:28Z');
    const renewed = await tokens.token();

    expect(first).toBe(CLI_TOKEN_US_EAST_1);
    expect(stillCached).toBe(first);
    expect(renewed).not.toBe(first);
    expect(decode(renewed).searchParams.get('X-Amz-Date')).toBe('20261121T061128Z');
    expect(credentials).toHaveBeenCalledTimes(2);
  });

  it('signs again a minute before temporary credentials expire', async () => {
    let now = new Date('2026-11-21T06:00:00Z');
    const { credentials, tokens } = source({
      now: () => now,
      credentials: async () => ({ ...CREDENTIALS, sessionToken: 'tok', expiration: new Date('2026-11-21T06:05:00Z') }),
    });

    await tokens.token();
    now = new Date('2026-11-21T06:03:59Z');
    await tokens.token();
    now = new Date('2026-11-21T06:04:00Z');
    await tokens.token();

    expect(credentials).toHaveBeenCalledTimes(2);
  });

  it('shares one signing between concurrent callers', async () => {
    const { credentials, tokens } = source({ now: () => new Date('2026-11-21T06:01:28Z') });

    const all = await Promise.all([tokens.token(), tokens.token(), tokens.token()]);

    expect(new Set(all).size).toBe(1);
    expect(credentials).toHaveBeenCalledTimes(1);
  });
});
