import {
  AccessDeniedException,
  DescribeAccessEntryCommand,
  DescribeClusterCommand,
  DescribeFargateProfileCommand,
  ListAccessEntriesCommand,
  ListClustersCommand,
  ListFargateProfilesCommand,
  ResourceNotFoundException,
  type ListAccessEntriesCommandInput,
  type ListAccessEntriesCommandOutput,
  type ListClustersCommandInput,
  type ListClustersCommandOutput,
} from '@aws-sdk/client-eks';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { EKS_DESCRIBE_CONCURRENCY, EksAdapter } from '../../../src/adapters/aws/eks.ts';
import { SourceError } from '../../../src/ports/errors.ts';
import { ACCOUNT, eksClient, pagesOf } from './sdk-fixtures.ts';

const client = eksClient();
const eks = mockClient(client);
afterEach(() => eks.reset());

const notFound = (name: string) =>
  new ResourceNotFoundException({ message: `No cluster found for name: ${name}.`, $metadata: { httpStatusCode: 404 } });

describe('EksAdapter.describeCluster', () => {
  it('maps the cluster through the AWS CLI reader (CA, authentication mode, Auto Mode, tags, endpoint access, VPC)', async () => {
    // Prepare
    eks.on(DescribeClusterCommand, { name: 'demo' }).resolves({
      cluster: {
        name: 'demo',
        arn: `arn:aws:eks:eu-central-1:${ACCOUNT}:cluster/demo`,
        createdAt: new Date('2025-12-31T20:01:44Z'),
        version: '1.34',
        endpoint: 'https://6DD3.yl4.eu-central-1.eks.amazonaws.com',
        status: 'ACTIVE',
        certificateAuthority: { data: 'LS0tLS1CRUdJTg==' },
        accessConfig: { authenticationMode: 'API_AND_CONFIG_MAP' },
        computeConfig: { enabled: false },
        tags: { Environment: 'dev' },
        resourcesVpcConfig: {
          vpcId: 'vpc-0a1b2c3d4e5f60001',
          clusterSecurityGroupId: 'sg-0c1d2e3f4a5b60001',
          endpointPublicAccess: false,
          endpointPrivateAccess: true,
        },
      },
    });

    // Act
    const cluster = await new EksAdapter(client).describeCluster('demo');

    // Assess
    expect(cluster).toEqual({
      name: 'demo',
      arn: `arn:aws:eks:eu-central-1:${ACCOUNT}:cluster/demo`,
      status: 'ACTIVE',
      version: '1.34',
      endpoint: 'https://6DD3.yl4.eu-central-1.eks.amazonaws.com',
      certificateAuthority: 'LS0tLS1CRUdJTg==',
      authenticationMode: 'API_AND_CONFIG_MAP',
      autoMode: false,
      tags: { Environment: 'dev' },
      endpointPublicAccess: false,
      endpointPrivateAccess: true,
      vpcId: 'vpc-0a1b2c3d4e5f60001',
      clusterSecurityGroupId: 'sg-0c1d2e3f4a5b60001',
    });
  });

  it('says the cluster is gone when EKS answers ResourceNotFoundException', async () => {
    eks.on(DescribeClusterCommand).rejects(notFound('platform-eks-dev'));

    expect(await new EksAdapter(client).describeCluster('platform-eks-dev')).toEqual({ name: 'platform-eks-dev', gone: true });
  });

  it('turns expired credentials into a SourceError with the AWS code', async () => {
    // Prepare
    const expired = new Error('The security token included in the request is expired');
    expired.name = 'ExpiredTokenException';
    eks.on(DescribeClusterCommand).rejects(expired);

    // Act
    const failure = await new EksAdapter(client).describeCluster('demo').catch((e: unknown) => e);

    // Assess
    expect(failure).toBeInstanceOf(SourceError);
    expect(failure).toMatchObject({
      code: 'ExpiredTokenException',
      summary: 'DescribeCluster failed: ExpiredTokenException: The security token included in the request is expired',
    });
  });
});

describe('EksAdapter.listClusters', () => {
  it('follows nextToken to the last page', async () => {
    // Prepare
    const pages = pagesOf<ListClustersCommandInput, ListClustersCommandOutput>(
      { clusters: ['a', 'b'], nextToken: 't2', $metadata: {} },
      { clusters: ['c'], $metadata: {} },
    );
    eks.on(ListClustersCommand).callsFake(pages.answer);

    // Act
    const names = await new EksAdapter(client).listClusters();

    // Assess
    expect(names).toEqual(['a', 'b', 'c']);
    expect(pages.inputs).toEqual([
      { maxResults: 100, nextToken: undefined },
      { maxResults: 100, nextToken: 't2' },
    ]);
  });
});

describe('EksAdapter.fargateProfiles', () => {
  it('lists every page and describes each profile; one deleted in between is left out', async () => {
    // Prepare
    eks
      .on(ListFargateProfilesCommand, { clusterName: 'demo', nextToken: undefined })
      .resolves({ fargateProfileNames: ['karpenter', 'gone'], nextToken: 'more' })
      .on(ListFargateProfilesCommand, { clusterName: 'demo', nextToken: 'more' })
      .resolves({ fargateProfileNames: ['kube-system'] })
      .on(DescribeFargateProfileCommand)
      .callsFake((input: { fargateProfileName: string }) => {
        if (input.fargateProfileName === 'gone')
          throw new ResourceNotFoundException({ message: 'No Fargate Profile found', $metadata: {} });
        return {
          fargateProfile: {
            fargateProfileName: input.fargateProfileName,
            status: 'ACTIVE',
            podExecutionRoleArn: `arn:aws:iam::${ACCOUNT}:role/fargate`,
            subnets: ['subnet-1'],
            selectors: [{ namespace: input.fargateProfileName, labels: { app: 'x' } }],
            createdAt: new Date('2026-01-01T00:00:00Z'),
          },
        };
      });

    // Act
    const profiles = await new EksAdapter(client).fargateProfiles('demo');

    // Assess
    expect(profiles).toEqual([
      {
        name: 'karpenter',
        status: 'ACTIVE',
        selectors: [{ namespace: 'karpenter', labels: { app: 'x' } }],
        podExecutionRoleArn: `arn:aws:iam::${ACCOUNT}:role/fargate`,
        subnets: ['subnet-1'],
        described: true,
      },
      expect.objectContaining({ name: 'kube-system', described: true }),
    ]);
    expect(eks.commandCalls(DescribeFargateProfileCommand).map((c) => c.args[0].input)).toEqual([
      { clusterName: 'demo', fargateProfileName: 'karpenter' },
      { clusterName: 'demo', fargateProfileName: 'gone' },
      { clusterName: 'demo', fargateProfileName: 'kube-system' },
    ]);
  });

  it('fails the whole source when a describe is denied: half the profiles would read as "no profile matches"', async () => {
    // Prepare
    eks
      .on(ListFargateProfilesCommand)
      .resolves({ fargateProfileNames: ['karpenter'] })
      .on(DescribeFargateProfileCommand)
      .rejects(
        new AccessDeniedException({
          message: 'User: arn:aws:sts::069057294951:assumed-role/ci/x is not authorized to perform: eks:DescribeFargateProfile',
          $metadata: { httpStatusCode: 403 },
        }),
      );

    // Act + Assess
    await expect(new EksAdapter(client).fargateProfiles('demo')).rejects.toMatchObject({
      name: 'SourceError',
      code: 'AccessDeniedException',
      summary:
        'DescribeFargateProfile failed: AccessDeniedException: User: arn:aws:sts::069057294951:assumed-role/ci/x is not authorized to perform: eks:DescribeFargateProfile',
    });
  });
});

describe('EksAdapter.accessEntries', () => {
  it('lists every page and describes each entry, never more than a few at once', async () => {
    // Prepare
    const principals = Array.from({ length: 12 }, (_, i) => `arn:aws:iam::${ACCOUNT}:role/node-${i}`);
    const list = pagesOf<ListAccessEntriesCommandInput, ListAccessEntriesCommandOutput>(
      { accessEntries: principals.slice(0, 10), nextToken: 'page-2', $metadata: {} },
      { accessEntries: principals.slice(10), $metadata: {} },
    );
    let inFlight = 0;
    let mostInFlight = 0;
    eks
      .on(ListAccessEntriesCommand)
      .callsFake(list.answer)
      .on(DescribeAccessEntryCommand)
      .callsFake(async (input: { principalArn: string }) => {
        inFlight++;
        mostInFlight = Math.max(mostInFlight, inFlight);
        await new Promise((resolve) => setImmediate(resolve));
        inFlight--;
        return {
          accessEntry: {
            principalArn: input.principalArn,
            type: 'EC2_LINUX',
            kubernetesGroups: ['system:nodes'],
            username: 'system:node:{{EC2PrivateDNSName}}',
          },
        };
      });

    // Act
    const entries = await new EksAdapter(client).accessEntries('demo');

    // Assess
    expect(entries.map((e) => e.principalArn)).toEqual(principals);
    expect(entries[0]).toEqual({
      principalArn: principals[0],
      type: 'EC2_LINUX',
      kubernetesGroups: ['system:nodes'],
      username: 'system:node:{{EC2PrivateDNSName}}',
      described: true,
    });
    expect(list.inputs.map((i) => [i.clusterName, i.nextToken, i.maxResults])).toEqual([
      ['demo', undefined, 100],
      ['demo', 'page-2', 100],
    ]);
    expect(mostInFlight).toBe(EKS_DESCRIBE_CONCURRENCY);
  });

  it('reports a denied ListAccessEntries as the SourceError the report shows as the gap', async () => {
    // Prepare
    eks.on(ListAccessEntriesCommand).rejects(
      new AccessDeniedException({
        message: `User: arn:aws:sts::${ACCOUNT}:assumed-role/ci/x is not authorized to perform: eks:ListAccessEntries on resource: arn:aws:eks:us-east-1:${ACCOUNT}:cluster/demo`,
        $metadata: { httpStatusCode: 403 },
      }),
    );

    // Act
    const failure = await new EksAdapter(client).accessEntries('demo').catch((e: unknown) => e);

    // Assess
    expect(failure).toBeInstanceOf(SourceError);
    expect((failure as SourceError).code).toBe('AccessDeniedException');
    expect((failure as SourceError).summary).toBe(
      `ListAccessEntries failed: AccessDeniedException: User: arn:aws:sts::${ACCOUNT}:assumed-role/ci/x is not authorized to perform: eks:ListAccessEntries on resource: arn:aws:eks:us-east-1:${ACCOUNT}:cluster/demo`,
    );
    expect(eks.commandCalls(DescribeAccessEntryCommand)).toHaveLength(0);
  });
});
