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
    resourcesVpcConfig: {
      subnetIds: ['subnet-0a1b2c3d4e5f60001'],
      securityGroupIds: [],
      clusterSecurityGroupId: 'sg-0c1d2e3f4a5b60001',
      vpcId: 'vpc-0a1b2c3d4e5f60001',
      endpointPublicAccess: true,
      endpointPrivateAccess: false,
      publicAccessCidrs: ['0.0.0.0/0'],
    },
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

  it('reads `aws eks describe-cluster`: authentication mode, CA, endpoint, endpoint access, VPC', async () => {
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
      endpointPublicAccess: true,
      endpointPrivateAccess: false,
      vpcId: 'vpc-0a1b2c3d4e5f60001',
      clusterSecurityGroupId: 'sg-0c1d2e3f4a5b60001',
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

describe('loadSnapshot: AWS CLI output shaped by --query, pagination and cluster age', () => {
  const instanceIds = ['i-01d1ff6c07a0e70f9', 'i-0aaa1111bbbb2222c'];

  it.each([
    [
      'a list of instance IDs',
      instanceIds,
      'a list of EC2 instance IDs (a --query result): capture `aws ec2 describe-instances --output json` without --query (--filters is fine)',
    ],
    [
      'rows of columns',
      [['i-01d1ff6c07a0e70f9', 'running', 'default']],
      'a list of plain values, not objects (a --query or jq result?): capture the whole output (`kubectl get ... -o json`, or the AWS CLI without --query)',
    ],
    [
      'a projection to other names',
      [{ Id: 'i-01d1ff6c07a0e70f9', State: 'running' }],
      '[0] is not a Kubernetes object (a --query or jq projection?): capture the whole output (`kubectl get ... -o json`, or the AWS CLI without --query)',
    ],
  ])('rejects `describe-instances --query` output giving %s, saying what to capture', async (_what, document, problem) => {
    // Prepare
    const dir = await captureDir({ 'instances.json': document });

    // Act
    const error = await loadSnapshot([dir]).catch((e: unknown) => e);

    // Assess
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).message).toBe(`${dir}/instances.json: ${problem}`);
  });

  it("reads instances flattened by --query 'Reservations[].Instances[]' or 'Reservations[]': they are whole", async () => {
    // Prepare
    const reservations = (
      describeInstances([{ id: 'i-01d1ff6c07a0e70f9' }, { id: 'i-0aaa1111bbbb2222c' }]) as {
        Reservations: { Instances: unknown[] }[];
      }
    ).Reservations;
    const dir = await captureDir({
      'a/instances.json': reservations.flatMap((r) => r.Instances),
      'b/instances.json': reservations,
    });

    // Act
    const flattened = await loadSnapshot([`${dir}/a`]);
    const byReservation = await loadSnapshot([`${dir}/b`]);

    // Assess
    expect(flattened.snapshot.instances.map((i) => i.id)).toEqual(instanceIds);
    expect(flattened.snapshot.instances[0]?.tags['karpenter.sh/nodepool']).toBe('default');
    expect(byReservation.snapshot.instances).toEqual(flattened.snapshot.instances);
  });

  it('reads instances without Tags, in several Reservations', async () => {
    // Prepare
    const dir = await captureDir({
      'instances.json': {
        Reservations: [
          { Instances: [{ InstanceId: 'i-0b0b0b0b0b0b0b0b0', State: { Code: 16, Name: 'running' }, PrivateDnsName: '' }] },
          { Instances: [{ InstanceId: 'i-0c0c0c0c0c0c0c0c0', State: { Code: 48, Name: 'terminated' } }], OwnerId: ACCOUNT },
        ],
      },
    });

    // Act
    const { snapshot } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.instances).toEqual([
      { id: 'i-0b0b0b0b0b0b0b0b0', state: 'running', tags: {} },
      { id: 'i-0c0c0c0c0c0c0c0c0', state: 'terminated', tags: {} },
    ]);
  });

  it('treats one page of a paginated output (NextToken, nextToken, IsTruncated) as a gap: the rest was not captured', async () => {
    // Prepare
    const dir = await captureDir({
      'instances.json': { ...describeInstances([{ id: 'i-01d1ff6c07a0e70f9' }]), NextToken: 'eyJOZXh0VG9rZW4iOiBudWxsfQ==' },
      'access-entries.json': { accessEntries: [`arn:aws:iam::${ACCOUNT}:role/aws-2026-eks-node-role`], nextToken: 'AAAA' },
      'instance-profiles.json': { InstanceProfiles: [], IsTruncated: true, Marker: 'AAAA' },
      'launch-templates.json': { LaunchTemplates: [] },
    });

    // Act
    const { snapshot } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.instances).toHaveLength(1);
    expect(snapshot.gaps).toEqual([
      { source: 'instances', error: expect.stringContaining('ends with NextToken') },
      { source: 'accessentries', error: expect.stringContaining('ends with nextToken') },
      { source: 'instanceprofiles', error: expect.stringContaining('ends with IsTruncated') },
    ]);
  });

  it('reads every page when they are all there: concatenated in one file, in several files, or as --output yaml-stream', async () => {
    // Prepare
    const page1 = { ...describeInstances([{ id: 'i-01d1ff6c07a0e70f9' }]), NextToken: 'eyJOZXh0VG9rZW4iOiBudWxsfQ==' };
    const page2 = describeInstances([{ id: 'i-0aaa1111bbbb2222c' }]);
    const dir = await captureDir({
      'concatenated/instances.json': `${JSON.stringify(page1, null, 4)}\n${JSON.stringify(page2, null, 4)}\n`,
      'files/instances-1.json': page1,
      'files/instances-2.json': page2,
      'stream/instances.yaml': stringify([page1, page2]),
    });

    // Act
    const loaded = await Promise.all(['concatenated', 'files', 'stream'].map((d) => loadSnapshot([`${dir}/${d}`])));

    // Assess
    for (const { snapshot } of loaded) {
      expect(snapshot.instances.map((i) => i.id)).toEqual(instanceIds);
      expect(snapshot.gaps).toEqual([]);
    }
  });

  it('reads EKS Auto Mode from computeConfig, and an old cluster without accessConfig or computeConfig', async () => {
    // Prepare
    const autoMode = {
      cluster: {
        ...DESCRIBE_CLUSTER.cluster,
        accessConfig: { bootstrapClusterCreatorAdminPermissions: false, authenticationMode: 'API' },
        computeConfig: {
          enabled: true,
          nodePools: ['general-purpose', 'system'],
          nodeRoleArn: `arn:aws:iam::${ACCOUNT}:role/AmazonEKSAutoNodeRole`,
        },
      },
    };
    const { accessConfig: _access, ...oldCluster } = DESCRIBE_CLUSTER.cluster;
    const dir = await captureDir({
      'auto/cluster.json': autoMode,
      'old/cluster.json': { cluster: { ...oldCluster, version: '1.23' } },
    });

    // Act
    const auto = await loadSnapshot([`${dir}/auto`]);
    const old = await loadSnapshot([`${dir}/old`]);

    // Assess
    expect(auto.snapshot.cluster).toMatchObject({ name: 'aws-2026-eks', autoMode: true, authenticationMode: 'API' });
    expect(old.snapshot.cluster).toMatchObject({ name: 'aws-2026-eks', version: '1.23' });
    expect(old.snapshot.cluster).not.toHaveProperty('autoMode');
    expect(old.snapshot.cluster).not.toHaveProperty('authenticationMode');
  });
});
