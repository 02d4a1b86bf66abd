import { describe, expect, it } from 'vitest';
import { subnetIpsLow } from '../../../../src/detectors/subnet-ips-low/detector.ts';
import { cidrSize, lowThreshold } from '../../../../src/detectors/karpenter/nodeclass-subnets.ts';
import type { Pod } from '../../../../src/domain/kube.ts';
import { DEFAULT_DETECTION } from '../../../../src/domain/settings.ts';
import type { ClusterSnapshot } from '../../../../src/domain/snapshot.ts';
import { SnapshotIndex } from '../../../../src/domain/snapshot-index.ts';
import { cluster, snapshotOf, subnet } from '../../../factories/aws.ts';
import { ec2NodeClass } from '../../../factories/karpenter.ts';
import { T0, minutesAfter, pod } from '../../../factories/kube.ts';
import { priceBookOf } from '../../../../src/domain/price-book.ts';

const NOW = new Date(minutesAfter(T0, 30));
const A = 'subnet-0a1b2c3d4e5f6000a';
const B = 'subnet-0a1b2c3d4e5f6000b';
const C = 'subnet-0a1b2c3d4e5f6000c';

function detect(snapshot: ClusterSnapshot) {
  return subnetIpsLow.detect({
    snapshot,
    index: new SnapshotIndex(snapshot),
    prices: priceBookOf(snapshot),
    settings: DEFAULT_DETECTION,
    now: NOW,
  });
}

const nodeClassOver = (name: string, ...ids: [string, string][]) =>
  ec2NodeClass({ name, subnets: ids.map(([id, zone]) => ({ id, zone })) });

function awsNodePod(prefixDelegation: string | undefined): Pod {
  const env = prefixDelegation === undefined ? [] : [{ name: 'ENABLE_PREFIX_DELEGATION', value: prefixDelegation }];
  return pod({
    name: 'aws-node-r2m9x',
    namespace: 'kube-system',
    labels: { 'k8s-app': 'aws-node' },
    nodeName: 'ip-10-0-1-10.ec2.internal',
    spec: { containers: [{ name: 'aws-node', env }, { name: 'aws-eks-nodeagent' }] },
  });
}

describe('SUBNET_IPS_LOW: the threshold, max(16, 5% of the CIDR)', () => {
  it('sizes CIDRs and computes the threshold', () => {
    expect([cidrSize('10.0.0.0/24'), cidrSize('10.0.0.0/16'), cidrSize('10.0.0.0/28'), cidrSize('nonsense')]).toEqual([
      256,
      65536,
      16,
      undefined,
    ]);
    expect(lowThreshold(256)).toBe(16);
    expect(lowThreshold(65536)).toBeCloseTo(3276.8);
  });

  it.each([
    ['/24 with exactly 16 free is not low', '10.0.1.0/24', 16, false],
    ['/24 with 15 free is low', '10.0.1.0/24', 15, true],
    ['/16 with 3,277 free (above 5%) is not low', '10.1.0.0/16', 3277, false],
    ['/16 with 3,276 free (below 5%) is low', '10.1.0.0/16', 3276, true],
    ['/16 with 1,000 free is low though a /24 would be fine with that', '10.1.0.0/16', 1000, true],
  ])('%s', (_name, cidr, free, low) => {
    // Prepare
    const s = snapshotOf({
      nodeClasses: [nodeClassOver('default', [A, 'us-east-1a'])],
      subnets: [subnet({ id: A, cidr, free })],
    });

    // Act
    const findings = detect(s);

    // Assess
    expect(findings).toHaveLength(low ? 1 : 0);
    if (low) expect(findings[0]?.severity).toBe('warning');
  });
});

describe('SUBNET_IPS_LOW: one finding per EC2NodeClass', () => {
  it('a /24 with 0 free is critical, names zone, free / size and the zone that still has room', () => {
    // Prepare
    const s = snapshotOf({
      nodeClasses: [nodeClassOver('default', [A, 'us-east-1a'], [B, 'us-east-1b'])],
      subnets: [
        subnet({ id: A, zone: 'us-east-1a', cidr: '10.0.1.0/24', free: 0 }),
        subnet({ id: B, zone: 'us-east-1b', cidr: '10.0.32.0/19', free: 8012 }),
      ],
      cluster: cluster(),
    });

    // Act
    const findings = detect(s);

    // Assess
    expect(findings).toHaveLength(1);
    const f = findings[0];
    expect(f?.severity).toBe('critical');
    expect(f?.resource).toEqual({ kind: 'EC2NodeClass', name: 'default' });
    expect(f?.title).toBe(`EC2NodeClass default: subnet ${A} has no free IP addresses`);
    expect(f?.cause?.code).toBe('FEW_FREE_ADDRESSES');
    expect(f?.cause?.detail).toContain(`${A} (us-east-1a, 10.0.1.0/24): 0 of 256 addresses free`);
    expect(f?.cause?.detail).toContain(`Other zones of EC2NodeClass default still have room: ${B} in us-east-1b (8,012 free)`);
    expect(f?.cause?.detail).toContain('Prefix delegation: not captured');
    expect(f?.counts).toEqual({ objects: 1 });
    expect(f?.remediation?.action).toBe('MANUAL');
    const steps = f?.remediation?.steps ?? [];
    expect(steps[0]).toBe(
      `aws ec2 describe-subnets --subnet-ids ${A} --region us-east-1 --query 'Subnets[].[SubnetId,AvailabilityZone,CidrBlock,AvailableIpAddressCount]' --output table`,
    );
    expect(steps).toContainEqual(
      expect.stringContaining(
        'aws ec2 create-subnet --vpc-id vpc-0a1b2c3d4e5f60001 --availability-zone us-east-1a --cidr-block <unused-cidr> --region us-east-1',
      ),
    );
    expect(steps).toContainEqual(
      expect.stringMatching(
        /^# tag it so EC2NodeClass default selects it: its subnetSelectorTerms are \{"tags":\{"karpenter.sh\/discovery":"demo"\}\}\naws ec2 create-tags --resources <new-subnet-id> --tags Key=karpenter.sh\/discovery,Value=demo --region us-east-1$/,
      ),
    );
    expect(steps).toContainEqual(expect.stringContaining('aws ec2 associate-vpc-cidr-block --vpc-id vpc-0a1b2c3d4e5f60001'));
  });

  it('low but not empty is a warning; several low subnets are listed in one finding, nothing has room', () => {
    // Prepare
    const s = snapshotOf({
      nodeClasses: [nodeClassOver('default', [A, 'us-east-1a'], [B, 'us-east-1b'])],
      subnets: [
        subnet({ id: A, zone: 'us-east-1a', cidr: '10.0.1.0/24', free: 9 }),
        subnet({ id: B, zone: 'us-east-1b', cidr: '10.0.2.0/24', free: 3 }),
      ],
    });

    // Act
    const findings = detect(s);

    // Assess
    expect(findings.map((f) => [f.severity, f.title])).toEqual([
      ['warning', 'EC2NodeClass default: 2 subnets are almost out of IP addresses'],
    ]);
    expect(findings[0]?.cause?.detail).toContain('No other zone of EC2NodeClass default has a subnet with room.');
    expect(findings[0]?.counts).toEqual({ objects: 2 });
    expect(findings[0]?.evidence[0]).toBe(
      `${A} (us-east-1a, 10.0.1.0/24): 9 of 256 addresses free (low below 16: max(16, 5% of the CIDR))`,
    );
  });

  it('each EC2NodeClass gets its own finding, about its own subnets only', () => {
    // Prepare
    const s = snapshotOf({
      nodeClasses: [nodeClassOver('gpu', [B, 'us-east-1b']), nodeClassOver('default', [A, 'us-east-1a'])],
      subnets: [
        subnet({ id: A, cidr: '10.0.1.0/24', free: 0 }),
        subnet({ id: B, zone: 'us-east-1b', cidr: '10.0.2.0/24', free: 2 }),
      ],
    });

    // Act
    const findings = detect(s);

    // Assess
    expect(findings.map((f) => [f.resource.name, f.severity])).toEqual([
      ['default', 'critical'],
      ['gpu', 'warning'],
    ]);
  });

  it('skips IPv6-only subnets, whose IPv4 count is 0 by nature', () => {
    // Prepare
    const s = snapshotOf({
      nodeClasses: [nodeClassOver('ipv6', [A, 'us-east-1a'])],
      subnets: [subnet({ id: A, ipv6Native: true })],
    });

    // Act / Assess
    expect(detect(s)).toEqual([]);
  });

  it('a subnet in status.subnets that describe-subnets did not list is evidence, not a finding of its own', () => {
    // Prepare
    const alone = snapshotOf({ nodeClasses: [nodeClassOver('default', [C, 'us-east-1c'])], subnets: [] });
    const withLow = snapshotOf({
      nodeClasses: [nodeClassOver('default', [A, 'us-east-1a'], [C, 'us-east-1c'])],
      subnets: [subnet({ id: A, cidr: '10.0.1.0/24', free: 0 })],
    });

    // Act / Assess
    expect(detect(alone)).toEqual([]);
    expect(detect(withLow)[0]?.evidence).toContain(
      `${C} is in status.subnets but describe-subnets did not list it (deleted, or outside the VPC captured?)`,
    );
  });

  it('subnets of no EC2NodeClass, or nothing low: no finding', () => {
    const s = snapshotOf({
      nodeClasses: [nodeClassOver('default', [B, 'us-east-1b'])],
      subnets: [subnet({ id: A, cidr: '10.0.1.0/24', free: 0 }), subnet({ id: B, zone: 'us-east-1b', free: 8000 })],
    });

    expect(detect(s)).toEqual([]);
  });
});

describe('SUBNET_IPS_LOW: prefix delegation, as the aws-node pods show it', () => {
  const low = (pods: Pod[] | undefined) =>
    detect(
      snapshotOf({
        nodeClasses: [nodeClassOver('default', [A, 'us-east-1a'])],
        subnets: [subnet({ id: A, cidr: '10.0.1.0/24', free: 12 })],
        ...(pods ? { pods } : {}),
      }),
    )[0];

  it('on: a subnet with fewer than 16 free cannot give a /28 prefix', () => {
    const f = low([awsNodePod('true')]);

    expect(f?.cause?.detail).toContain(`so ${A}, with fewer than 16 free, cannot give a node a prefix at all`);
    expect(f?.evidence).toContain('prefix delegation: on');
  });

  it('off when aws-node does not set it', () => {
    expect(low([awsNodePod(undefined)])?.evidence).toContain('prefix delegation: off');
    expect(low([awsNodePod('false')])?.evidence).toContain('prefix delegation: off');
  });

  it('not captured without aws-node pods (a live scan reads only Pending and controller pods)', () => {
    expect(low([])?.evidence).toContain('prefix delegation: not captured');
    expect(low(undefined)?.evidence).toContain('prefix delegation: not captured');
  });
});

describe('SUBNET_IPS_LOW: steps quote the selector terms', () => {
  it('a hostile tag value arrives as one argument', () => {
    // Prepare
    const nc = ec2NodeClass({
      name: "x';touch PWNED;'",
      subnets: [{ id: A, zone: 'us-east-1a' }],
      subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': "demo'$(touch PWNED)" } }],
    });
    const s = snapshotOf({ nodeClasses: [nc], subnets: [subnet({ id: A, cidr: '10.0.1.0/24', free: 0 })] });

    // Act
    const steps = detect(s)[0]?.remediation?.steps ?? [];

    // Assess
    expect(steps.join('\n')).toContain(`--tags 'Key=karpenter.sh/discovery,Value=demo'\\''$(touch PWNED)'`);
  });

  it('subnets selected by id: the step edits the EC2NodeClass', () => {
    const nc = ec2NodeClass({ name: 'pinned', subnets: [{ id: A, zone: 'us-east-1a' }], subnetSelectorTerms: [{ id: A }] });
    const s = snapshotOf({ nodeClasses: [nc], subnets: [subnet({ id: A, cidr: '10.0.1.0/24', free: 0 })] });

    const steps = detect(s)[0]?.remediation?.steps ?? [];

    expect(steps).toContainEqual(
      `# EC2NodeClass pinned selects subnets by id ({"id":"${A}"}): add the new subnet's id to subnetSelectorTerms\nkubectl edit ec2nodeclass pinned`,
    );
  });
});
