import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ClusterSnapshot, SourceName } from '../../../../src/domain/snapshot.ts';
import { readAwsCliOutput } from '../../../../src/snapshot/aws-cli.ts';
import { loadSnapshot, snapshotFromFiles } from '../../../../src/snapshot/load.ts';
import { isRecord } from '../../../../src/domain/shape.ts';
import { awsCliDocuments, describeCluster } from '../../../../src/snapshot/write/aws-cli-shape.ts';
import { cluster, instance, snapshotOf } from '../../../factories/aws.ts';
import { BUNDLED_ROWS } from '../../../../src/domain/bundled-instance-types.ts';
import { decodeRow } from '../../../../src/domain/instance-type-rows.ts';
import type { InstanceTypeInfo } from '../../../../src/domain/instance-types.ts';

const EXAMPLES = new URL('../../../../examples/', import.meta.url);
const exampleNames = readdirSync(EXAMPLES, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name);

const AWS_SOURCES: readonly SourceName[] = [
  'instances',
  'cluster',
  'fargateprofiles',
  'accessentries',
  'launchtemplates',
  'instanceprofiles',
  'subnets',
  'instancetypes',
];

/** What a snapshot knows about AWS. */
function awsPart(snapshot: ClusterSnapshot) {
  return {
    captured: AWS_SOURCES.filter((s) => snapshot.captured.has(s)),
    gaps: snapshot.gaps.filter((g) => AWS_SOURCES.includes(g.source)),
    cluster: snapshot.cluster,
    instances: snapshot.instances,
    fargateProfiles: snapshot.fargateProfiles,
    accessEntries: snapshot.accessEntries,
    launchTemplates: snapshot.launchTemplates,
    instanceProfiles: snapshot.instanceProfiles,
    subnets: snapshot.subnets,
    instanceTypes: snapshot.instanceTypes,
  };
}

function readBack(snapshot: ClusterSnapshot, form: 'text' | 'json' = 'text'): ClusterSnapshot {
  const files = awsCliDocuments(snapshot).map((d) => ({
    path: d.name,
    text: form === 'text' || typeof d.json === 'string' ? d.text : JSON.stringify(d.json, null, 2),
  }));
  return snapshotFromFiles(files).snapshot;
}

describe('awsCliDocuments: the AWS sources of every example read back the same', () => {
  it.each(exampleNames)('%s', async (name) => {
    // Prepare
    const { snapshot } = await loadSnapshot([new URL(name, EXAMPLES).pathname]);

    // Act
    const fromText = readBack(snapshot);
    const fromJson = readBack(snapshot, 'json');

    // Assess
    expect(awsPart(fromText)).toEqual(awsPart(snapshot));
    expect(awsPart(fromJson)).toEqual(awsPart(snapshot));
  });

  it('covers every AWS source across the examples', async () => {
    const captured = new Set<SourceName>();
    for (const name of exampleNames) {
      const { snapshot } = await loadSnapshot([new URL(name, EXAMPLES).pathname]);
      for (const source of AWS_SOURCES) if (snapshot.captured.has(source)) captured.add(source);
    }
    // Fargate profiles and access entries from the examples, the rest from the unit cases below;
    // no example holds instance types (a region's are about 6 MB): the bundled table's are written below.
    expect([...captured].sort()).toEqual(AWS_SOURCES.filter((s) => s !== 'instancetypes').sort());
  });
});

describe('awsCliDocuments: records the examples do not hold', () => {
  it('writes every instance field and state, Auto Mode, endpoint access and empty sources ("captured, none exist")', () => {
    // Prepare
    const snapshot = snapshotOf({
      cluster: cluster({
        autoMode: true,
        certificateAuthority: 'LS0t',
        tags: { team: 'platform' },
        endpointPublicAccess: false,
        endpointPrivateAccess: true,
        vpcId: 'vpc-0a1b2c3d4e5f60001',
        clusterSecurityGroupId: 'sg-0c1d2e3f4a5b60001',
      }),
      instances: [instance({ id: 'i-1', state: 'shutting-down' }), instance({ id: 'i-2', state: 'weird' })],
      fargateProfiles: [],
      accessEntries: [],
      launchTemplates: [],
      instanceProfiles: [],
      subnets: [],
      instanceTypes: [],
    });

    // Act
    const back = readBack(snapshot);

    // Assess
    expect(awsPart(back)).toEqual(awsPart(snapshot));
    expect(back.captured).toEqual(new Set(AWS_SOURCES));
  });

  it('keeps profiles and entries that were only listed as only listed', () => {
    const snapshot = snapshotOf({
      fargateProfiles: [{ name: 'karpenter', selectors: [], described: false }],
      accessEntries: [{ principalArn: 'arn:aws:iam::069057294951:role/node', described: false }],
    });

    expect(awsPart(readBack(snapshot))).toEqual(awsPart(snapshot));
  });

  it('writes a deleted cluster as the CLI error the loader reads as "gone"', () => {
    // Prepare
    const snapshot = snapshotOf({ cluster: { name: 'platform-eks-dev', gone: true } });

    // Act
    const [document] = awsCliDocuments(snapshot);
    const back = readBack(snapshot);

    // Assess
    expect(document?.name).toBe('describe-cluster.txt');
    expect(document?.text).toContain(
      'An error occurred (ResourceNotFoundException) when calling the DescribeCluster operation: No cluster found for name: platform-eks-dev.',
    );
    expect(back.cluster).toEqual({ name: 'platform-eks-dev', gone: true });
  });

  it('writes a gap on an AWS source as the CLI error, which reads back as the same gap', () => {
    // Prepare
    const snapshot = snapshotOf({ cluster: cluster() });
    snapshot.gaps.push(
      {
        source: 'instances',
        error: 'DescribeInstances failed: UnauthorizedOperation: You are not authorized to perform this operation.',
      },
      {
        source: 'instanceprofiles',
        error: 'ListInstanceProfileTags failed: AccessDenied: User: x is not authorized to perform: iam:ListInstanceProfileTags',
      },
      { source: 'accessentries', error: 'only part was captured: the output ends with nextToken' },
    );

    // Act
    const back = readBack(snapshot);

    // Assess: the tags call is filed under the listing it belongs to; a truncation is no CLI error
    expect(back.gaps).toEqual([
      {
        source: 'instances',
        error: 'DescribeInstances failed: UnauthorizedOperation: You are not authorized to perform this operation.',
      },
      {
        source: 'instanceprofiles',
        error: 'ListInstanceProfiles failed: AccessDenied: User: x is not authorized to perform: iam:ListInstanceProfileTags',
      },
    ]);
    expect(back.captured.has('instances')).toBe(false);
  });

  it('writes instance types as describe-instance-types: every type of the bundled table reads back the same', () => {
    // Prepare: GPUs, Neuron devices, NVMe storage, bare metal without a hypervisor, i386 and Macs among them
    const instanceTypes = BUNDLED_ROWS.map(decodeRow).filter((t): t is InstanceTypeInfo => t !== undefined);
    const snapshot = snapshotOf({ instanceTypes });

    // Act
    const documents = awsCliDocuments(snapshot);
    const back = readBack(snapshot);

    // Assess
    expect(documents.map((d) => d.name)).toEqual(['instance-types.json']);
    expect(
      instanceTypes.some((t) => t.gpu) && instanceTypes.some((t) => t.neuron) && instanceTypes.some((t) => t.hypervisor === ''),
    ).toBe(true);
    expect(back.instanceTypes).toEqual(instanceTypes);
    expect(back.captured).toEqual(new Set(['instancetypes']));
  });

  it('writes a denied DescribeInstanceTypes as the CLI error, which reads back as the same gap', () => {
    const snapshot = snapshotOf({});
    const error = 'DescribeInstanceTypes failed: UnauthorizedOperation: You are not authorized to perform this operation.';
    snapshot.gaps.push({ source: 'instancetypes', error });

    expect(readBack(snapshot).gaps).toEqual([{ source: 'instancetypes', error }]);
  });

  it('each single output is one the AWS CLI reader reads on its own', () => {
    const document = describeCluster(cluster());

    expect(isRecord(document) && readAwsCliOutput(document)).toEqual([{ source: 'cluster', cluster: cluster() }]);
  });
});
