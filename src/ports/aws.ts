/**
 * The AWS APIs as karpenter-sentinel uses them, in domain types. Real adapters wrap the SDK v3
 * clients; the simulator's in-memory AWS implements the same interfaces.
 */
import type { InstanceTypeInfo } from '../domain/instance-types.ts';
import type { InterruptionQueue, QueueRule } from '../domain/interruption-queue.ts';
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

export interface InstanceQuery {
  /** Instances tagged for this cluster (`eks:eks-cluster-name=NAME` or `kubernetes.io/cluster/NAME`). */
  clusterName?: string;
  /** Exactly these instances (missing ones are simply absent from the result). */
  instanceIds?: readonly string[];
  /** Only instances carrying this tag key (e.g. `karpenter.sh/nodepool`). */
  tagKey?: string;
  /**
   * Only instances one of these instance profiles is attached to (EC2's `iam-instance-profile.arn`
   * filter), any owner's: before profiles are deleted, whoever still uses them (docs/cleanup.md,
   * "Holds"). `[]` asks nothing.
   */
  instanceProfileArns?: readonly string[];
}

/** Ids per TerminateInstances call: well below EC2's request limits, and a deadline is checked between two. */
export const TERMINATE_BATCH_SIZE = 50;

export interface TerminationResult {
  instanceId: string;
  /** The state AWS reported after the call, or the error for this instance. */
  currentState?: string;
  error?: string;
}

/** A DescribeInstanceTypes listing: the types read, and the items that could not be (`InstanceTypes[3] (x9.huge)`). */
export interface InstanceTypeListing {
  instanceTypes: InstanceTypeInfo[];
  rejected: string[];
}

export interface Ec2Port {
  /** Every page; terminated instances included (callers decide). */
  describeInstances(query: InstanceQuery): Promise<Instance[]>;
  /** Terminates in batches; one failing batch does not stop the others. */
  terminateInstances(instanceIds: readonly string[]): Promise<TerminationResult[]>;
  /**
   * Launch templates tagged for the cluster (`eks:eks-cluster-name` or pre-1.1 `karpenter.k8s.aws/cluster`),
   * plus those of `alsoIds` that exist whatever their tags, looked up by id. So an id named by an
   * instance and absent from the result is known gone (EC2's `InvalidLaunchTemplateId.NotFound`),
   * never merely untagged: only a template that is gone may let the instance profile stand in as
   * proof (docs/guardrails.md, "Provenance").
   */
  describeLaunchTemplates(clusterName: string, alsoIds?: readonly string[]): Promise<LaunchTemplate[]>;
  /** false when it was already gone. */
  deleteLaunchTemplate(launchTemplateId: string): Promise<boolean>;
  /** Exactly these subnets, every page; ids that do not exist are simply absent. `[]` asks nothing. */
  describeSubnets(subnetIds: readonly string[]): Promise<Subnet[]>;
  /**
   * The region's instance types (`DescribeInstanceTypes`, every page), as Karpenter itself reads
   * them. Live adapters may answer from a cache of the region's listing (instance types rarely change).
   */
  describeInstanceTypes(): Promise<InstanceTypeListing>;
  /**
   * The Linux Spot prices in effect now of these types, in every zone of the region
   * (`DescribeSpotPriceHistory` from now, as Karpenter asks it): one request for the types a scan
   * prices (docs/cost.md). `[]` asks nothing.
   */
  describeSpotPrices(instanceTypes: readonly string[]): Promise<SpotPrice[]>;
}

export interface EksPort {
  /** `{ name, gone: true }` when AWS says the cluster does not exist. */
  describeCluster(name: string): Promise<ClusterInfo>;
  listClusters(): Promise<string[]>;
  /** Listed and described. */
  fargateProfiles(clusterName: string): Promise<FargateProfile[]>;
  /** Listed and described. */
  accessEntries(clusterName: string): Promise<AccessEntry[]>;
}

export interface IamPort {
  /** Every page, with roles and tags. */
  listInstanceProfiles(pathPrefix?: string): Promise<InstanceProfile[]>;
  removeRoleFromInstanceProfile(profileName: string, roleName: string): Promise<void>;
  /** false when it was already gone. */
  deleteInstanceProfile(profileName: string): Promise<boolean>;
}

/**
 * Karpenter's interruption queue and what feeds it (docs/findings.md#interruption_handling_off):
 * reads only. Nothing here receives or deletes a message: a message this tool took from Karpenter's
 * queue would be an interruption Karpenter never sees.
 */
export interface InterruptionQueuePort {
  /**
   * GetQueueUrl, then GetQueueAttributes `All`. `{ name, exists: false }` when SQS says the queue
   * does not exist (`AWS.SimpleQueueService.NonExistentQueue` / `QueueDoesNotExist`): that is an
   * answer, not a failure.
   */
  describeQueue(name: string): Promise<InterruptionQueue>;
  /**
   * The EventBridge rules of the default bus that target this queue ARN: one ListRuleNamesByTarget
   * (more pages only if it says so), then DescribeRule for each of the first MAX_DESCRIBED_RULES (domain/queue-lookup.ts)
   * (state and pattern); rules past them keep their name only, and a rule gone before it was
   * described is left out (it no longer targets the queue).
   */
  rulesTargeting(queueArn: string): Promise<QueueRule[]>;
  /**
   * CloudWatch `AWS/SQS` `ApproximateAgeOfOldestMessage` of the queue, Maximum over the 15 minutes
   * before `now` (one GetMetricStatistics); undefined when CloudWatch has no datapoint.
   */
  oldestMessageAgeSeconds(queueName: string, now: Date): Promise<number | undefined>;
}

export interface AwsPorts {
  ec2: Ec2Port;
  eks: EksPort;
  iam: IamPort;
  queue: InterruptionQueuePort;
  region: string;
}
