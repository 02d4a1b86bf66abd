/**
 * The AWS ports measured (measured-ports.ts): each method's API name, the IAM action it is or the
 * actions it chains, and the AWS classifier of its failures. Kept apart from the Kubernetes names so
 * a function that never reaches Kubernetes bundles nothing of it.
 */
import type { AwsPorts, Ec2Port, EksPort, IamPort, InterruptionQueuePort } from '../../ports/aws.ts';
import { awsCallOutcome } from './errors.ts';
import type { ApiCallMeter } from '../calls/api-call-metrics.ts';
import { measured, type ApiNames } from '../calls/measured-ports.ts';

const EC2_APIS: ApiNames<Ec2Port> = {
  describeInstances: () => 'ec2:DescribeInstances',
  terminateInstances: () => 'ec2:TerminateInstances',
  describeLaunchTemplates: () => 'ec2:DescribeLaunchTemplates',
  deleteLaunchTemplate: () => 'ec2:DeleteLaunchTemplate',
  describeSubnets: () => 'ec2:DescribeSubnets',
  // Answered from the region's cache most scans (ports/aws.ts): only the listings that ask EC2 are counted.
  describeInstanceTypes: () => 'ec2:DescribeInstanceTypes',
  describeSpotPrices: () => 'ec2:DescribeSpotPriceHistory',
};

const EKS_APIS: ApiNames<EksPort> = {
  describeCluster: () => 'eks:DescribeCluster',
  listClusters: () => 'eks:ListClusters',
  fargateProfiles: () => 'eks:ListFargateProfiles+DescribeFargateProfile',
  accessEntries: () => 'eks:ListAccessEntries+DescribeAccessEntry',
};

const IAM_APIS: ApiNames<IamPort> = {
  listInstanceProfiles: () => 'iam:ListInstanceProfiles+ListInstanceProfileTags',
  removeRoleFromInstanceProfile: () => 'iam:RemoveRoleFromInstanceProfile',
  deleteInstanceProfile: () => 'iam:DeleteInstanceProfile',
};

const QUEUE_APIS: ApiNames<InterruptionQueuePort> = {
  // GetQueueAttributes only when the queue exists.
  describeQueue: () => 'sqs:GetQueueUrl+GetQueueAttributes',
  rulesTargeting: () => 'events:ListRuleNamesByTarget+DescribeRule',
  oldestMessageAgeSeconds: () => 'cloudwatch:GetMetricStatistics',
};

/** The AWS ports, each call measured. */
export function measuredAwsPorts(ports: AwsPorts, meter: ApiCallMeter): AwsPorts {
  return {
    ec2: measuredEc2(ports.ec2, meter),
    eks: measuredEks(ports.eks, meter),
    iam: measured(ports.iam, IAM_APIS, awsCallOutcome, meter),
    queue: measured(ports.queue, QUEUE_APIS, awsCallOutcome, meter),
    region: ports.region,
  };
}

export function measuredEc2(port: Ec2Port, meter: ApiCallMeter): Ec2Port {
  return measured(port, EC2_APIS, awsCallOutcome, meter);
}

export function measuredEks(port: EksPort, meter: ApiCallMeter): EksPort {
  return measured(port, EKS_APIS, awsCallOutcome, meter);
}
