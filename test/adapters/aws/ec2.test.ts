import {
  DeleteLaunchTemplateCommand,
  DescribeInstancesCommand,
  DescribeLaunchTemplatesCommand,
  DescribeSubnetsCommand,
  TerminateInstancesCommand,
  type DescribeInstancesCommandInput,
  type DescribeInstancesCommandOutput,
  type DescribeLaunchTemplatesCommandInput,
  type DescribeLaunchTemplatesCommandOutput,
  type DescribeSubnetsCommandInput,
  type DescribeSubnetsCommandOutput,
  type Instance as SdkInstance,
} from '@aws-sdk/client-ec2';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { Ec2Adapter } from '../../../src/adapters/aws/ec2.ts';
import { SourceError } from '../../../src/ports/errors.ts';
import { ec2Client, ec2Error, pagesOf } from './sdk-fixtures.ts';

const client = ec2Client();
const ec2 = mockClient(client);
afterEach(() => ec2.reset());

function sdkInstance(id: string, tags: Record<string, string> = {}, state = 'running'): SdkInstance {
  return {
    InstanceId: id,
    InstanceType: 'm5.large',
    LaunchTime: new Date('2026-01-01T00:00:00Z'),
    Placement: { AvailabilityZone: 'us-east-1a' },
    PrivateDnsName: 'ip-10-0-1-5.ec2.internal',
    State: { Code: 16, Name: state as 'running' },
    IamInstanceProfile: { Arn: 'arn:aws:iam::069057294951:instance-profile/demo_123', Id: 'AIPA' },
    Tags: Object.entries(tags).map(([Key, Value]) => ({ Key, Value })),
  };
}

const describeInputs = () => ec2.commandCalls(DescribeInstancesCommand).map((c) => c.args[0].input);

describe('Ec2Adapter.describeInstances', () => {
  it('queries each cluster tag separately (EC2 ANDs filters) and merges the instances by id', async () => {
    // Prepare
    const both = sdkInstance('i-both', { 'eks:eks-cluster-name': 'demo', 'kubernetes.io/cluster/demo': 'owned' });
    ec2
      .on(DescribeInstancesCommand, { Filters: [{ Name: 'tag:eks:eks-cluster-name', Values: ['demo'] }] })
      .resolves({ Reservations: [{ Instances: [both, sdkInstance('i-new', { 'eks:eks-cluster-name': 'demo' })] }] })
      .on(DescribeInstancesCommand, { Filters: [{ Name: 'tag:kubernetes.io/cluster/demo', Values: ['owned', 'shared'] }] })
      .resolves({ Reservations: [{ Instances: [both, sdkInstance('i-legacy', { 'kubernetes.io/cluster/demo': 'owned' })] }] });

    // Act
    const instances = await new Ec2Adapter(client).describeInstances({ clusterName: 'demo' });

    // Assess
    expect(instances.map((i) => i.id)).toEqual(['i-both', 'i-new', 'i-legacy']);
    expect(describeInputs()).toEqual([
      { Filters: [{ Name: 'tag:eks:eks-cluster-name', Values: ['demo'] }], MaxResults: 1000 },
      { Filters: [{ Name: 'tag:kubernetes.io/cluster/demo', Values: ['owned', 'shared'] }], MaxResults: 1000 },
    ]);
  });

  it('maps the SDK output through the AWS CLI reader: dates as ISO text, tags as a record, zone, profile', async () => {
    // Prepare
    ec2.on(DescribeInstancesCommand).resolves({
      Reservations: [{ Instances: [sdkInstance('i-0a3f1c9e8b7d6a501', { 'karpenter.sh/nodepool': 'default' }, 'stopped')] }],
    });

    // Act
    const [instance] = await new Ec2Adapter(client).describeInstances({ instanceIds: ['i-0a3f1c9e8b7d6a501'] });

    // Assess
    expect(instance).toEqual({
      id: 'i-0a3f1c9e8b7d6a501',
      state: 'stopped',
      launchTime: '2026-01-01T00:00:00.000Z',
      instanceType: 'm5.large',
      availabilityZone: 'us-east-1a',
      privateDnsName: 'ip-10-0-1-5.ec2.internal',
      iamInstanceProfileArn: 'arn:aws:iam::069057294951:instance-profile/demo_123',
      tags: { 'karpenter.sh/nodepool': 'default' },
    });
  });

  it('follows NextToken to the last page', async () => {
    // Prepare
    const pages = pagesOf<DescribeInstancesCommandInput, DescribeInstancesCommandOutput>(
      { Reservations: [{ Instances: [sdkInstance('i-1')] }], NextToken: 'page-2', $metadata: {} },
      { Reservations: [{ Instances: [sdkInstance('i-2')] }], NextToken: 'page-3', $metadata: {} },
      { Reservations: [{ Instances: [sdkInstance('i-3')] }], $metadata: {} },
    );
    ec2.on(DescribeInstancesCommand).callsFake(pages.answer);

    // Act
    const instances = await new Ec2Adapter(client).describeInstances({ tagKey: 'karpenter.sh/nodepool' });

    // Assess
    expect(instances.map((i) => i.id)).toEqual(['i-1', 'i-2', 'i-3']);
    expect(pages.inputs).toEqual([
      { Filters: [{ Name: 'tag-key', Values: ['karpenter.sh/nodepool'] }], MaxResults: 1000, NextToken: undefined },
      { Filters: [{ Name: 'tag-key', Values: ['karpenter.sh/nodepool'] }], MaxResults: 1000, NextToken: 'page-2' },
      { Filters: [{ Name: 'tag-key', Values: ['karpenter.sh/nodepool'] }], MaxResults: 1000, NextToken: 'page-3' },
    ]);
  });

  it('asks for instance ids through an instance-id filter in chunks of 200 (an unknown id in InstanceIds fails the call)', async () => {
    // Prepare
    ec2.on(DescribeInstancesCommand).resolves({ Reservations: [] });
    const ids = Array.from({ length: 401 }, (_, i) => `i-${String(i).padStart(17, '0')}`);

    // Act
    const instances = await new Ec2Adapter(client).describeInstances({
      instanceIds: ids,
      clusterName: 'demo',
      tagKey: 'karpenter.sh/nodepool',
    });

    // Assess
    expect(instances).toEqual([]);
    const inputs = describeInputs();
    expect(inputs).toHaveLength(6); // 2 cluster tags x 3 chunks
    expect(inputs.every((i) => i.InstanceIds === undefined)).toBe(true);
    const chunkSizes = inputs.map((i) => i.Filters?.find((f) => f.Name === 'instance-id')?.Values?.length);
    expect(chunkSizes).toEqual([200, 200, 1, 200, 200, 1]);
    expect(inputs[0]?.Filters).toEqual([
      { Name: 'tag:eks:eks-cluster-name', Values: ['demo'] },
      { Name: 'instance-id', Values: ids.slice(0, 200) },
      { Name: 'tag-key', Values: ['karpenter.sh/nodepool'] },
    ]);
  });

  it('finds the instances an instance profile is attached to, any owner’s, through the iam-instance-profile.arn filter', async () => {
    // Prepare
    const arn = 'arn:aws:iam::069057294951:instance-profile/karpenter/us-east-1/demo/uid/demo_123';
    ec2
      .on(DescribeInstancesCommand, { Filters: [{ Name: 'iam-instance-profile.arn', Values: [arn] }] })
      .resolves({ Reservations: [{ Instances: [sdkInstance('i-0payments', { Team: 'payments' })] }] });

    // Act
    const instances = await new Ec2Adapter(client).describeInstances({ instanceProfileArns: [arn] });

    // Assess
    expect(instances.map((i) => i.id)).toEqual(['i-0payments']);
    expect(describeInputs()).toEqual([{ Filters: [{ Name: 'iam-instance-profile.arn', Values: [arn] }], MaxResults: 1000 }]);
  });

  it('asks nothing for an empty id list', async () => {
    expect(await new Ec2Adapter(client).describeInstances({ instanceIds: [] })).toEqual([]);
    expect(describeInputs()).toEqual([]);
  });

  it('turns UnauthorizedOperation into a SourceError naming the operation and the AWS code', async () => {
    // Prepare
    ec2
      .on(DescribeInstancesCommand)
      .rejects(ec2Error('UnauthorizedOperation', 'You are not authorized to perform this operation.'));

    // Act
    const failure = await new Ec2Adapter(client).describeInstances({ clusterName: 'demo' }).catch((e: unknown) => e);

    // Assess
    expect(failure).toBeInstanceOf(SourceError);
    expect(failure).toMatchObject({
      code: 'UnauthorizedOperation',
      summary: 'DescribeInstances failed: UnauthorizedOperation: You are not authorized to perform this operation.',
    });
  });

  it('turns throttling that outlasted the retries into a SourceError', async () => {
    ec2.on(DescribeInstancesCommand).rejects(ec2Error('RequestLimitExceeded', 'Request limit exceeded.'));

    await expect(new Ec2Adapter(client).describeInstances({ clusterName: 'demo' })).rejects.toMatchObject({
      name: 'SourceError',
      code: 'RequestLimitExceeded',
    });
  });
});

describe('Ec2Adapter.terminateInstances', () => {
  const terminateInputs = () => ec2.commandCalls(TerminateInstancesCommand).map((c) => c.args[0].input.InstanceIds);

  it('terminates at most 50 instances per call and reports the state AWS answered for each', async () => {
    // Prepare
    ec2.on(TerminateInstancesCommand).callsFake((input: { InstanceIds: string[] }) => ({
      TerminatingInstances: input.InstanceIds.map((id) => ({
        InstanceId: id,
        CurrentState: { Code: 32, Name: 'shutting-down' },
      })),
    }));
    const ids = Array.from({ length: 120 }, (_, i) => `i-${i}`);

    // Act
    const results = await new Ec2Adapter(client).terminateInstances([...ids, 'i-0']);

    // Assess
    expect(terminateInputs().map((batch) => batch?.length)).toEqual([50, 50, 20]);
    expect(results).toHaveLength(120);
    expect(results.every((r) => r.currentState === 'shutting-down' && r.error === undefined)).toBe(true);
  });

  it('reports a failed batch per instance and still terminates the other batches', async () => {
    // Prepare
    const ids = Array.from({ length: 60 }, (_, i) => `i-${i}`);
    ec2
      .on(TerminateInstancesCommand)
      .rejectsOnce(ec2Error('RequestLimitExceeded', 'Request limit exceeded.'))
      .resolves({
        TerminatingInstances: ids.slice(50).map((id) => ({ InstanceId: id, CurrentState: { Name: 'shutting-down' } })),
      });

    // Act
    const results = await new Ec2Adapter(client).terminateInstances(ids);

    // Assess
    expect(terminateInputs().map((batch) => batch?.length)).toEqual([50, 10]);
    expect(results.slice(0, 50).every((r) => r.error === 'RequestLimitExceeded: Request limit exceeded.')).toBe(true);
    expect(results.slice(50).every((r) => r.currentState === 'shutting-down')).toBe(true);
  });

  it('retries a batch one instance at a time when one instance can fail it (termination protection), so each gets its own outcome', async () => {
    // Prepare
    const protectedError = ec2Error(
      'OperationNotPermitted',
      "The instance 'i-protected' may not be terminated. Modify its 'disableApiTermination' instance attribute and try again.",
    );
    ec2
      .on(TerminateInstancesCommand, { InstanceIds: ['i-a', 'i-protected', 'i-b'] })
      .rejects(protectedError)
      .on(TerminateInstancesCommand, { InstanceIds: ['i-protected'] })
      .rejects(protectedError)
      .on(TerminateInstancesCommand, { InstanceIds: ['i-a'] })
      .resolves({ TerminatingInstances: [{ InstanceId: 'i-a', CurrentState: { Name: 'shutting-down' } }] })
      .on(TerminateInstancesCommand, { InstanceIds: ['i-b'] })
      .resolves({ TerminatingInstances: [{ InstanceId: 'i-b', CurrentState: { Name: 'terminated' } }] });

    // Act
    const results = await new Ec2Adapter(client).terminateInstances(['i-a', 'i-protected', 'i-b']);

    // Assess
    expect(terminateInputs()).toEqual([['i-a', 'i-protected', 'i-b'], ['i-a'], ['i-protected'], ['i-b']]);
    expect(results).toEqual([
      { instanceId: 'i-a', currentState: 'shutting-down' },
      { instanceId: 'i-protected', error: `OperationNotPermitted: ${protectedError.message}` },
      { instanceId: 'i-b', currentState: 'terminated' },
    ]);
  });

  it('says so for an instance missing from the answer', async () => {
    ec2.on(TerminateInstancesCommand).resolves({ TerminatingInstances: [] });

    expect(await new Ec2Adapter(client).terminateInstances(['i-x'])).toEqual([
      { instanceId: 'i-x', error: 'TerminateInstances did not report this instance' },
    ]);
  });
});

describe('Ec2Adapter launch templates', () => {
  it('finds templates under either cluster tag, every page, merged by id', async () => {
    // Prepare
    const template = (id: string, tag: string) => ({
      LaunchTemplateId: id,
      LaunchTemplateName: `karpenter.k8s.aws/${id}`,
      CreateTime: new Date('2025-12-31T20:15:00Z'),
      Tags: [{ Key: tag, Value: 'demo' }],
    });
    const current = pagesOf<DescribeLaunchTemplatesCommandInput, DescribeLaunchTemplatesCommandOutput>(
      { LaunchTemplates: [template('lt-1', 'eks:eks-cluster-name')], NextToken: 'next', $metadata: {} },
      { LaunchTemplates: [template('lt-2', 'eks:eks-cluster-name')], $metadata: {} },
    );
    const legacy = pagesOf<DescribeLaunchTemplatesCommandInput, DescribeLaunchTemplatesCommandOutput>({
      LaunchTemplates: [template('lt-2', 'karpenter.k8s.aws/cluster'), template('lt-old', 'karpenter.k8s.aws/cluster')],
      $metadata: {},
    });
    ec2
      .on(DescribeLaunchTemplatesCommand, { Filters: [{ Name: 'tag:eks:eks-cluster-name', Values: ['demo'] }] })
      .callsFake(current.answer)
      .on(DescribeLaunchTemplatesCommand, { Filters: [{ Name: 'tag:karpenter.k8s.aws/cluster', Values: ['demo'] }] })
      .callsFake(legacy.answer);

    // Act
    const templates = await new Ec2Adapter(client).describeLaunchTemplates('demo');

    // Assess
    expect(templates.map((t) => t.id)).toEqual(['lt-1', 'lt-2', 'lt-old']);
    expect(templates[0]).toEqual({
      id: 'lt-1',
      name: 'karpenter.k8s.aws/lt-1',
      createTime: '2025-12-31T20:15:00.000Z',
      tags: { 'eks:eks-cluster-name': 'demo' },
    });
    const inputs = [...current.inputs, ...legacy.inputs];
    expect(inputs.map((i) => [i.Filters?.[0]?.Name, i.NextToken, i.MaxResults])).toEqual([
      ['tag:eks:eks-cluster-name', undefined, 200],
      ['tag:eks:eks-cluster-name', 'next', 200],
      ['tag:karpenter.k8s.aws/cluster', undefined, 200],
    ]);
  });

  it('looks up by id the templates instances name beyond the tagged ones: one that exists untagged is returned, one gone is absent', async () => {
    // Prepare: lt-tagged is the cluster's; lt-nodegroup exists but carries no cluster tag; lt-gone
    // was deleted. EC2 fails a call naming several ids when one of them does not exist.
    const template = (id: string, name: string, tags: { Key: string; Value: string }[]) => ({
      LaunchTemplateId: id,
      LaunchTemplateName: name,
      Tags: tags,
    });
    // EC2's text, as Karpenter logged it (aws/karpenter-provider-aws#5665).
    const notFound = ec2Error(
      'InvalidLaunchTemplateId.NotFound',
      'The specified launch template, with template ID lt-gone, does not exist.',
    );
    ec2
      .on(DescribeLaunchTemplatesCommand, { Filters: [{ Name: 'tag:eks:eks-cluster-name', Values: ['demo'] }] })
      .resolves({
        LaunchTemplates: [template('lt-tagged', 'karpenter.k8s.aws/1', [{ Key: 'eks:eks-cluster-name', Value: 'demo' }])],
      })
      .on(DescribeLaunchTemplatesCommand, { Filters: [{ Name: 'tag:karpenter.k8s.aws/cluster', Values: ['demo'] }] })
      .resolves({ LaunchTemplates: [] })
      .on(DescribeLaunchTemplatesCommand, { LaunchTemplateIds: ['lt-gone', 'lt-nodegroup'] })
      .rejects(notFound)
      .on(DescribeLaunchTemplatesCommand, { LaunchTemplateIds: ['lt-gone'] })
      .rejects(notFound)
      .on(DescribeLaunchTemplatesCommand, { LaunchTemplateIds: ['lt-nodegroup'] })
      .resolves({ LaunchTemplates: [template('lt-nodegroup', 'eks-payments-ng', [])] });

    // Act
    const templates = await new Ec2Adapter(client).describeLaunchTemplates('demo', ['lt-nodegroup', 'lt-tagged', 'lt-gone']);

    // Assess: the tagged one is not asked for again; the untagged one is there to be judged.
    expect(templates.map((t) => [t.id, t.name])).toEqual([
      ['lt-tagged', 'karpenter.k8s.aws/1'],
      ['lt-nodegroup', 'eks-payments-ng'],
    ]);
    const byId = ec2.commandCalls(DescribeLaunchTemplatesCommand).flatMap((c) => c.args[0].input.LaunchTemplateIds ?? []);
    expect(byId).not.toContain('lt-tagged');
  });

  it('fails the listing when a template cannot be looked up by id for any reason but NotFound: it must never count as gone', async () => {
    // Prepare
    ec2
      .on(DescribeLaunchTemplatesCommand, { Filters: [{ Name: 'tag:eks:eks-cluster-name', Values: ['demo'] }] })
      .resolves({ LaunchTemplates: [] })
      .on(DescribeLaunchTemplatesCommand, { Filters: [{ Name: 'tag:karpenter.k8s.aws/cluster', Values: ['demo'] }] })
      .resolves({ LaunchTemplates: [] })
      .on(DescribeLaunchTemplatesCommand, { LaunchTemplateIds: ['lt-0abc'] })
      .rejects(ec2Error('UnauthorizedOperation', 'You are not authorized to perform this operation.'));

    // Act + Assess
    await expect(new Ec2Adapter(client).describeLaunchTemplates('demo', ['lt-0abc'])).rejects.toMatchObject({
      code: 'UnauthorizedOperation',
      summary: 'DescribeLaunchTemplates failed: UnauthorizedOperation: You are not authorized to perform this operation.',
    });
  });

  it('deletes a template by id; one already gone is false, other failures a SourceError', async () => {
    // Prepare
    ec2
      .on(DeleteLaunchTemplateCommand, { LaunchTemplateId: 'lt-1' })
      .resolves({})
      .on(DeleteLaunchTemplateCommand, { LaunchTemplateId: 'lt-gone' })
      .rejects(
        ec2Error('InvalidLaunchTemplateId.NotFound', 'The specified launch template, with template ID lt-gone, does not exist.'),
      )
      .on(DeleteLaunchTemplateCommand, { LaunchTemplateId: 'lt-denied' })
      .rejects(ec2Error('UnauthorizedOperation', 'You are not authorized to perform this operation.'));
    const adapter = new Ec2Adapter(client);

    // Act + Assess
    expect(await adapter.deleteLaunchTemplate('lt-1')).toBe(true);
    expect(await adapter.deleteLaunchTemplate('lt-gone')).toBe(false);
    await expect(adapter.deleteLaunchTemplate('lt-denied')).rejects.toMatchObject({
      code: 'UnauthorizedOperation',
      summary: 'DeleteLaunchTemplate failed: UnauthorizedOperation: You are not authorized to perform this operation.',
    });
    expect(ec2.commandCalls(DeleteLaunchTemplateCommand).map((c) => c.args[0].input)).toEqual([
      { LaunchTemplateId: 'lt-1' },
      { LaunchTemplateId: 'lt-gone' },
      { LaunchTemplateId: 'lt-denied' },
    ]);
  });
});

describe('Ec2Adapter.describeSubnets', () => {
  const sdkSubnet = (id: string, free: number) => ({
    SubnetId: id,
    VpcId: 'vpc-0c2e8a4f7b1d93e56',
    AvailabilityZone: 'us-east-1a',
    AvailabilityZoneId: 'use1-az4',
    CidrBlock: '10.59.32.0/19',
    AvailableIpAddressCount: free,
    MapPublicIpOnLaunch: false,
    State: 'available' as const,
    Ipv6Native: false,
    Ipv6CidrBlockAssociationSet: [],
    Tags: [{ Key: 'karpenter.sh/discovery', Value: 'demo' }],
  });

  it('asks for exactly the ids, by a subnet-id filter, every page, and maps them through the AWS CLI reader', async () => {
    // Prepare
    const pages = pagesOf<DescribeSubnetsCommandInput, DescribeSubnetsCommandOutput>(
      { Subnets: [sdkSubnet('subnet-1', 8000)], NextToken: 'next', $metadata: {} },
      { Subnets: [sdkSubnet('subnet-2', 3)], $metadata: {} },
    );
    ec2.on(DescribeSubnetsCommand).callsFake(pages.answer);

    // Act
    const subnets = await new Ec2Adapter(client).describeSubnets(['subnet-1', 'subnet-2', 'subnet-1', 'subnet-gone']);

    // Assess
    expect(subnets).toEqual([
      {
        id: 'subnet-1',
        vpcId: 'vpc-0c2e8a4f7b1d93e56',
        availabilityZone: 'us-east-1a',
        availabilityZoneId: 'use1-az4',
        cidrBlock: '10.59.32.0/19',
        availableIpAddressCount: 8000,
        ipv6Native: false,
        mapPublicIpOnLaunch: false,
        state: 'available',
        tags: { 'karpenter.sh/discovery': 'demo' },
      },
      expect.objectContaining({ id: 'subnet-2', availableIpAddressCount: 3 }),
    ]);
    expect(pages.inputs).toEqual([
      { Filters: [{ Name: 'subnet-id', Values: ['subnet-1', 'subnet-2', 'subnet-gone'] }], MaxResults: 1000 },
      { Filters: [{ Name: 'subnet-id', Values: ['subnet-1', 'subnet-2', 'subnet-gone'] }], MaxResults: 1000, NextToken: 'next' },
    ]);
  });

  it('asks nothing for no ids, and 200 ids per filter beyond that', async () => {
    ec2.on(DescribeSubnetsCommand).resolves({ Subnets: [] });
    const adapter = new Ec2Adapter(client);

    expect(await adapter.describeSubnets([])).toEqual([]);
    expect(ec2.commandCalls(DescribeSubnetsCommand)).toHaveLength(0);

    await adapter.describeSubnets(Array.from({ length: 201 }, (_, i) => `subnet-${i}`));
    expect(ec2.commandCalls(DescribeSubnetsCommand).map((c) => c.args[0].input.Filters?.[0]?.Values?.length)).toEqual([200, 1]);
  });

  it('a denied call is a SourceError naming DescribeSubnets', async () => {
    ec2
      .on(DescribeSubnetsCommand)
      .rejects(ec2Error('UnauthorizedOperation', 'You are not authorized to perform this operation.'));

    await expect(new Ec2Adapter(client).describeSubnets(['subnet-1'])).rejects.toMatchObject({
      code: 'UnauthorizedOperation',
      summary: 'DescribeSubnets failed: UnauthorizedOperation: You are not authorized to perform this operation.',
    });
  });
});
