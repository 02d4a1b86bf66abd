import type {
  AccessEntry,
  ClusterInfo,
  FargateProfile,
  Instance,
  InstanceProfile,
  LaunchTemplate,
  SpotPrice,
  Subnet,
} from '../domain/aws.ts';
import { instanceTypeFromApi, type InstanceTypeInfo } from '../domain/instance-types.ts';
import {
  arrayAt,
  awsTags,
  isRecord,
  optNumber,
  optString,
  optStringArray,
  optText,
  optTime,
  recordAt,
  ShapeError,
  stringAt,
  stringRecord,
  type JsonRecord,
} from '../domain/shape.ts';
import { QUEUE_READERS, type QueueCliOutput } from './aws-cli-queue.ts';

/** What one AWS CLI output contributes; `[]` still means "captured, none exist". */
export type AwsCliOutput =
  | { source: 'instances'; instances: Instance[] }
  | { source: 'cluster'; cluster: ClusterInfo }
  | { source: 'fargateprofiles'; profiles: FargateProfile[] }
  | { source: 'accessentries'; entries: AccessEntry[] }
  | { source: 'launchtemplates'; templates: LaunchTemplate[] }
  | { source: 'instanceprofiles'; profiles: InstanceProfile[] }
  | { source: 'subnets'; subnets: Subnet[] }
  /** `rejected`: the items instanceTypeFromApi could not read (`InstanceTypes[3] (x9.huge)`), set aside by the merger. */
  | { source: 'instancetypes'; instanceTypes: InstanceTypeInfo[]; rejected: string[] }
  /** `skipped`: the rows readSpotPrice could not read, left out like Karpenter does; the rest are kept. */
  | { source: 'spotprices'; prices: SpotPrice[]; skipped?: string[] }
  | QueueCliOutput;

/** The top-level key each supported command prints, and how to read it. */
const READERS: readonly [key: string, read: (document: JsonRecord) => AwsCliOutput][] = [
  ['Reservations', (d) => ({ source: 'instances', instances: readReservations(d) })], // aws ec2 describe-instances
  ['cluster', (d) => ({ source: 'cluster', cluster: readCluster(d.cluster) })], // aws eks describe-cluster
  ['fargateProfile', (d) => ({ source: 'fargateprofiles', profiles: [readFargateProfile(d.fargateProfile)] })],
  ['fargateProfileNames', (d) => ({ source: 'fargateprofiles', profiles: readFargateProfileNames(d) })],
  ['accessEntry', (d) => ({ source: 'accessentries', entries: [readAccessEntry(d.accessEntry)] })],
  ['accessEntries', (d) => ({ source: 'accessentries', entries: readAccessEntryList(d) })],
  ['LaunchTemplates', (d) => ({ source: 'launchtemplates', templates: readLaunchTemplates(d) })],
  [
    'InstanceProfiles',
    (d) => ({ source: 'instanceprofiles', profiles: arrayAt(d, 'InstanceProfiles', '').map(readInstanceProfile) }),
  ],
  ['InstanceProfile', (d) => ({ source: 'instanceprofiles', profiles: [readInstanceProfile(d.InstanceProfile, 0)] })], // get-instance-profile
  ['Subnets', (d) => ({ source: 'subnets', subnets: arrayAt(d, 'Subnets', '').map(readSubnet) })], // aws ec2 describe-subnets
  ['InstanceTypes', readInstanceTypes], // aws ec2 describe-instance-types
  ['SpotPriceHistory', (d) => readSpotPrices(arrayAt(d, 'SpotPriceHistory', ''))],
  ...QUEUE_READERS,
];

/** Whether the document has the top-level key of an AWS CLI output this tool reads. */
export function isAwsCliOutput(document: JsonRecord): boolean {
  return READERS.some(([key]) => Object.hasOwn(document, key));
}

/** An AWS CLI JSON output → its records; undefined when the document is no output we know. */
export function readAwsCliOutput(document: JsonRecord): AwsCliOutput[] | undefined {
  const outputs = READERS.filter(([key]) => Object.hasOwn(document, key)).map(([, read]) => read(document));
  return outputs.length > 0 ? outputs : undefined;
}

function readReservations(document: JsonRecord): Instance[] {
  return arrayAt(document, 'Reservations', '').flatMap((reservation, r) =>
    arrayAt(recordAt(reservation, `Reservations[${r}]`), 'Instances', `Reservations[${r}].`).map((raw, i) =>
      readInstance(raw, `Reservations[${r}].Instances[${i}]`),
    ),
  );
}

function readInstance(raw: unknown, where: string): Instance {
  const record = recordAt(raw, where);
  const id = stringAt(record, 'InstanceId', where);
  const state = isRecord(record.State) ? optText(record.State.Name) : undefined;
  if (!state) throw new ShapeError(`${where} (${id}) has no State.Name`);
  const instance: Instance = { id, state, tags: awsTags(record.Tags) };
  const launchTime = optTime(record.LaunchTime);
  if (launchTime) instance.launchTime = launchTime;
  const instanceType = optText(record.InstanceType);
  if (instanceType) instance.instanceType = instanceType;
  const zone = isRecord(record.Placement) ? optText(record.Placement.AvailabilityZone) : undefined;
  if (zone) instance.availabilityZone = zone;
  const dns = optText(record.PrivateDnsName);
  if (dns) instance.privateDnsName = dns;
  const profileArn = isRecord(record.IamInstanceProfile) ? optText(record.IamInstanceProfile.Arn) : undefined;
  if (profileArn) instance.iamInstanceProfileArn = profileArn;
  // `spot` (or `capacity-block`); on-demand instances have none.
  const lifecycle = optText(record.InstanceLifecycle);
  if (lifecycle) instance.lifecycle = lifecycle;
  return instance;
}

function readCluster(raw: unknown): ClusterInfo {
  const record = recordAt(raw, 'cluster');
  const cluster: ClusterInfo = { name: stringAt(record, 'name', 'cluster') };
  const optional: [keyof ClusterInfo, string | undefined][] = [
    ['arn', optText(record.arn)],
    ['status', optText(record.status)],
    ['version', optText(record.version)],
    ['endpoint', optText(record.endpoint)],
    ['certificateAuthority', isRecord(record.certificateAuthority) ? optText(record.certificateAuthority.data) : undefined],
    ['authenticationMode', isRecord(record.accessConfig) ? optText(record.accessConfig.authenticationMode) : undefined],
  ];
  for (const [key, value] of optional) if (value !== undefined) Object.assign(cluster, { [key]: value });
  if (isRecord(record.tags)) cluster.tags = stringRecord(record.tags);
  // EKS Auto Mode; clusters created before it (and CLI versions before it) print no computeConfig.
  const compute = record.computeConfig;
  if (isRecord(compute) && typeof compute.enabled === 'boolean') cluster.autoMode = compute.enabled;
  const vpc = record.resourcesVpcConfig;
  if (isRecord(vpc)) {
    if (typeof vpc.endpointPublicAccess === 'boolean') cluster.endpointPublicAccess = vpc.endpointPublicAccess;
    if (typeof vpc.endpointPrivateAccess === 'boolean') cluster.endpointPrivateAccess = vpc.endpointPrivateAccess;
    const vpcId = optText(vpc.vpcId);
    if (vpcId !== undefined) cluster.vpcId = vpcId;
    const group = optText(vpc.clusterSecurityGroupId);
    if (group !== undefined) cluster.clusterSecurityGroupId = group;
  }
  return cluster;
}

function readFargateProfile(raw: unknown): FargateProfile {
  const record = recordAt(raw, 'fargateProfile');
  const name = stringAt(record, 'fargateProfileName', 'fargateProfile');
  const selectors = (Array.isArray(record.selectors) ? record.selectors : []).filter(isRecord).map((s) => {
    const namespace = optString(s.namespace);
    return {
      ...(namespace !== undefined ? { namespace } : {}),
      ...(isRecord(s.labels) ? { labels: stringRecord(s.labels) } : {}),
    };
  });
  const profile: FargateProfile = { name, selectors, described: true };
  const status = optText(record.status);
  if (status) profile.status = status;
  const role = optText(record.podExecutionRoleArn);
  if (role) profile.podExecutionRoleArn = role;
  const subnets = optStringArray(record.subnets);
  if (subnets) profile.subnets = subnets;
  return profile;
}

function readFargateProfileNames(document: JsonRecord): FargateProfile[] {
  return namesAt(document, 'fargateProfileNames').map((name) => ({ name, selectors: [], described: false }));
}

function readAccessEntry(raw: unknown): AccessEntry {
  const record = recordAt(raw, 'accessEntry');
  const entry: AccessEntry = { principalArn: stringAt(record, 'principalArn', 'accessEntry'), described: true };
  const type = optText(record.type);
  if (type) entry.type = type;
  entry.kubernetesGroups = optStringArray(record.kubernetesGroups) ?? [];
  const username = optText(record.username);
  if (username) entry.username = username;
  return entry;
}

function readAccessEntryList(document: JsonRecord): AccessEntry[] {
  return namesAt(document, 'accessEntries').map((principalArn) => ({ principalArn, described: false }));
}

/** The `list-*` commands print names only: the non-empty ones. */
function namesAt(document: JsonRecord, key: string): string[] {
  return arrayAt(document, key, '').filter((n): n is string => typeof n === 'string' && n !== '');
}

function readLaunchTemplates(document: JsonRecord): LaunchTemplate[] {
  return arrayAt(document, 'LaunchTemplates', '').map((raw, i) => {
    const where = `LaunchTemplates[${i}]`;
    const record = recordAt(raw, where);
    const template: LaunchTemplate = {
      id: stringAt(record, 'LaunchTemplateId', where),
      name: stringAt(record, 'LaunchTemplateName', where),
      tags: awsTags(record.Tags),
    };
    const created = optTime(record.CreateTime);
    if (created) template.createTime = created;
    return template;
  });
}

function readInstanceProfile(raw: unknown, index: number): InstanceProfile {
  const where = `InstanceProfiles[${index}]`;
  const record = recordAt(raw, where);
  const roles = (Array.isArray(record.Roles) ? record.Roles : []).filter(isRecord).flatMap((role) => {
    const name = optText(role.RoleName);
    const arn = optText(role.Arn);
    return name ? [{ name, ...(arn ? { arn } : {}) }] : [];
  });
  const profile: InstanceProfile = { name: stringAt(record, 'InstanceProfileName', where), roles, tags: awsTags(record.Tags) };
  const optional: [keyof InstanceProfile, string | undefined][] = [
    ['arn', optText(record.Arn)],
    ['path', optText(record.Path)],
    ['id', optText(record.InstanceProfileId)],
    ['createDate', optTime(record.CreateDate)],
  ];
  for (const [key, value] of optional) if (value !== undefined) Object.assign(profile, { [key]: value });
  return profile;
}

function readSubnet(raw: unknown, index: number): Subnet {
  const where = `Subnets[${index}]`;
  const record = recordAt(raw, where);
  const subnet: Subnet = { id: stringAt(record, 'SubnetId', where), tags: awsTags(record.Tags) };
  const optional: [keyof Subnet, string | number | boolean | string[] | undefined][] = [
    ['vpcId', optText(record.VpcId)],
    ['availabilityZone', optText(record.AvailabilityZone)],
    ['availabilityZoneId', optText(record.AvailabilityZoneId)],
    ['cidrBlock', optText(record.CidrBlock)],
    ['availableIpAddressCount', optNumber(record.AvailableIpAddressCount)],
    ['ipv6CidrBlocks', ipv6CidrBlocks(record.Ipv6CidrBlockAssociationSet)],
    ['ipv6Native', optBoolean(record.Ipv6Native)],
    ['mapPublicIpOnLaunch', optBoolean(record.MapPublicIpOnLaunch)],
    ['state', optText(record.State)],
  ];
  for (const [key, value] of optional) if (value !== undefined) Object.assign(subnet, { [key]: value });
  return subnet;
}

/** The associated IPv6 blocks (`Ipv6CidrBlockState.State` `associated`, or no state given). */
function ipv6CidrBlocks(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const blocks = value.filter(isRecord).flatMap((association) => {
    const block = optText(association.Ipv6CidrBlock);
    const state = isRecord(association.Ipv6CidrBlockState) ? optText(association.Ipv6CidrBlockState.State) : undefined;
    return block && (state === undefined || state === 'associated') ? [block] : [];
  });
  return blocks.length > 0 ? blocks : undefined;
}

function optBoolean(value: unknown): boolean | undefined {
  return typeof value === 'boolean' ? value : undefined;
}

/**
 * `aws ec2 describe-instance-types`: each item as instanceTypeFromApi reads it. An item it cannot
 * read (no name, vCPUs or memory) is named in `rejected`, not fatal: the others are still good.
 */
function readInstanceTypes(document: JsonRecord): AwsCliOutput {
  const instanceTypes: InstanceTypeInfo[] = [];
  const rejected: string[] = [];
  arrayAt(document, 'InstanceTypes', '').forEach((raw, i) => {
    const info = instanceTypeFromApi(raw);
    if (info) {
      instanceTypes.push(info);
      return;
    }
    const name = isRecord(raw) ? optText(raw.InstanceType) : undefined;
    rejected.push(`InstanceTypes[${i}]${name ? ` (${name})` : ''}`);
  });
  return { source: 'instancetypes', instanceTypes, rejected };
}

/**
 * `aws ec2 describe-spot-price-history`: a row that cannot be read is skipped and named, the others
 * kept (Karpenter too skips a price it cannot parse): one bad row costs that price, not them all.
 */
function readSpotPrices(rows: unknown[]): AwsCliOutput {
  const prices: SpotPrice[] = [];
  const skipped: string[] = [];
  rows.forEach((row, i) => {
    try {
      prices.push(readSpotPrice(row, i));
    } catch (error) {
      if (!(error instanceof ShapeError)) throw error;
      skipped.push(error.message);
    }
  });
  return skipped.length > 0 ? { source: 'spotprices', prices, skipped } : { source: 'spotprices', prices };
}

/** One item of `aws ec2 describe-spot-price-history`; `SpotPrice` is a decimal string (`"0.034500"`). */
function readSpotPrice(raw: unknown, index: number): SpotPrice {
  const where = `SpotPriceHistory[${index}]`;
  const record = recordAt(raw, where);
  const instanceType = stringAt(record, 'InstanceType', where);
  const text = optText(record.SpotPrice);
  const usd = text !== undefined && /^\d+(?:\.\d+)?$/.test(text) ? Number(text) : NaN;
  if (Number.isNaN(usd))
    throw new ShapeError(`${where} (${instanceType}) has no SpotPrice in dollars (a decimal string such as "0.0345")`);
  const price: SpotPrice = { instanceType, availabilityZone: stringAt(record, 'AvailabilityZone', where), usd };
  const timestamp = optTime(record.Timestamp);
  if (timestamp) price.timestamp = timestamp;
  const product = optText(record.ProductDescription);
  if (product) price.productDescription = product;
  return price;
}
