/**
 * AWS resources as karpenter-sentinel sees them, normalised from AWS CLI output or SDK
 * responses (both use the same field names, PascalCase for EC2/IAM and camelCase for EKS).
 */

type InstanceState = 'pending' | 'running' | 'shutting-down' | 'terminated' | 'stopping' | 'stopped' | string;

export interface Instance {
  id: string;
  state: InstanceState;
  /** ISO-8601. */
  launchTime?: string;
  instanceType?: string;
  availabilityZone?: string;
  privateDnsName?: string;
  /** ARN of the instance profile attached to the instance. */
  iamInstanceProfileArn?: string;
  /** EC2's `InstanceLifecycle` (`spot`, `capacity-block`); absent for on-demand instances. */
  lifecycle?: string;
  tags: Record<string, string>;
}

/** EKS cluster names: 1-100 characters, a letter or digit first, then letters, digits, `-` and `_`. */
export function isEksClusterName(name: string): boolean {
  return /^[0-9A-Za-z][A-Za-z0-9_-]{0,99}$/.test(name);
}

/** An AWS region's name: `us-east-1`, `eu-central-1`, `us-gov-west-1`, `cn-north-1`, `ap-southeast-5`. */
export function isAwsRegion(name: string): boolean {
  return /^[a-z]{2}(?:-[a-z]+)+-\d{1,2}$/.test(name);
}

/** Region of an EKS cluster ARN (`arn:aws:eks:us-east-1:111122223333:cluster/x` → us-east-1). */
export function regionOfClusterArn(arn: string | undefined): string | undefined {
  return arn ? /^arn:[a-z-]+:eks:([a-z0-9-]+):/.exec(arn)?.[1] : undefined;
}

/** Region of an availability zone (`us-east-1a` → `us-east-1`). */
export function regionOfZone(zone: string | undefined): string | undefined {
  return zone ? /^([a-z]{2}(?:-[a-z]+)+-\d+)[a-z]$/.exec(zone)?.[1] : undefined;
}

type AuthenticationMode = 'CONFIG_MAP' | 'API' | 'API_AND_CONFIG_MAP' | string;

export interface ClusterInfo {
  name: string;
  arn?: string;
  status?: 'CREATING' | 'ACTIVE' | 'DELETING' | 'FAILED' | 'UPDATING' | 'PENDING' | string;
  version?: string;
  endpoint?: string;
  /** Base64 PEM of the cluster CA. */
  certificateAuthority?: string;
  authenticationMode?: AuthenticationMode;
  tags?: Record<string, string>;
  /**
   * EKS Auto Mode (`computeConfig.enabled`): AWS runs Karpenter outside the cluster, so no
   * controller pod exists there and NodePools reference `eks.amazonaws.com` NodeClasses.
   */
  autoMode?: boolean;
  /**
   * `resourcesVpcConfig.endpointPublicAccess` / `endpointPrivateAccess`: with the public endpoint
   * off, nodes reach the API server only through the VPC's private hosted zone and the cluster
   * security group (docs/findings.md, NODECLAIM_NOT_REGISTERED).
   */
  endpointPublicAccess?: boolean;
  endpointPrivateAccess?: boolean;
  /** `resourcesVpcConfig.vpcId`. */
  vpcId?: string;
  /** `resourcesVpcConfig.clusterSecurityGroupId`: the group EKS made for the control plane's network interfaces. */
  clusterSecurityGroupId?: string;
  /** True when AWS reported that the cluster does not exist (ResourceNotFoundException). */
  gone?: boolean;
}

export interface FargateSelector {
  namespace?: string;
  labels?: Record<string, string>;
}

export interface FargateProfile {
  name: string;
  status?: 'CREATING' | 'ACTIVE' | 'DELETING' | 'CREATE_FAILED' | 'DELETE_FAILED' | string;
  selectors: FargateSelector[];
  podExecutionRoleArn?: string;
  subnets?: string[];
  /** False when only `list-fargate-profiles` named it, without `describe-fargate-profile`. */
  described: boolean;
}

export interface AccessEntry {
  principalArn: string;
  /** STANDARD, EC2_LINUX, EC2_WINDOWS, FARGATE_LINUX, ...; undefined when only listed. */
  type?: string;
  kubernetesGroups?: string[];
  username?: string;
  described: boolean;
}

/**
 * One price of `aws ec2 describe-spot-price-history` (DescribeSpotPriceHistory): the Spot price of a
 * type in a zone from `timestamp` on, until a newer one (docs/cost.md, "Prices").
 */
export interface SpotPrice {
  instanceType: string;
  availabilityZone: string;
  /** US dollars per hour (`SpotPrice`, a decimal string in the API). */
  usd: number;
  /** ISO-8601: when this price took effect. */
  timestamp?: string;
  /** `Linux/UNIX`, `Linux/UNIX (Amazon VPC)`, `Windows`, …. */
  productDescription?: string;
}

/** One subnet of `aws ec2 describe-subnets` (DescribeSubnets). */
export interface Subnet {
  id: string;
  vpcId?: string;
  availabilityZone?: string;
  availabilityZoneId?: string;
  cidrBlock?: string;
  /** Free IPv4 addresses left in the subnet. */
  availableIpAddressCount?: number;
  /** The subnet's IPv6 CIDR blocks (associated ones). */
  ipv6CidrBlocks?: string[];
  /** An IPv6-only subnet (no IPv4 addresses at all). */
  ipv6Native?: boolean;
  mapPublicIpOnLaunch?: boolean;
  /** `available` or `pending`. */
  state?: string;
  tags: Record<string, string>;
}

export interface LaunchTemplate {
  id: string;
  name: string;
  createTime?: string;
  tags: Record<string, string>;
}

export interface InstanceProfile {
  name: string;
  arn?: string;
  path?: string;
  id?: string;
  createDate?: string;
  roles: { name: string; arn?: string }[];
  tags: Record<string, string>;
  /**
   * Why its tags could not be read (ListInstanceProfileTags denied or failing for this profile), when
   * so; `tags` is then empty and proves nothing. The other profiles of the listing are whole.
   */
  tagsUnreadable?: string;
}

/** One line of Karpenter controller log output (JSON line or plain text). */
export interface LogLine {
  /** ISO-8601 when the line carries a time. */
  time?: string;
  /** Upper-case level: ERROR, WARN, INFO, DEBUG. */
  level?: string;
  message: string;
  /** The `error` field of JSON lines. */
  error?: string;
  /** Every field of a JSON line (controller, NodeClaim, NodePool, aws-error-code, ...). */
  fields: Record<string, unknown>;
  /** Where it came from, for evidence: `file:line` (of the record's first line). */
  origin: string;
  /**
   * The record's further lines, when it spans several (a stack trace, an error continued on
   * tab-indented lines), joined by line feeds: matched with the record, never quoted as it.
   */
  continuation?: string;
  /**
   * A line of the previous container's log (`kubectl logs --previous`, a `karpenter-previous.log`
   * capture): what the controller wrote before its last restart. Absent on the current log's lines.
   */
  previous?: true;
}

/**
 * The error codes by which AWS refuses a call for want of permission: IAM and STS `AccessDenied`,
 * EKS, DynamoDB and SSM `AccessDeniedException`, EC2 `UnauthorizedOperation` (the `Client.` form as
 * Karpenter's logs may quote it). Read in Karpenter's logs by the detectors and in the service's own
 * failed calls by the API call metrics.
 */
export const AWS_DENIED_CODES: ReadonlySet<string> = new Set([
  'AccessDenied',
  'AccessDeniedException',
  'UnauthorizedOperation',
  'Client.UnauthorizedOperation',
  'UnauthorizedAccess',
]);
