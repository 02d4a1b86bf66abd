import {
  DescribeInstanceTypesCommand,
  EC2Client,
  type DescribeInstanceTypesCommandInput,
  type DescribeInstanceTypesCommandOutput,
  type InstanceTypeInfo as SdkInstanceTypeInfo,
} from '@aws-sdk/client-ec2';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { Ec2Adapter, INSTANCE_TYPE_PAGE_SIZE } from '../../../src/adapters/aws/ec2.ts';
import { InstanceTypeCache, INSTANCE_TYPES_TTL_MS } from '../../../src/adapters/aws/instance-type-cache.ts';
import { SourceError } from '../../../src/ports/errors.ts';
import { G5_XLARGE_ITEM, M5_LARGE_ITEM } from '../../factories/instance-type-items.ts';
import { ec2Error, pagesOf } from './sdk-fixtures.ts';

// Every EC2Client of this file, whatever its region.
const ec2 = mockClient(EC2Client);
afterEach(() => ec2.reset());

const clientIn = (region: string) =>
  new EC2Client({ region, credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'not-a-secret' } });
const M5 = M5_LARGE_ITEM as SdkInstanceTypeInfo;
const G5 = G5_XLARGE_ITEM as SdkInstanceTypeInfo;
const calls = () => ec2.commandCalls(DescribeInstanceTypesCommand).length;

describe('Ec2Adapter.describeInstanceTypes', () => {
  it('reads every page, 100 types a page, through the AWS CLI reader; an item it cannot read is named by its place', async () => {
    // Prepare
    const { VCpuInfo: _vcpus, ...noVcpus } = { ...G5, InstanceType: 'g5.2xlarge' as const };
    const pages = pagesOf<DescribeInstanceTypesCommandInput, DescribeInstanceTypesCommandOutput>(
      { InstanceTypes: [M5], NextToken: 'page-2', $metadata: {} },
      { InstanceTypes: [G5, noVcpus], $metadata: {} },
    );
    ec2.on(DescribeInstanceTypesCommand).callsFake(pages.answer);
    const adapter = new Ec2Adapter(clientIn('us-east-1'), { instanceTypeCache: new InstanceTypeCache() });

    // Act
    const { instanceTypes: types, rejected } = await adapter.describeInstanceTypes();

    // Assess
    expect(pages.inputs).toEqual([{ MaxResults: INSTANCE_TYPE_PAGE_SIZE }, { MaxResults: 100, NextToken: 'page-2' }]);
    expect(types.map((t) => t.name)).toEqual(['m5.large', 'g5.xlarge']);
    expect(rejected).toEqual(['InstanceTypes[2] (g5.2xlarge)']);
    expect(types[1]).toMatchObject({ vcpus: 4, gpu: { name: 'A10G', count: 1 }, localNvmeGB: 250 });
  });

  it('two scans in one region make one listing; two regions make two', async () => {
    // Prepare
    ec2.on(DescribeInstanceTypesCommand).resolves({ InstanceTypes: [M5] });
    const cache = new InstanceTypeCache();
    const scan = (region: string) => new Ec2Adapter(clientIn(region), { instanceTypeCache: cache }).describeInstanceTypes();

    // Act
    const [first, second] = [await scan('us-east-1'), await scan('us-east-1')];
    const inOneRegion = calls();
    await scan('eu-west-1');

    // Assess
    expect(first).toEqual(second);
    expect(inOneRegion).toBe(1);
    expect(calls()).toBe(2);
  });

  it('the process-wide cache serves adapters built without one (a warm Lambda builds one per invocation)', async () => {
    // Prepare: a region no other test of this file uses, so the module's cache starts empty for it
    ec2.on(DescribeInstanceTypesCommand).resolves({ InstanceTypes: [M5] });

    // Act
    await new Ec2Adapter(clientIn('ap-southeast-7')).describeInstanceTypes();
    await new Ec2Adapter(clientIn('ap-southeast-7')).describeInstanceTypes();

    // Assess
    expect(calls()).toBe(1);
  });

  it('lists again once the TTL has passed, and concurrent scans share the listing in flight', async () => {
    // Prepare
    ec2.on(DescribeInstanceTypesCommand).resolves({ InstanceTypes: [M5] });
    let now = 0;
    const adapter = new Ec2Adapter(clientIn('us-east-1'), { instanceTypeCache: new InstanceTypeCache({ now: () => now }) });

    // Act
    await Promise.all([adapter.describeInstanceTypes(), adapter.describeInstanceTypes()]);
    now = INSTANCE_TYPES_TTL_MS - 1;
    await adapter.describeInstanceTypes();
    const withinTtl = calls();
    now = INSTANCE_TYPES_TTL_MS;
    await adapter.describeInstanceTypes();

    // Assess
    expect(withinTtl).toBe(1);
    expect(calls()).toBe(2);
  });

  it('keeps a bounded number of regions: the oldest is listed again', async () => {
    // Prepare
    ec2.on(DescribeInstanceTypesCommand).resolves({ InstanceTypes: [M5] });
    const cache = new InstanceTypeCache({ maxRegions: 2 });
    const scan = (region: string) => new Ec2Adapter(clientIn(region), { instanceTypeCache: cache }).describeInstanceTypes();

    // Act
    for (const region of ['us-east-1', 'us-west-2', 'eu-west-1', 'eu-west-1', 'us-east-1']) await scan(region);

    // Assess: us-east-1 left when eu-west-1 came
    expect(calls()).toBe(4);
  });

  it('a denied listing is a SourceError, and is not kept: the next scan asks again', async () => {
    // Prepare
    ec2
      .on(DescribeInstanceTypesCommand)
      .rejectsOnce(ec2Error('UnauthorizedOperation', 'You are not authorized to perform this operation.'))
      .resolves({ InstanceTypes: [M5] });
    const adapter = new Ec2Adapter(clientIn('us-east-1'), { instanceTypeCache: new InstanceTypeCache() });

    // Act
    const denied = await adapter.describeInstanceTypes().catch((error: unknown) => error);
    const { instanceTypes: types } = await adapter.describeInstanceTypes();

    // Assess
    expect(denied).toBeInstanceOf(SourceError);
    expect((denied as SourceError).message).toContain('DescribeInstanceTypes failed: UnauthorizedOperation');
    expect(types.map((t) => t.name)).toEqual(['m5.large']);
    expect(calls()).toBe(2);
  });
});
