/**
 * The inputs of the second wave of checks: PodDisruptionBudgets, VolumeAttachments and
 * `aws ec2 describe-subnets`, read like every other capture file (by content, and by name for
 * empty lists), checked field by field, and never required by the checks that came before.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadSnapshot } from '../../../src/snapshot/load.ts';
import { subnet } from '../../factories/aws.ts';
import { pdb, volumeAttachment } from '../../factories/kube.ts';
import { captureDir, EMPTY_LIST_JSON, EMPTY_LIST_YAML, kubeList, removeCaptureDirs } from './capture-dir.ts';

afterEach(removeCaptureDirs);

/** `aws ec2 describe-subnets` as the CLI prints it (with fields no check reads). */
const DESCRIBE_SUBNETS = {
  Subnets: [
    {
      AvailabilityZone: 'us-east-1a',
      AvailabilityZoneId: 'use1-az4',
      AvailableIpAddressCount: 12,
      CidrBlock: '10.59.32.0/24',
      DefaultForAz: false,
      MapPublicIpOnLaunch: false,
      State: 'available',
      SubnetId: 'subnet-0e4b7a2c9d1f38a65',
      VpcId: 'vpc-0c2e8a4f7b1d93e56',
      OwnerId: '069057294951',
      Ipv6CidrBlockAssociationSet: [
        {
          AssociationId: 'subnet-cidr-assoc-1',
          Ipv6CidrBlock: '2600:1f18:4c2:9a00::/64',
          Ipv6CidrBlockState: { State: 'associated' },
        },
        {
          AssociationId: 'subnet-cidr-assoc-2',
          Ipv6CidrBlock: '2600:1f18:4c2:9b00::/64',
          Ipv6CidrBlockState: { State: 'disassociated' },
        },
      ],
      Tags: [{ Key: 'karpenter.sh/discovery', Value: 'aws-2026-eks' }],
      Ipv6Native: false,
    },
    { SubnetId: 'subnet-07d2f9c4a1e6b3058', AvailabilityZone: 'us-east-1b', Ipv6Native: true, MapPublicIpOnLaunch: true },
  ],
};

describe('loadSnapshot: PodDisruptionBudgets, VolumeAttachments, subnets', () => {
  it('reads `kubectl get pdb -A`, `kubectl get volumeattachments` and `aws ec2 describe-subnets` into their sources', async () => {
    // Prepare
    const budget = pdb({
      name: 'web',
      namespace: 'shop',
      matchLabels: { app: 'web' },
      minAvailable: '50%',
      disruptionsAllowed: 0,
    });
    const attachment = volumeAttachment({
      name: 'csi-7f3e',
      nodeName: 'ip-10-59-42-222.ec2.internal',
      persistentVolumeName: 'pvc-1',
    });
    const dir = await captureDir({
      'pdb.json': kubeList([budget]),
      'volumeattachments.yaml': stringify(kubeList([attachment])),
      'subnets.json': DESCRIBE_SUBNETS,
    });

    // Act
    const { snapshot, notices } = await loadSnapshot([dir]);

    // Assess
    expect([...snapshot.captured].sort()).toEqual(['pdbs', 'subnets', 'volumeattachments']);
    expect(snapshot.pdbs).toEqual([budget]);
    expect(snapshot.volumeAttachments).toEqual([attachment]);
    expect(snapshot.subnets).toEqual([
      {
        id: 'subnet-0e4b7a2c9d1f38a65',
        vpcId: 'vpc-0c2e8a4f7b1d93e56',
        availabilityZone: 'us-east-1a',
        availabilityZoneId: 'use1-az4',
        cidrBlock: '10.59.32.0/24',
        availableIpAddressCount: 12,
        ipv6CidrBlocks: ['2600:1f18:4c2:9a00::/64'],
        ipv6Native: false,
        mapPublicIpOnLaunch: false,
        state: 'available',
        tags: { 'karpenter.sh/discovery': 'aws-2026-eks' },
      },
      {
        id: 'subnet-07d2f9c4a1e6b3058',
        availabilityZone: 'us-east-1b',
        ipv6Native: true,
        mapPublicIpOnLaunch: true,
        tags: {},
      },
    ]);
    expect(notices).toEqual([]);
  });

  it('recognises them by content whatever the file is called, in a mixed list too', async () => {
    const dir = await captureDir({
      'a.json': kubeList([
        pdb({ name: 'web', matchLabels: { app: 'web' } }),
        volumeAttachment({ name: 'csi-1', nodeName: 'n', persistentVolumeName: 'pv' }),
      ]),
      'b.json': DESCRIBE_SUBNETS,
      // `--query Subnets` prints the subnets themselves
      'c.json': [subnetOutput('subnet-0f61c8d3b2a4e9705')],
    });

    const { snapshot } = await loadSnapshot([dir]);

    expect(snapshot.pdbs.map((p) => p.metadata?.name)).toEqual(['web']);
    expect(snapshot.volumeAttachments.map((v) => v.metadata?.name)).toEqual(['csi-1']);
    expect(snapshot.subnets.map((s) => s.id).sort()).toEqual([
      'subnet-07d2f9c4a1e6b3058',
      'subnet-0e4b7a2c9d1f38a65',
      'subnet-0f61c8d3b2a4e9705',
    ]);
  });

  it.each([
    ['pdb.json', EMPTY_LIST_JSON, 'pdbs'],
    ['pdbs.yaml', EMPTY_LIST_YAML, 'pdbs'],
    ['poddisruptionbudgets.json', EMPTY_LIST_JSON, 'pdbs'],
    ['pdb.txt', 'No resources found\n', 'pdbs'],
    ['volumeattachments.json', EMPTY_LIST_JSON, 'volumeattachments'],
    ['subnets.json', '{"Subnets": []}\n', 'subnets'],
    ['subnets.json', '[]\n', 'subnets'],
  ])('%s holding no object means "captured, none exist"', async (name, content, source) => {
    const dir = await captureDir({ [name]: content });

    const { snapshot, notices } = await loadSnapshot([dir]);

    expect([...snapshot.captured]).toEqual([source]);
    expect(notices).toEqual([]);
  });

  it('sets aside an object whose field has the wrong type, with a note, and keeps the rest', async () => {
    // Prepare
    const good = pdb({ name: 'web', matchLabels: { app: 'web' } });
    const bad = { ...pdb({ name: 'db', matchLabels: { app: 'db' } }), status: { disruptionsAllowed: 'one' } };
    const badAttachment = {
      ...volumeAttachment({ name: 'csi-2', nodeName: 'n', persistentVolumeName: 'pv' }),
      status: { attached: 'yes' },
    };
    const dir = await captureDir({
      'pdb.json': kubeList([good, bad]),
      'volumeattachments.json': kubeList([badAttachment]),
      'subnets.json': { Subnets: [{ ...subnetOutput('subnet-1'), AvailableIpAddressCount: 'many' }, subnetOutput('subnet-2')] },
    });

    // Act
    const { snapshot, notices } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.pdbs.map((p) => p.metadata?.name)).toEqual(['web']);
    expect(snapshot.volumeAttachments).toEqual([]);
    expect(snapshot.gaps.map((g) => g.source).sort()).toEqual(['pdbs', 'volumeattachments']);
    expect(notices.join('\n')).toContain('PodDisruptionBudget default/db: status.disruptionsAllowed');
    expect(notices.join('\n')).toContain('VolumeAttachment csi-2: status.attached');
    // The AWS CLI reader reads subnets field by field: a count that is no number is left out.
    expect(snapshot.subnets.map((s) => [s.id, s.availableIpAddressCount])).toEqual([
      ['subnet-1', undefined],
      ['subnet-2', 100],
    ]);
  });

  it('a denied `kubectl get pdb` or `aws ec2 describe-subnets` is a gap on its source', async () => {
    const dir = await captureDir({
      'pdb.txt':
        'Error from server (Forbidden): poddisruptionbudgets.policy is forbidden: User "audit" cannot list resource "poddisruptionbudgets" in API group "policy" at the cluster scope\n',
      'subnets.json':
        '\nAn error occurred (UnauthorizedOperation) when calling the DescribeSubnets operation: You are not authorized to perform this operation.\n',
    });

    const { snapshot } = await loadSnapshot([dir]);

    expect(snapshot.gaps.map((g) => g.source).sort()).toEqual(['pdbs', 'subnets']);
    expect(snapshot.captured.size).toBe(0);
  });

  it('a capture without them (as before) captures none of them and asks for nothing', async () => {
    const dir = await captureDir({ 'pods.json': EMPTY_LIST_JSON });

    const { snapshot } = await loadSnapshot([dir]);

    expect([...snapshot.captured]).toEqual(['pods']);
    expect(snapshot.pdbs).toEqual([]);
    expect(snapshot.volumeAttachments).toEqual([]);
    expect(snapshot.subnets).toEqual([]);
    expect(snapshot.gaps).toEqual([]);
  });
});

function subnetOutput(id: string): Record<string, unknown> {
  const s = subnet({ id, free: 100 });
  return {
    SubnetId: s.id,
    VpcId: s.vpcId,
    AvailabilityZone: s.availabilityZone,
    AvailableIpAddressCount: s.availableIpAddressCount,
    Tags: Object.entries(s.tags).map(([Key, Value]) => ({ Key, Value })),
  };
}
