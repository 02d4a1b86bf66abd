import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { InputError } from '../../../src/domain/errors.ts';
import { loadSnapshot } from '../../../src/snapshot/load.ts';
import { captureDir, removeCaptureDirs } from './capture-dir.ts';

afterEach(removeCaptureDirs);

const ACCOUNT = '069057294951';
const PROFILE_ARN = `arn:aws:iam::${ACCOUNT}:instance-profile/aws-2026-eks_1976173924626587633`;

/** `aws ec2 describe-instances` as the CLI prints it (fields trimmed to the interesting ones plus some noise). */
function describeInstances(instances: { id: string; state?: string; cluster?: string; tags?: Record<string, string> }[]): object {
  return {
    Reservations: [
      {
        Groups: [],
        Instances: instances.map((i) => ({
          AmiLaunchIndex: 0,
          ImageId: 'ami-071a9f2683c2da4bd',
          InstanceId: i.id,
          InstanceType: 't3a.xlarge',
          LaunchTime: '2025-12-28T20:21:04+00:00',
          Monitoring: { State: 'disabled' },
          Placement: { AvailabilityZone: 'us-east-1a', GroupName: '', Tenancy: 'default' },
          PrivateDnsName: 'ip-10-59-42-222.ec2.internal',
          PrivateIpAddress: '10-59-42-222',
          PublicDnsName: '',
          State: { Code: 16, Name: i.state ?? 'running' },
          IamInstanceProfile: { Arn: PROFILE_ARN, Id: 'AIPARAFBCWJTZVOPTBGLQ' },
          Tags: Object.entries({
            'karpenter.sh/nodepool': 'default',
            'karpenter.k8s.aws/ec2nodeclass': 'default',
            'eks:eks-cluster-name': i.cluster ?? 'aws-2026-eks',
            [`kubernetes.io/cluster/${i.cluster ?? 'aws-2026-eks'}`]: 'owned',
            ...i.tags,
          }).map(([Key, Value]) => ({ Key, Value })),
        })),
        OwnerId: ACCOUNT,
        ReservationId: 'r-0f3a9c2b7d1e4a5b6',
      },
    ],
  };
}

const DESCRIBE_CLUSTER = {
  cluster: {
    name: 'aws-2026-eks',
    arn: `arn:aws:eks:us-east-1:${ACCOUNT}:cluster/aws-2026-eks`,
    createdAt: '2025-12-28T18:02:11.123000+00:00',
    version: '1.32',
    endpoint: 'https://0F1E2D3C4B5A69788796A5B4C3D2E1F0.gr7.us-east-1.eks.amazonaws.com',
    roleArn: `arn:aws:iam::${ACCOUNT}:role/aws-2026-eks-cluster-role`,
    resourcesVpcConfig: { subnetIds: ['subnet-0a1b2c3d4e5f60001'], endpointPublicAccess: true },
    status: 'ACTIVE',
    certificateAuthority: { data: 'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUM=' },
    platformVersion: 'eks.20',
    tags: { env: 'dev' },
    accessConfig: { bootstrapClusterCreatorAdminPermissions: true, authenticationMode: 'API_AND_CONFIG_MAP' },
  },
};

describe('loadSnapshot: AWS CLI output', () => {
  it('reads `aws ec2 describe-instances` into instances with tags, state, launch time, profile, zone, DNS name', async () => {
    // Prepare
    const dir = await captureDir({ 'x.json': describeInstances([{ id: 'i-01d1ff6c07a0e70f9' }]) });

    // Act
    const { snapshot } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.captured).toEqual(new Set(['instances']));
    expect(snapshot.instances).toEqual([
      {
        id: 'i-01d1ff6c07a0e70f9',
        state: 'running',
        launchTime: '2025-12-28T20:21:04+00:00',
        instanceType: 't3a.xlarge',
        availabilityZone: 'us-east-1a',
        privateDnsName: 'ip-10-59-42-222.ec2.internal',
        iamInstanceProfileArn: PROFILE_ARN,
        tags: {
          'karpenter.sh/nodepool': 'default',
          'karpenter.k8s.aws/ec2nodeclass': 'default',
          'eks:eks-cluster-name': 'aws-2026-eks',
          'kubernetes.io/cluster/aws-2026-eks': 'owned',
        },
      },
    ]);
  });

  it('counts `{"Reservations": []}` as instances captured, none exist', async () => {
    // Prepare
    const dir = await captureDir({ 'whatever.json': { Reservations: [] } });

    // Act
    const { snapshot } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.captured).toEqual(new Set(['instances']));
    expect(snapshot.instances).toEqual([]);
  });

  it('reads AWS CLI YAML output (--output yaml) too', async () => {
    // Prepare
    const dir = await captureDir({
      'instances.yaml': stringify(describeInstances([{ id: 'i-0aaa1111bbbb2222c', state: 'stopped' }])),
    });

    // Act
    const { snapshot } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.instances.map((i) => [i.id, i.state])).toEqual([['i-0aaa1111bbbb2222c', 'stopped']]);
  });

  it('reads `aws eks describe-cluster`: authentication mode, CA, endpoint', async () => {
    // Prepare
    const dir = await captureDir({ 'cluster.json': DESCRIBE_CLUSTER });

    // Act
    const { snapshot } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.captured).toEqual(new Set(['cluster']));
    expect(snapshot.clusterName).toBe('aws-2026-eks');
    expect(snapshot.cluster).toEqual({
      name: 'aws-2026-eks',
      arn: `arn:aws:eks:us-east-1:${ACCOUNT}:cluster/aws-2026-eks`,
      status: 'ACTIVE',
      version: '1.32',
      endpoint: 'https://0F1E2D3C4B5A69788796A5B4C3D2E1F0.gr7.us-east-1.eks.amazonaws.com',
      certificateAuthority: 'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUM=',
      authenticationMode: 'API_AND_CONFIG_MAP',
      tags: { env: 'dev' },
    });
  });

  it('reads Fargate profiles: a described profile wins over a listed-only name, whatever the file order', async () => {
    // Prepare
    const dir = await captureDir({
      'a-describe-karpenter.json': {
        fargateProfile: {
          fargateProfileName: 'karpenter',
          fargateProfileArn: `arn:aws:eks:us-west-2:${ACCOUNT}:fargateprofile/pattern-infra-eks-dev/karpenter/1ac9`,
          clusterName: 'pattern-infra-eks-dev',
          createdAt: '2025-01-07T10:00:00.000000+00:00',
          podExecutionRoleArn: `arn:aws:iam::${ACCOUNT}:role/eks-fargate-pod-execution`,
          subnets: ['subnet-0a1b2c3d4e5f60001', 'subnet-0a1b2c3d4e5f60002'],
          selectors: [{ namespace: 'karpenter' }, { namespace: 'kube-system', labels: { 'k8s-app': 'kube-dns' } }],
          status: 'ACTIVE',
          tags: {},
        },
      },
      'b-list.json': { fargateProfileNames: ['karpenter', 'coredns'] },
    });

    // Act
    const { snapshot } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.captured).toEqual(new Set(['fargateprofiles']));
    expect(snapshot.fargateProfiles).toEqual([
      {
        name: 'karpenter',
        status: 'ACTIVE',
        selectors: [{ namespace: 'karpenter' }, { namespace: 'kube-system', labels: { 'k8s-app': 'kube-dns' } }],
        podExecutionRoleArn: `arn:aws:iam::${ACCOUNT}:role/eks-fargate-pod-execution`,
        subnets: ['subnet-0a1b2c3d4e5f60001', 'subnet-0a1b2c3d4e5f60002'],
        described: true,
      },
      { name: 'coredns', selectors: [], described: false },
    ]);
  });

  it('reads access entries: listed ARNs, and described entries replacing them', async () => {
    // Prepare
    const nodeRole = `arn:aws:iam::${ACCOUNT}:role/aws-2026-eks-node-role`;
    const karpenterRole = `arn:aws:iam::${ACCOUNT}:role/aws-2026-eks-karpenter-node`;
    const dir = await captureDir({
      'access-entries.json': { accessEntries: [nodeRole, karpenterRole] },
      'access-entry-node.json': {
        accessEntry: {
          clusterName: 'aws-2026-eks',
          principalArn: nodeRole,
          kubernetesGroups: [],
          accessEntryArn: `arn:aws:eks:us-east-1:${ACCOUNT}:access-entry/aws-2026-eks/role/${ACCOUNT}/aws-2026-eks-node-role/x`,
          createdAt: '2025-12-28T18:10:00+00:00',
          modifiedAt: '2025-12-28T18:10:00+00:00',
          tags: {},
          username: 'system:node:{{EC2PrivateDNSName}}',
          type: 'EC2_LINUX',
        },
      },
    });

    // Act
    const { snapshot } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.captured).toEqual(new Set(['accessentries']));
    expect(snapshot.accessEntries).toEqual([
      {
        principalArn: nodeRole,
        type: 'EC2_LINUX',
        kubernetesGroups: [],
        username: 'system:node:{{EC2PrivateDNSName}}',
        described: true,
      },
      { principalArn: karpenterRole, described: false },
    ]);
  });

  it('reads `aws ec2 describe-launch-templates`', async () => {
    // Prepare
    const dir = await captureDir({
      'lt.json': {
        LaunchTemplates: [
          {
            LaunchTemplateId: 'lt-0a1b2c3d4e5f67890',
            LaunchTemplateName: 'karpenter.k8s.aws/13048384737592751284',
            CreateTime: '2025-12-28T20:20:58+00:00',
            CreatedBy: `arn:aws:sts::${ACCOUNT}:assumed-role/KarpenterControllerRole/1735417258`,
            DefaultVersionNumber: 1,
            LatestVersionNumber: 1,
            Tags: [
              { Key: 'karpenter.k8s.aws/cluster', Value: 'aws-2026-eks' },
              { Key: 'karpenter.sh/nodepool', Value: 'default' },
            ],
          },
        ],
      },
    });

    // Act
    const { snapshot } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.launchTemplates).toEqual([
      {
        id: 'lt-0a1b2c3d4e5f67890',
        name: 'karpenter.k8s.aws/13048384737592751284',
        createTime: '2025-12-28T20:20:58+00:00',
        tags: { 'karpenter.k8s.aws/cluster': 'aws-2026-eks', 'karpenter.sh/nodepool': 'default' },
      },
    ]);
    expect(snapshot.captured).toEqual(new Set(['launchtemplates']));
  });

  it('reads instance profiles from list-instance-profiles and get-instance-profile, merging tags', async () => {
    // Prepare
    const profile = {
      Path: '/',
      InstanceProfileName: 'aws-2026-eks_1976173924626587633',
      InstanceProfileId: 'AIPARAFBCWJTZVOPTBGLQ',
      Arn: PROFILE_ARN,
      CreateDate: '2025-12-28T20:20:50+00:00',
      Roles: [
        {
          Path: '/',
          RoleName: 'aws-2026-eks-karpenter-node',
          RoleId: 'AROARAFBCWJTZVOPTBGLQ',
          Arn: `arn:aws:iam::${ACCOUNT}:role/aws-2026-eks-karpenter-node`,
          CreateDate: '2025-12-28T18:00:00+00:00',
        },
      ],
    };
    const dir = await captureDir({
      'a-list.json': {
        InstanceProfiles: [profile, { ...profile, InstanceProfileName: 'eks-node-group-profile', Arn: undefined, Roles: [] }],
      },
      'b-get.json': {
        InstanceProfile: {
          ...profile,
          Tags: [
            { Key: 'eks:eks-cluster-name', Value: 'aws-2026-eks' },
            { Key: 'karpenter.k8s.aws/ec2nodeclass', Value: 'default' },
          ],
        },
      },
    });

    // Act
    const { snapshot } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.captured).toEqual(new Set(['instanceprofiles']));
    expect(snapshot.instanceProfiles).toEqual([
      {
        name: 'aws-2026-eks_1976173924626587633',
        arn: PROFILE_ARN,
        path: '/',
        id: 'AIPARAFBCWJTZVOPTBGLQ',
        createDate: '2025-12-28T20:20:50+00:00',
        roles: [{ name: 'aws-2026-eks-karpenter-node', arn: `arn:aws:iam::${ACCOUNT}:role/aws-2026-eks-karpenter-node` }],
        tags: { 'eks:eks-cluster-name': 'aws-2026-eks', 'karpenter.k8s.aws/ec2nodeclass': 'default' },
      },
      {
        name: 'eks-node-group-profile',
        path: '/',
        id: 'AIPARAFBCWJTZVOPTBGLQ',
        createDate: '2025-12-28T20:20:50+00:00',
        roles: [],
        tags: {},
      },
    ]);
  });

  it('merges instances from several files, one record per instance id (later file wins)', async () => {
    // Prepare
    const dir = await captureDir({
      'instances-1.json': describeInstances([{ id: 'i-01d1ff6c07a0e70f9', state: 'pending' }, { id: 'i-0aaa1111bbbb2222c' }]),
      'instances-2.json': describeInstances([{ id: 'i-01d1ff6c07a0e70f9', state: 'running' }]),
    });

    // Act
    const { snapshot } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.instances.map((i) => [i.id, i.state])).toEqual([
      ['i-01d1ff6c07a0e70f9', 'running'],
      ['i-0aaa1111bbbb2222c', 'running'],
    ]);
  });

  it.each([
    [{ Reservations: {} }, 'Reservations is not a list'],
    [{ Reservations: [{ Instances: [{ State: { Name: 'running' } }] }] }, 'Reservations[0].Instances[0] has no InstanceId'],
    [{ Reservations: [{ Instances: [{ InstanceId: 'i-0abc' }] }] }, 'Reservations[0].Instances[0] (i-0abc) has no State.Name'],
    [{ cluster: { status: 'ACTIVE' } }, 'cluster has no name'],
    [{ LaunchTemplates: [{ LaunchTemplateName: 'x' }] }, 'LaunchTemplates[0] has no LaunchTemplateId'],
  ])('rejects a broken AWS CLI output %j with the reason', async (document, problem) => {
    // Prepare
    const dir = await captureDir({ 'aws.json': document });

    // Act
    const loading = loadSnapshot([dir]);

    // Assess
    await expect(loading).rejects.toThrow(InputError);
    await expect(loading).rejects.toThrow(`aws.json: ${problem}`);
  });
});
