/**
 * Snapshot AWS records → the AWS CLI's JSON outputs, one file per source, for `snapshot --out`.
 * Reading them back (readAwsCliOutput, snapshotFromFiles) gives the same records; a gap on an AWS
 * source is written as the CLI's error text, which the loader reads back as the same gap.
 */
import type {
  AccessEntry,
  ClusterInfo,
  FargateProfile,
  Instance,
  InstanceProfile,
  LaunchTemplate,
  SpotPrice,
  Subnet,
} from '../../domain/aws.ts';
import type { InstanceTypeInfo } from '../../domain/instance-types.ts';
import type { ClusterSnapshot, Gap, SourceName } from '../../domain/snapshot.ts';
import { SOURCE_OF_OPERATION } from '../cli-error-text.ts';
import { oldestMessageAgeOutput, queueFiles, ruleOutputs } from './queue-cli-shape.ts';
import { withoutUndefined, type JsonRecord } from '../../domain/shape.ts';

export interface AwsCliDocument {
  /** File name inside the capture folder. */
  name: string;
  /**
   * The output (or, for a source printed by several commands, the array of them, read like the
   * CLI's paged `--output yaml-stream`); for an error, the error text.
   */
  json: JsonRecord | JsonRecord[] | string;
  /** The file's content: pretty JSON, several outputs one after another, or the CLI's error text. */
  text: string;
}

type AwsSource = Extract<
  SourceName,
  | 'instances'
  | 'cluster'
  | 'fargateprofiles'
  | 'accessentries'
  | 'launchtemplates'
  | 'instanceprofiles'
  | 'subnets'
  | 'instancetypes'
  | 'spotprices'
  | 'interruptionqueue'
  | 'queuerules'
  | 'queueage'
>;

/** Per source, its file (without extension). */
const FILES: Readonly<Record<AwsSource, string>> = {
  instances: 'describe-instances',
  cluster: 'describe-cluster',
  fargateprofiles: 'fargate-profiles',
  accessentries: 'access-entries',
  launchtemplates: 'describe-launch-templates',
  instanceprofiles: 'list-instance-profiles',
  // As capture-script names it.
  subnets: 'subnets',
  instancetypes: 'instance-types',
  spotprices: 'spot-prices',
  // As docs/capture.md names them.
  interruptionqueue: 'sqs-queue-url',
  queuerules: 'events-rule-names',
  queueage: 'sqs-oldest-message-age',
};

/** The captured AWS sources of a snapshot as AWS CLI outputs, and its AWS gaps as CLI errors. */
export function awsCliDocuments(snapshot: ClusterSnapshot): AwsCliDocument[] {
  const documents: AwsCliDocument[] = [];
  const { captured } = snapshot;
  if (captured.has('instances')) documents.push(output(FILES.instances, describeInstances(snapshot.instances)));
  if (captured.has('cluster') && snapshot.cluster) documents.push(clusterDocument(snapshot.cluster));
  if (captured.has('fargateprofiles')) {
    documents.push(outputs(FILES.fargateprofiles, fargateProfileOutputs(snapshot.fargateProfiles, snapshot.clusterName)));
  }
  if (captured.has('accessentries')) {
    documents.push(outputs(FILES.accessentries, accessEntryOutputs(snapshot.accessEntries, snapshot.clusterName)));
  }
  if (captured.has('launchtemplates'))
    documents.push(output(FILES.launchtemplates, describeLaunchTemplates(snapshot.launchTemplates)));
  if (captured.has('instanceprofiles')) {
    documents.push(output(FILES.instanceprofiles, listInstanceProfiles(snapshot.instanceProfiles)));
  }
  if (captured.has('subnets')) documents.push(output(FILES.subnets, describeSubnets(snapshot.subnets)));
  if (captured.has('instancetypes')) {
    documents.push(output(FILES.instancetypes, describeInstanceTypes(snapshot.instanceTypes)));
  }
  if (captured.has('spotprices')) documents.push(output(FILES.spotprices, describeSpotPriceHistory(snapshot.spotPrices ?? [])));
  if (captured.has('interruptionqueue')) {
    documents.push(...queueFiles(snapshot.interruptionQueues ?? []));
  }
  if (captured.has('queuerules')) documents.push(outputs(FILES.queuerules, ruleOutputs(snapshot.queueRules ?? [])));
  if (captured.has('queueage'))
    documents.push(output(FILES.queueage, oldestMessageAgeOutput(snapshot.queueOldestMessageAgeSeconds)));
  documents.push(...gapDocuments(snapshot.gaps));
  return documents;
}

/** `aws ec2 describe-instances` (one reservation holding every instance). */
function describeInstances(instances: readonly Instance[]): JsonRecord {
  return { Reservations: instances.length > 0 ? [{ Instances: instances.map(instanceOutput) }] : [] };
}

/** EC2's code for each instance state name, as describe-instances prints `State`. */
export const EC2_STATE_CODES: Readonly<Record<string, number>> = {
  pending: 0,
  running: 16,
  'shutting-down': 32,
  terminated: 48,
  stopping: 64,
  stopped: 80,
};

function instanceOutput(instance: Instance): JsonRecord {
  const code = EC2_STATE_CODES[instance.state];
  return withoutUndefined({
    InstanceId: instance.id,
    InstanceType: instance.instanceType,
    LaunchTime: instance.launchTime,
    Placement: instance.availabilityZone === undefined ? undefined : { AvailabilityZone: instance.availabilityZone },
    PrivateDnsName: instance.privateDnsName,
    State: code === undefined ? { Name: instance.state } : { Code: code, Name: instance.state },
    IamInstanceProfile: instance.iamInstanceProfileArn === undefined ? undefined : { Arn: instance.iamInstanceProfileArn },
    InstanceLifecycle: instance.lifecycle,
    Tags: tagList(instance.tags),
  });
}

/** `aws eks describe-cluster`. */
export function describeCluster(cluster: ClusterInfo): JsonRecord {
  return {
    cluster: withoutUndefined({
      name: cluster.name,
      arn: cluster.arn,
      version: cluster.version,
      endpoint: cluster.endpoint,
      status: cluster.status,
      certificateAuthority: cluster.certificateAuthority === undefined ? undefined : { data: cluster.certificateAuthority },
      tags: cluster.tags,
      accessConfig: cluster.authenticationMode === undefined ? undefined : { authenticationMode: cluster.authenticationMode },
      computeConfig: cluster.autoMode === undefined ? undefined : { enabled: cluster.autoMode },
      resourcesVpcConfig: resourcesVpcConfig(cluster),
    }),
  };
}

/** `resourcesVpcConfig` with the fields the loader reads; absent when the record has none. */
function resourcesVpcConfig(cluster: ClusterInfo): JsonRecord | undefined {
  const config = withoutUndefined({
    vpcId: cluster.vpcId,
    clusterSecurityGroupId: cluster.clusterSecurityGroupId,
    endpointPublicAccess: cluster.endpointPublicAccess,
    endpointPrivateAccess: cluster.endpointPrivateAccess,
  });
  return Object.keys(config).length > 0 ? config : undefined;
}

/** What the AWS CLI prints for a cluster that does not exist; the loader reads it as "gone". */
function clusterNotFoundText(name: string): string {
  return `\nAn error occurred (ResourceNotFoundException) when calling the DescribeCluster operation: No cluster found for name: ${name}.\n`;
}

function clusterDocument(cluster: ClusterInfo): AwsCliDocument {
  if (cluster.gone !== true) return output(FILES.cluster, describeCluster(cluster));
  const text = clusterNotFoundText(cluster.name);
  return { name: `${FILES.cluster}.txt`, json: text, text };
}

/** `aws eks list-fargate-profiles`, then `aws eks describe-fargate-profile` for each described one. */
function fargateProfileOutputs(profiles: readonly FargateProfile[], clusterName: string): JsonRecord[] {
  return [
    { fargateProfileNames: profiles.map((p) => p.name) },
    ...profiles.filter((p) => p.described).map((p) => ({ fargateProfile: fargateProfileOutput(p, clusterName) })),
  ];
}

function fargateProfileOutput(profile: FargateProfile, clusterName: string): JsonRecord {
  return withoutUndefined({
    fargateProfileName: profile.name,
    clusterName: clusterName || undefined,
    podExecutionRoleArn: profile.podExecutionRoleArn,
    subnets: profile.subnets,
    selectors: profile.selectors.map((s) => withoutUndefined({ namespace: s.namespace, labels: s.labels })),
    status: profile.status,
  });
}

/** `aws eks list-access-entries`, then `aws eks describe-access-entry` for each described one. */
function accessEntryOutputs(entries: readonly AccessEntry[], clusterName: string): JsonRecord[] {
  return [
    { accessEntries: entries.map((e) => e.principalArn) },
    ...entries
      .filter((e) => e.described)
      .map((e) => ({
        accessEntry: withoutUndefined({
          clusterName: clusterName || undefined,
          principalArn: e.principalArn,
          kubernetesGroups: e.kubernetesGroups ?? [],
          username: e.username,
          type: e.type,
        }),
      })),
  ];
}

/** `aws ec2 describe-launch-templates`. */
function describeLaunchTemplates(templates: readonly LaunchTemplate[]): JsonRecord {
  return {
    LaunchTemplates: templates.map((t) =>
      withoutUndefined({ LaunchTemplateId: t.id, LaunchTemplateName: t.name, CreateTime: t.createTime, Tags: tagList(t.tags) }),
    ),
  };
}

/** `aws iam list-instance-profiles`, with the tags `get-instance-profile` would add. */
function listInstanceProfiles(profiles: readonly InstanceProfile[]): JsonRecord {
  return {
    InstanceProfiles: profiles.map((p) =>
      withoutUndefined({
        Path: p.path,
        InstanceProfileName: p.name,
        InstanceProfileId: p.id,
        Arn: p.arn,
        CreateDate: p.createDate,
        Roles: p.roles.map((r) => withoutUndefined({ RoleName: r.name, Arn: r.arn })),
        Tags: Object.keys(p.tags).length > 0 ? tagList(p.tags) : undefined,
      }),
    ),
  };
}

/** `aws ec2 describe-subnets`. */
function describeSubnets(subnets: readonly Subnet[]): JsonRecord {
  return {
    Subnets: subnets.map((s) =>
      withoutUndefined({
        AvailabilityZone: s.availabilityZone,
        AvailabilityZoneId: s.availabilityZoneId,
        AvailableIpAddressCount: s.availableIpAddressCount,
        CidrBlock: s.cidrBlock,
        MapPublicIpOnLaunch: s.mapPublicIpOnLaunch,
        State: s.state,
        SubnetId: s.id,
        VpcId: s.vpcId,
        Ipv6CidrBlockAssociationSet: s.ipv6CidrBlocks?.map((block) => ({
          Ipv6CidrBlock: block,
          Ipv6CidrBlockState: { State: 'associated' },
        })),
        Ipv6Native: s.ipv6Native,
        Tags: Object.keys(s.tags).length > 0 ? tagList(s.tags) : undefined,
      }),
    ),
  };
}

/** `aws ec2 describe-instance-types`. */
export function describeInstanceTypes(types: readonly InstanceTypeInfo[]): JsonRecord {
  return { InstanceTypes: types.map(instanceTypeOutput) };
}

/**
 * One item of `aws ec2 describe-instance-types`, holding what instanceTypeFromApi reads back: the
 * default network card's interfaces, one GPU and one Neuron device kind, NVMe instance storage.
 */
function instanceTypeOutput(t: InstanceTypeInfo): JsonRecord {
  return withoutUndefined({
    InstanceType: t.name,
    Hypervisor: t.hypervisor === '' ? undefined : t.hypervisor,
    BareMetal: t.bareMetal,
    SupportedUsageClasses: t.usageClasses,
    ProcessorInfo: withoutUndefined({ SupportedArchitectures: t.architectures, Manufacturer: t.cpuManufacturer }),
    VCpuInfo: { DefaultVCpus: t.vcpus },
    MemoryInfo: { SizeInMiB: t.memoryMiB },
    InstanceStorageInfo: t.localNvmeGB === undefined ? undefined : { TotalSizeInGB: t.localNvmeGB, NvmeSupport: 'required' },
    NetworkInfo: {
      MaximumNetworkInterfaces: t.maxNetworkInterfaces,
      Ipv4AddressesPerInterface: t.ipv4PerInterface,
      DefaultNetworkCardIndex: 0,
      NetworkCards: [{ NetworkCardIndex: 0, MaximumNetworkInterfaces: t.maxNetworkInterfaces }],
    },
    GpuInfo: t.gpu
      ? {
          Gpus: [
            {
              Name: t.gpu.name,
              Manufacturer: t.gpu.manufacturer,
              Count: t.gpu.count,
              MemoryInfo: { SizeInMiB: t.gpu.memoryMiB },
            },
          ],
        }
      : undefined,
    NeuronInfo: t.neuron
      ? { NeuronDevices: [{ Name: t.neuron.name, Count: t.neuron.count, CoreInfo: { Count: t.neuron.coresPerDevice } }] }
      : undefined,
  });
}

/** `aws ec2 describe-spot-price-history`. */
function describeSpotPriceHistory(prices: readonly SpotPrice[]): JsonRecord {
  return {
    SpotPriceHistory: prices.map((p) =>
      withoutUndefined({
        AvailabilityZone: p.availabilityZone,
        InstanceType: p.instanceType,
        ProductDescription: p.productDescription,
        SpotPrice: String(p.usd),
        Timestamp: p.timestamp,
      }),
    ),
  };
}

/**
 * `DescribeInstances failed: UnauthorizedOperation: ...` (the text of a live gap, and of a gap
 * read from a captured error) → the AWS CLI's own error line, which reads back as that gap.
 * Gaps of other forms (a truncated capture, objects set aside, a Kubernetes source) cannot be
 * written so: gaps.json records them.
 */
function gapDocuments(gaps: readonly Gap[]): AwsCliDocument[] {
  const lines = new Map<AwsSource, string[]>();
  for (const gap of gaps) {
    const error = cliErrorOf(gap);
    if (!error) continue;
    const list = lines.get(error.source) ?? [];
    list.push(error.line);
    lines.set(error.source, list);
  }
  return [...lines].map(([source, errors]) => {
    const text = `\n${errors.join('\n')}\n`;
    return { name: `${FILES[source]}-error.txt`, json: text, text };
  });
}

/** Whether the gap is written as an AWS CLI error file (and so needs no other record). */
export function writtenAsCliError(gap: Gap): boolean {
  return cliErrorOf(gap) !== undefined;
}

function cliErrorOf(gap: Gap): { source: AwsSource; line: string } | undefined {
  if (!Object.hasOwn(FILES, gap.source) || gap.detector) return undefined;
  const source = gap.source as AwsSource;
  const parsed = /^(\w+) failed: ([^\s:()]+): ?(.*)$/.exec(gap.error);
  if (!parsed) return undefined;
  const [, operation = '', code = '', message = ''] = parsed;
  // An operation the loader does not file under this source (ListInstanceProfileTags) is written as its listing.
  const asOperation = SOURCE_OF_OPERATION[operation] === source ? operation : listingOperation(source);
  return { source, line: `An error occurred (${code}) when calling the ${asOperation} operation: ${message}` };
}

function listingOperation(source: AwsSource): string | undefined {
  return Object.keys(SOURCE_OF_OPERATION).find((operation) => SOURCE_OF_OPERATION[operation] === source);
}

function output(file: string, json: JsonRecord): AwsCliDocument {
  return { name: `${file}.json`, json, text: `${JSON.stringify(json, null, 4)}\n` };
}

/** Several outputs in one file, one after another (as `>>` would append them). */
function outputs(file: string, json: JsonRecord[]): AwsCliDocument {
  return { name: `${file}.json`, json, text: json.map((d) => `${JSON.stringify(d, null, 4)}\n`).join('') };
}

function tagList(tags: Readonly<Record<string, string>>): { Key: string; Value: string }[] {
  return Object.entries(tags).map(([Key, Value]) => ({ Key, Value }));
}
