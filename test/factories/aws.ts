/** Record factories for AWS resources (normalised shapes) and whole snapshots. */
import type {
  AccessEntry,
  ClusterInfo,
  FargateProfile,
  Instance,
  InstanceProfile,
  LaunchTemplate,
  LogLine,
  Subnet,
} from '../../src/domain/aws.ts';
import { emptySnapshot, type ClusterSnapshot, type SourceName } from '../../src/domain/snapshot.ts';
import { T0 } from './kube.ts';

export const ACCOUNT = '069057294951';
/** The launch template Karpenter launched the factory's instances from (see karpenterLaunchTemplate). */
export const KARPENTER_LT_ID = 'lt-0d3e9a7c1b5f28e46';

/**
 * An instance. With a NodePool and no node group, it carries everything Karpenter's launch leaves
 * (`karpenter.sh/nodeclaim`, `karpenter.k8s.aws/ec2nodeclass`, and EC2's own `aws:ec2:fleet-id` and
 * `aws:ec2launchtemplate:id` naming KARPENTER_LT_ID) unless `launchedBy: 'unknown'`: then only
 * the tags anyone can write. `tags` override either.
 */
export function instance(input: {
  id: string;
  cluster?: string | null;
  nodePool?: string | null;
  nodeGroup?: string;
  state?: string;
  launchTime?: string;
  launchedBy?: 'karpenter' | 'unknown';
  /** The launch template Karpenter launched it from (default KARPENTER_LT_ID). */
  launchTemplateId?: string;
  tags?: Record<string, string>;
}): Instance {
  const tags: Record<string, string> = {};
  const cluster = input.cluster === undefined ? 'demo' : input.cluster;
  if (cluster) tags['eks:eks-cluster-name'] = cluster;
  const np = input.nodePool === undefined ? 'default' : input.nodePool;
  if (np) tags['karpenter.sh/nodepool'] = np;
  if (input.nodeGroup) tags['eks:nodegroup-name'] = input.nodeGroup;
  if (np && !input.nodeGroup && input.launchedBy !== 'unknown')
    Object.assign(tags, karpenterLaunchTags(input.id, np, input.launchTemplateId));
  Object.assign(tags, input.tags);
  return {
    id: input.id,
    state: input.state ?? 'running',
    launchTime: input.launchTime ?? T0,
    instanceType: 't3a.xlarge',
    availabilityZone: 'us-east-1a',
    privateDnsName: `ip-10-0-1-${input.id.length}.ec2.internal`,
    iamInstanceProfileArn: `arn:aws:iam::${ACCOUNT}:instance-profile/demo_1976173924626587633`,
    tags,
  };
}

/** What Karpenter's CreateFleet launch leaves on an instance, besides the cluster and NodePool tags. */
function karpenterLaunchTags(id: string, nodePool: string, launchTemplateId = KARPENTER_LT_ID): Record<string, string> {
  return {
    'karpenter.sh/nodeclaim': `${nodePool}-${id.slice(-5)}`,
    'karpenter.k8s.aws/ec2nodeclass': 'default',
    'aws:ec2:fleet-id': `fleet-${id.slice(-8).padStart(8, '0')}-e548-4a52-a97e-a470a8d1237d`,
    'aws:ec2launchtemplate:id': launchTemplateId,
    'aws:ec2launchtemplate:version': '1',
  };
}

/**
 * The defect of issue 11: a production database someone tagged with the only two tags the IAM
 * policy used to check. Launched in 2024, by hand, from no launch template.
 */
export function forgedInstance(id = 'i-0f00d5ba5e0b1e7a2', cluster = 'demo'): Instance {
  return {
    ...instance({ id, cluster, nodePool: 'anything', launchedBy: 'unknown', launchTime: '2024-03-12T09:15:00Z' }),
    instanceType: 'r6i.2xlarge',
    tags: { Name: 'prod-postgres-primary', 'eks:eks-cluster-name': cluster, 'karpenter.sh/nodepool': 'anything' },
  };
}

export function cluster(input: Partial<ClusterInfo> = {}): ClusterInfo {
  const name = input.name ?? 'demo';
  return {
    name,
    arn: `arn:aws:eks:us-east-1:${ACCOUNT}:cluster/${name}`,
    status: 'ACTIVE',
    version: '1.32',
    endpoint: 'https://ABCDEF0123456789.gr7.us-east-1.eks.amazonaws.com',
    authenticationMode: 'CONFIG_MAP',
    ...input,
  };
}

export function fargateProfile(input: { name: string; status?: string; selectors: FargateProfile['selectors'] }): FargateProfile {
  return {
    name: input.name,
    status: input.status ?? 'ACTIVE',
    selectors: input.selectors,
    podExecutionRoleArn: `arn:aws:iam::${ACCOUNT}:role/eks-fargate-pod-execution`,
    subnets: ['subnet-0a1b2c3d4e5f60001', 'subnet-0a1b2c3d4e5f60002'],
    described: true,
  };
}

export function accessEntry(input: { principalArn: string; type?: string; groups?: string[] }): AccessEntry {
  return {
    principalArn: input.principalArn,
    type: input.type ?? 'EC2_LINUX',
    kubernetesGroups: input.groups ?? [],
    described: true,
  };
}

export function instanceProfile(input: {
  name: string;
  role?: string;
  path?: string;
  tags?: Record<string, string>;
}): InstanceProfile {
  const path = input.path ?? '/';
  return {
    name: input.name,
    path,
    arn: `arn:aws:iam::${ACCOUNT}:instance-profile${path}${input.name}`,
    roles: input.role ? [{ name: input.role, arn: `arn:aws:iam::${ACCOUNT}:role/${input.role}` }] : [],
    tags: input.tags ?? {},
  };
}

/**
 * A launch template as Karpenter names and tags it (`karpenter.k8s.aws/<hash>`): with the cluster
 * tag of v1.1+ (`eks:eks-cluster-name`), or with `tag: 'legacy'` the older `karpenter.k8s.aws/cluster`.
 */
export function launchTemplate(input: {
  id: string;
  name?: string;
  cluster?: string;
  tag?: 'current' | 'legacy';
  tags?: Record<string, string>;
}): LaunchTemplate {
  const key = input.tag === 'legacy' ? 'karpenter.k8s.aws/cluster' : 'eks:eks-cluster-name';
  return {
    id: input.id,
    name: input.name ?? `karpenter.k8s.aws/${input.id.replace(/^lt-/, '')}`,
    createTime: T0,
    tags: { [key]: input.cluster ?? 'demo', 'karpenter.k8s.aws/ec2nodeclass': 'default', ...input.tags },
  };
}

/** A subnet as DescribeSubnets reports it (plenty of free addresses unless told). */
export function subnet(input: {
  id: string;
  zone?: string;
  free?: number;
  vpcId?: string;
  /** Default a /19 (8,192 addresses). */
  cidr?: string;
  /** An IPv6-only subnet: no IPv4 CIDR, no free IPv4 count. */
  ipv6Native?: boolean;
  tags?: Record<string, string>;
}): Subnet {
  const zone = input.zone ?? 'us-east-1a';
  return {
    id: input.id,
    vpcId: input.vpcId ?? 'vpc-0a1b2c3d4e5f60001',
    availabilityZone: zone,
    availabilityZoneId: `use1-az${zone.charCodeAt(zone.length - 1) - 96}`,
    ...(input.ipv6Native
      ? { ipv6Native: true, ipv6CidrBlocks: ['2600:1f18:1234:5600::/64'], availableIpAddressCount: 0 }
      : { cidrBlock: input.cidr ?? '10.0.0.0/19', availableIpAddressCount: input.free ?? 8000 }),
    mapPublicIpOnLaunch: false,
    state: 'available',
    tags: { 'karpenter.sh/discovery': 'demo', ...input.tags },
  };
}

/** The launch template the factory's Karpenter instances name (KARPENTER_LT_ID), Karpenter's for `cluster`. */
export function karpenterLaunchTemplate(cluster = 'demo'): LaunchTemplate {
  return launchTemplate({ id: KARPENTER_LT_ID, cluster });
}

export function logLine(fields: Record<string, unknown>, origin = 'karpenter.log:1'): LogLine {
  return {
    ...(typeof fields.time === 'string' ? { time: fields.time } : {}),
    ...(typeof fields.level === 'string' ? { level: fields.level.toUpperCase() } : {}),
    message: String(fields.message ?? fields.msg ?? ''),
    ...(typeof fields.error === 'string' ? { error: fields.error } : {}),
    fields,
    origin,
  };
}

// refusedWrites belong to no source (a saved client error): set them on the snapshot itself.
export type SnapshotParts = Partial<Omit<ClusterSnapshot, 'captured' | 'gaps' | 'clusterName' | 'unreadFiles' | 'refusedWrites'>>;
/** Which source each snapshot list belongs to. */
export const PART_SOURCE: Record<keyof SnapshotParts, SourceName> = {
  pods: 'pods',
  deployments: 'deployments',
  replicaSets: 'replicasets',
  nodes: 'nodes',
  events: 'events',
  configMaps: 'configmaps',
  services: 'services',
  crds: 'crds',
  nodeClaims: 'nodeclaims',
  nodePools: 'nodepools',
  nodeClasses: 'ec2nodeclasses',
  cluster: 'cluster',
  instances: 'instances',
  fargateProfiles: 'fargateprofiles',
  accessEntries: 'accessentries',
  launchTemplates: 'launchtemplates',
  instanceProfiles: 'instanceprofiles',
  pdbs: 'pdbs',
  volumeAttachments: 'volumeattachments',
  subnets: 'subnets',
  instanceTypes: 'instancetypes',
  spotPrices: 'spotprices',
  logs: 'logs',
  webhookConfigurations: 'webhookconfigurations',
  endpoints: 'endpoints',
};

/** A snapshot where exactly the given parts count as captured (an empty array is "captured, none"). */
export function snapshotOf(parts: SnapshotParts, clusterName = 'demo'): ClusterSnapshot {
  const s = emptySnapshot(clusterName);
  for (const [key, value] of Object.entries(parts) as [keyof SnapshotParts, unknown][]) {
    if (value === undefined) continue;
    (s as unknown as Record<string, unknown>)[key] = value;
    s.captured.add(PART_SOURCE[key]);
  }
  return s;
}

/**
 * snapshotOf with the cluster's Karpenter launch template captured too (unless `launchTemplates`
 * is given): what a capture of a real cluster holds, so the factory's instances are proven Karpenter's.
 */
export function karpenterSnapshotOf(parts: SnapshotParts, clusterName = 'demo'): ClusterSnapshot {
  return snapshotOf({ launchTemplates: [karpenterLaunchTemplate(clusterName)], ...parts }, clusterName);
}
