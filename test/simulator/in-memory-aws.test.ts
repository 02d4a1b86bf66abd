import { describe, expect, it } from 'vitest';
import type { ClusterSnapshot } from '../../src/domain/snapshot.ts';
import { SourceError } from '../../src/ports/errors.ts';
import { awsError, inMemoryAws } from '../../src/simulator/in-memory-aws.ts';
import { simulatedInstanceTypes } from '../../src/simulator/instance-types.ts';
import { loadSnapshot } from '../../src/snapshot/load.ts';
import { cluster, instance, instanceProfile, snapshotOf, subnet } from '../factories/aws.ts';

const examples = new URL('../../examples/', import.meta.url).pathname;

async function example(name: string): Promise<ClusterSnapshot> {
  return (await loadSnapshot([`${examples}${name}`])).snapshot;
}

function fleet(): ClusterSnapshot {
  return snapshotOf({
    cluster: cluster(),
    instances: [
      instance({ id: 'i-running' }),
      instance({ id: 'i-stopped', state: 'stopped' }),
      instance({ id: 'i-other', cluster: 'staging' }),
      instance({ id: 'i-legacy', cluster: null, tags: { 'kubernetes.io/cluster/demo': 'owned' } }),
      instance({ id: 'i-no-pool', nodePool: null }),
    ],
    launchTemplates: [
      { id: 'lt-new', name: 'karpenter.k8s.aws/1', tags: { 'eks:eks-cluster-name': 'demo' } },
      { id: 'lt-old', name: 'karpenter.k8s.aws/2', tags: { 'karpenter.k8s.aws/cluster': 'demo' } },
      { id: 'lt-staging', name: 'karpenter.k8s.aws/3', tags: { 'eks:eks-cluster-name': 'staging' } },
    ],
    instanceProfiles: [
      instanceProfile({ name: 'demo_1', role: 'KarpenterNodeRole-demo' }),
      instanceProfile({ name: 'demo_2', path: '/karpenter/us-east-1/demo/uid/' }),
    ],
    fargateProfiles: [],
    accessEntries: [],
  });
}

describe('inMemoryAws: queries as the real adapter answers them', () => {
  it('returns only instances tagged for the cluster (either tag), like the two EC2 queries', async () => {
    // Prepare
    const aws = inMemoryAws(await example('orphans-after-destroy'));

    // Act
    const ids = (await aws.ec2.describeInstances({ clusterName: 'platform-eks-dev' })).map((i) => i.id).sort();

    // Assess: the managed node group's instance carries the legacy tag; the staging one neither
    expect(ids).toEqual([
      'i-0a3f1c9e8b7d6a501',
      'i-0b7e2d4f6a8c9e102',
      'i-0c5d8a1e3f7b94263',
      'i-0d9f2b6e4a1c83575',
      'i-0f00d5ba5e0b1e7a2',
    ]);
    expect(aws.region).toBe('eu-central-1');
  });

  it('combines cluster, instance ids and tag key, and leaves out ids it does not know', async () => {
    const aws = inMemoryAws(fleet());

    const found = await aws.ec2.describeInstances({
      clusterName: 'demo',
      tagKey: 'karpenter.sh/nodepool',
      instanceIds: ['i-legacy', 'i-no-pool', 'i-other', 'i-running', 'i-unknown'],
    });

    expect(found.map((i) => i.id)).toEqual(['i-running', 'i-legacy']);
  });

  it('finds the instances an instance profile is attached to, whoever owns them, like the iam-instance-profile.arn filter', async () => {
    const arn = 'arn:aws:iam::123456789012:instance-profile/karpenter/us-east-1/demo/uid/demo_2';
    const snapshot = fleet();
    snapshot.instances.push({ ...instance({ id: 'i-payments', cluster: null, nodePool: null }), iamInstanceProfileArn: arn });
    const aws = inMemoryAws(snapshot);

    const found = await aws.ec2.describeInstances({ instanceProfileArns: [arn] });

    expect(found.map((i) => i.id)).toEqual(['i-payments']);
  });

  it("finds the cluster's launch templates under either tag and deletes them once", async () => {
    // Prepare
    const aws = inMemoryAws(fleet());

    // Act
    const templates = await aws.ec2.describeLaunchTemplates('demo');
    const deleted = [await aws.ec2.deleteLaunchTemplate('lt-new'), await aws.ec2.deleteLaunchTemplate('lt-new')];

    // Assess
    expect(templates.map((t) => t.id)).toEqual(['lt-new', 'lt-old']);
    expect(deleted).toEqual([true, false]);
    expect((await aws.ec2.describeLaunchTemplates('demo')).map((t) => t.id)).toEqual(['lt-old']);
  });

  it("describes exactly the subnets asked for (unknown ids absent, as the adapter's filter does); uncaptured, it is denied", async () => {
    // Prepare
    const aws = inMemoryAws(
      snapshotOf({ subnets: [subnet({ id: 'subnet-a' }), subnet({ id: 'subnet-b', zone: 'us-east-1b' })] }),
    );
    const uncaptured = inMemoryAws(snapshotOf({ instances: [] }));

    // Act
    const found = await aws.ec2.describeSubnets(['subnet-b', 'subnet-gone']);
    const denied = await uncaptured.ec2.describeSubnets(['subnet-a']).catch((e: unknown) => e);

    // Assess
    expect(found.map((s) => s.id)).toEqual(['subnet-b']);
    expect(aws.callsTo('DescribeSubnets')).toEqual([
      { operation: 'DescribeSubnets', input: { subnetIds: ['subnet-b', 'subnet-gone'] } },
    ]);
    expect(denied).toMatchObject({
      code: 'NotInCapture',
      summary: 'DescribeSubnets failed: AccessDenied (simulated): subnets not in the capture',
    });
  });

  it("answers DescribeInstanceTypes with the capture's types, else common ones; a failure the capture recorded fails again", async () => {
    // Prepare
    const gpu = {
      ...simulatedInstanceTypes()[0]!,
      name: 'g6.xlarge',
      gpu: { name: 'L4', manufacturer: 'NVIDIA', count: 1, memoryMiB: 22888 },
    };
    const captured = inMemoryAws(snapshotOf({ instanceTypes: [gpu] }));
    const uncaptured = inMemoryAws(snapshotOf({ instances: [] }));
    const gapped = snapshotOf({});
    const error = 'DescribeInstanceTypes failed: UnauthorizedOperation: You are not authorized to perform this operation.';
    gapped.gaps.push({ source: 'instancetypes', error });

    // Act
    const fromCapture = (await captured.ec2.describeInstanceTypes()).instanceTypes;
    const { instanceTypes: common } = await uncaptured.ec2.describeInstanceTypes();
    const denied = await inMemoryAws(gapped)
      .ec2.describeInstanceTypes()
      .catch((e: unknown) => e);

    // Assess
    expect(fromCapture).toEqual([gpu]);
    expect(common.map((t) => t.name)).toEqual(expect.arrayContaining(['m5.large', 'm7g.large', 'g5.xlarge', 'inf2.xlarge']));
    expect(common.find((t) => t.name === 'm5.large')).toMatchObject({ vcpus: 2, memoryMiB: 8192, architectures: ['x86_64'] });
    expect(captured.callsTo('DescribeInstanceTypes')).toEqual([{ operation: 'DescribeInstanceTypes', input: {} }]);
    expect(denied).toMatchObject({ code: 'UnauthorizedOperation', summary: error });
  });

  it("answers DescribeSpotPriceHistory with the capture's prices only; none captured, an empty list, never invented prices", async () => {
    const price = { instanceType: 'm5.large', availabilityZone: 'us-east-1a', usd: 0.041, productDescription: 'Linux/UNIX' };
    const captured = inMemoryAws(snapshotOf({ spotPrices: [price] }));
    const uncaptured = inMemoryAws(snapshotOf({ instances: [] }));

    expect(await captured.ec2.describeSpotPrices(['m5.large', 'c5.large'])).toEqual([price]);
    expect(await uncaptured.ec2.describeSpotPrices(['m5.large', 'c5.large'])).toEqual([]);
    expect(uncaptured.callsTo('DescribeSpotPriceHistory')).toEqual([
      { operation: 'DescribeSpotPriceHistory', input: { instanceTypes: ['c5.large', 'm5.large'] } },
    ]);
  });

  it('the healthy example has two subnets with thousands of free addresses', async () => {
    const aws = inMemoryAws(await example('healthy'));

    const subnets = await aws.ec2.describeSubnets(['subnet-0e4b7a2c9d1f38a65', 'subnet-07d2f9c4a1e6b3058']);

    expect(subnets.map((s) => [s.availabilityZone, (s.availableIpAddressCount ?? 0) > 1000])).toEqual([
      ['us-east-1a', true],
      ['us-east-1b', true],
    ]);
  });

  it('lists instance profiles under a path prefix; a profile with a role cannot be deleted until the role is removed', async () => {
    // Prepare
    const aws = inMemoryAws(fleet());

    // Act
    const karpenterPath = await aws.iam.listInstanceProfiles('/karpenter/');
    const conflict = await aws.iam.deleteInstanceProfile('demo_1').catch((e: unknown) => e);
    await aws.iam.removeRoleFromInstanceProfile('demo_1', 'KarpenterNodeRole-demo');
    await aws.iam.removeRoleFromInstanceProfile('demo_1', 'KarpenterNodeRole-demo');
    const deleted = [await aws.iam.deleteInstanceProfile('demo_1'), await aws.iam.deleteInstanceProfile('demo_1')];

    // Assess
    expect(karpenterPath.map((p) => p.name)).toEqual(['demo_2']);
    expect(conflict).toMatchObject({ name: 'SourceError', code: 'DeleteConflict' });
    expect(deleted).toEqual([true, false]);
    expect((await aws.iam.listInstanceProfiles()).map((p) => p.name)).toEqual(['demo_2']);
  });

  it('describes the cluster, and one that is gone as gone; EKS calls about a gone cluster fail as AWS fails them', async () => {
    // Prepare
    const live = inMemoryAws(fleet());
    const gone = inMemoryAws(snapshotOf({ cluster: { name: 'demo', gone: true }, fargateProfiles: [] }));

    // Act + Assess
    expect(await live.eks.describeCluster('demo')).toMatchObject({ name: 'demo', status: 'ACTIVE' });
    expect(await live.eks.describeCluster('elsewhere')).toEqual({ name: 'elsewhere', gone: true });
    expect(await live.eks.listClusters()).toEqual(['demo']);
    expect(await gone.eks.describeCluster('demo')).toEqual({ name: 'demo', gone: true });
    expect(await gone.eks.listClusters()).toEqual([]);
    await expect(gone.eks.fargateProfiles('demo')).rejects.toMatchObject({
      code: 'ResourceNotFoundException',
      summary: 'ListFargateProfiles failed: ResourceNotFoundException: No cluster found for name: demo.',
    });
  });

  it('never changes the snapshot it was seeded from, and hands out copies', async () => {
    // Prepare
    const snapshot = fleet();
    const aws = inMemoryAws(snapshot);

    // Act
    await aws.ec2.terminateInstances(['i-running']);
    const [copy] = await aws.ec2.describeInstances({ instanceIds: ['i-stopped'] });
    copy!.tags.changed = 'yes';

    // Assess
    expect(snapshot.instances.find((i) => i.id === 'i-running')?.state).toBe('running');
    expect(aws.state.instances.get('i-stopped')?.tags.changed).toBeUndefined();
  });
});

describe('inMemoryAws: termination', () => {
  it('moves running and stopped instances to shutting-down; the next describe shows them terminated', async () => {
    // Prepare
    const aws = inMemoryAws(fleet());

    // Act
    const results = await aws.ec2.terminateInstances(['i-running', 'i-stopped', 'i-unknown']);
    const after = await aws.ec2.describeInstances({ instanceIds: ['i-running', 'i-stopped'] });

    // Assess
    expect(results).toEqual([
      { instanceId: 'i-running', currentState: 'shutting-down' },
      { instanceId: 'i-stopped', currentState: 'shutting-down' },
      { instanceId: 'i-unknown', error: "InvalidInstanceID.NotFound: The instance ID 'i-unknown' does not exist" },
    ]);
    expect(after.map((i) => [i.id, i.state])).toEqual([
      ['i-running', 'terminated'],
      ['i-stopped', 'terminated'],
    ]);
    expect(await aws.ec2.terminateInstances(['i-running'])).toEqual([{ instanceId: 'i-running', currentState: 'terminated' }]);
  });

  it("with termination: 'advance', instances stay shutting-down until advance()", async () => {
    // Prepare
    const aws = inMemoryAws(fleet(), { termination: 'advance' });
    await aws.ec2.terminateInstances(['i-running']);

    // Act
    const before = await aws.ec2.describeInstances({ instanceIds: ['i-running'] });
    aws.advance();
    const after = await aws.ec2.describeInstances({ instanceIds: ['i-running'] });

    // Assess
    expect(before[0]?.state).toBe('shutting-down');
    expect(after[0]?.state).toBe('terminated');
  });

  it('lets a test change tags between the scan and the termination check', async () => {
    // Prepare
    const aws = inMemoryAws(fleet());
    expect(
      (await aws.ec2.describeInstances({ clusterName: 'demo', tagKey: 'karpenter.sh/nodepool' })).map((i) => i.id),
    ).toContain('i-running');

    // Act
    aws.updateInstance('i-running', (i) => {
      delete i.tags['karpenter.sh/nodepool'];
      i.tags['eks:nodegroup-name'] = 'system';
    });
    const recheck = await aws.ec2.describeInstances({ instanceIds: ['i-running'] });

    // Assess
    expect(recheck[0]?.tags).toMatchObject({ 'eks:nodegroup-name': 'system' });
    expect(recheck[0]?.tags['karpenter.sh/nodepool']).toBeUndefined();
  });
});

describe('inMemoryAws: faults and calls', () => {
  it('fails an operation once, N times or always, with the adapter’s SourceError', async () => {
    // Prepare
    const aws = inMemoryAws(fleet());
    aws.faults.fail('DescribeInstances', {
      error: { code: 'RequestLimitExceeded', message: 'Request limit exceeded.' },
      times: 2,
    });
    aws.faults.fail('ListAccessEntries', { error: awsError('AccessDeniedException', 'not authorized'), times: 'always' });

    // Act
    const outcomes = [];
    for (let i = 0; i < 3; i++)
      outcomes.push(
        await aws.ec2.describeInstances({ clusterName: 'demo' }).then(
          () => 'ok',
          (e: SourceError) => e.summary,
        ),
      );
    const denied = await Promise.allSettled([aws.eks.accessEntries('demo'), aws.eks.accessEntries('demo')]);

    // Assess
    expect(outcomes).toEqual([
      'DescribeInstances failed: RequestLimitExceeded: Request limit exceeded.',
      'DescribeInstances failed: RequestLimitExceeded: Request limit exceeded.',
      'ok',
    ]);
    expect(denied.map((d) => d.status)).toEqual(['rejected', 'rejected']);
  });

  it('fails TerminateInstances for one instance only, the others go through', async () => {
    // Prepare
    const aws = inMemoryAws(fleet());
    aws.faults.fail('TerminateInstances', {
      instanceId: 'i-stopped',
      error: { code: 'OperationNotPermitted', message: "The instance 'i-stopped' may not be terminated." },
    });

    // Act
    const results = await aws.ec2.terminateInstances(['i-running', 'i-stopped']);

    // Assess
    expect(results).toEqual([
      { instanceId: 'i-running', currentState: 'shutting-down' },
      { instanceId: 'i-stopped', error: "OperationNotPermitted: The instance 'i-stopped' may not be terminated." },
    ]);
    expect(aws.state.instances.get('i-stopped')?.state).toBe('stopped');
    expect((await aws.ec2.terminateInstances(['i-stopped']))[0]?.currentState).toBe('shutting-down');
  });

  it('records every call with its input', async () => {
    // Prepare
    const aws = inMemoryAws(fleet());

    // Act
    await aws.ec2.describeInstances({ clusterName: 'demo' });
    await aws.ec2.terminateInstances(['i-running']);
    await aws.ec2.deleteLaunchTemplate('lt-old');
    await aws.iam.listInstanceProfiles();

    // Assess
    expect(aws.calls).toEqual([
      { operation: 'DescribeInstances', input: { query: { clusterName: 'demo' } } },
      { operation: 'TerminateInstances', input: { instanceIds: ['i-running'] } },
      { operation: 'DeleteLaunchTemplate', input: { launchTemplateId: 'lt-old' } },
      { operation: 'ListInstanceProfiles', input: {} },
    ]);
    expect(aws.callsTo('TerminateInstances')).toHaveLength(1);
  });
});

describe('inMemoryAws: what the capture did not hold', () => {
  it('fails a source that was not captured, saying so', async () => {
    // Prepare
    const aws = inMemoryAws(snapshotOf({ cluster: cluster() }));

    // Act
    const failure = await aws.ec2.describeLaunchTemplates('demo').catch((e: unknown) => e);

    // Assess
    expect(failure).toBeInstanceOf(SourceError);
    expect(failure).toMatchObject({
      code: 'NotInCapture',
      summary: 'DescribeLaunchTemplates failed: AccessDenied (simulated): launchtemplates not in the capture',
    });
  });

  it("fails a source captured with a gap with the gap's own text, so the live scan reports the same gap", async () => {
    // Prepare
    const snapshot = snapshotOf({ cluster: cluster() });
    const error =
      'ListAccessEntries failed: AccessDeniedException: User: arn:aws:sts::069057294951:assumed-role/ci/x is not authorized to perform: eks:ListAccessEntries';
    snapshot.gaps.push({ source: 'accessentries', error });
    const aws = inMemoryAws(snapshot);

    // Act
    const failure = await aws.eks.accessEntries('demo').catch((e: unknown) => e);

    // Assess
    expect(failure).toMatchObject({ name: 'SourceError', code: 'AccessDeniedException', summary: error });
  });
});
