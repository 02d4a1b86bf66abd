/** Which EKS cluster and region a kubeconfig context is for, from the shapes the EKS tools write. */
import { describe, expect, it } from 'vitest';
import { eksTargetOfContext, type KubeContextFacts } from '../../../src/domain/eks-context.ts';

const SERVER = 'https://0A1B2C3D4E5F.gr7.eu-west-1.eks.amazonaws.com';
const context = (facts: Partial<KubeContextFacts>): KubeContextFacts => ({
  name: 'ctx',
  clusterEntry: 'entry',
  server: 'https://10.0.0.1:6443',
  ...facts,
});
const getToken = (args: string[], env: Record<string, string> = {}) => ({ command: 'aws', args, env });

describe('eksTargetOfContext', () => {
  it('reads `aws eks update-kubeconfig`: the user runs aws eks get-token --cluster-name NAME --region R', () => {
    const facts = context({
      name: 'arn:aws:eks:eu-west-1:111122223333:cluster/prod',
      clusterEntry: 'arn:aws:eks:eu-west-1:111122223333:cluster/prod',
      server: SERVER,
      exec: getToken(['--region', 'eu-west-1', 'eks', 'get-token', '--cluster-name', 'prod', '--output', 'json'], {
        AWS_PROFILE: 'prod-admin',
      }),
    });

    expect(eksTargetOfContext(facts)).toEqual({
      cluster: 'prod',
      clusterFrom: "the user's aws eks get-token --cluster-name",
      region: 'eu-west-1',
      profile: 'prod-admin',
    });
  });

  it('takes the cluster the token is for over a renamed context (--alias)', () => {
    const facts = context({
      name: 'prod',
      exec: getToken(['eks', 'get-token', '--cluster-name=payments', '--region=us-east-2']),
    });

    expect(eksTargetOfContext(facts)).toMatchObject({ cluster: 'payments', region: 'us-east-2' });
  });

  it('reads ARN-style names, also of the China and GovCloud partitions', () => {
    expect(eksTargetOfContext(context({ clusterEntry: 'arn:aws-cn:eks:cn-north-1:111122223333:cluster/cn-prod' }))).toEqual({
      cluster: 'cn-prod',
      clusterFrom: 'its EKS cluster ARN',
      region: 'cn-north-1',
    });
    expect(eksTargetOfContext(context({ name: 'arn:aws-us-gov:eks:us-gov-west-1:111122223333:cluster/gov' }))).toMatchObject({
      cluster: 'gov',
      region: 'us-gov-west-1',
    });
  });

  it('reads eksctl names: NAME.REGION.eksctl.io, and the context USER@NAME.REGION.eksctl.io', () => {
    expect(eksTargetOfContext(context({ clusterEntry: 'dev-1.ap-southeast-2.eksctl.io' }))).toEqual({
      cluster: 'dev-1',
      clusterFrom: 'its eksctl name',
      region: 'ap-southeast-2',
    });
    expect(eksTargetOfContext(context({ name: 'ci@dev-2.eu-central-1.eksctl.io' }))).toMatchObject({
      cluster: 'dev-2',
      region: 'eu-central-1',
    });
  });

  it('reads aws-iam-authenticator token -i NAME, with the region of the EKS endpoint', () => {
    const facts = context({
      server: SERVER,
      exec: { command: 'aws-iam-authenticator', args: ['token', '-i', 'legacy'], env: {} },
    });

    expect(eksTargetOfContext(facts)).toMatchObject({ cluster: 'legacy', region: 'eu-west-1' });
  });

  it('names no cluster for a context that is not EKS, nor for values that are not cluster names or regions', () => {
    expect(eksTargetOfContext(context({ name: 'kind-dev', clusterEntry: 'kind-dev' }))).toEqual({});
    const hostile = context({
      name: 'arn:aws:eks:us-east-1:111122223333:cluster/$(rm -rf ~)',
      exec: getToken(['eks', 'get-token', '--cluster-name', 'a b', '--region', 'us-east-1; id']),
    });
    expect(eksTargetOfContext(hostile)).toEqual({});
  });
});

describe('isAwsRegion: the one region check of the CLI, the capture-script options and the context reader', () => {
  it('accepts real region names and refuses zones, partitions and shell text', async () => {
    const { isAwsRegion } = await import('../../../src/domain/aws.ts');
    const { checkCaptureScriptOptions } = await import('../../../src/snapshot/capture-script.ts');

    for (const region of ['us-east-1', 'eu-central-1', 'us-gov-west-1', 'cn-north-1', 'ap-southeast-5']) {
      expect(isAwsRegion(region)).toBe(true);
      expect(() => checkCaptureScriptOptions({ region })).not.toThrow();
    }
    for (const bad of ['us-east-1a', 'aws', 'us-east-1; rm -rf /', 'US-EAST-1', '']) {
      expect(isAwsRegion(bad)).toBe(false);
      expect(() => checkCaptureScriptOptions({ region: bad })).toThrow('--region must be an AWS region');
    }
  });
});
