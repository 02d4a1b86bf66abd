/** A Spot cluster and its interruption queue, healthy unless a test changes one part (docs/findings.md#interruption_handling_off). */
import type { Instance, LogLine } from '../../../../src/domain/aws.ts';
import type { InterruptionQueue, QueueRule } from '../../../../src/domain/interruption-queue.ts';
import type { ConfigMap, Container, NodeClaim } from '../../../../src/domain/kube.ts';
import type { ClusterSnapshot } from '../../../../src/domain/snapshot.ts';
import { cluster, logLine, snapshotOf } from '../../../factories/aws.ts';
import { nodeClaim, nodePool } from '../../../factories/karpenter.ts';
import { T0, karpenterDeployment } from '../../../factories/kube.ts';

export const QUEUE = 'shop-prod';
export const QUEUE_ARN = `arn:aws:sqs:us-east-1:111122223333:${QUEUE}`;
export const QUEUE_URL = `https://sqs.us-east-1.amazonaws.com/111122223333/${QUEUE}`;
export const CLUSTER = 'shop-prod';

/** The getting-started template's policy (Karpenter v1.x): EventBridge may send, plain HTTP is denied. */
export const TEMPLATE_POLICY = JSON.stringify({
  Version: '2008-10-17',
  Id: 'EC2InterruptionPolicy',
  Statement: [
    {
      Effect: 'Allow',
      Principal: { Service: ['events.amazonaws.com', 'sqs.amazonaws.com'] },
      Action: 'sqs:SendMessage',
      Resource: QUEUE_ARN,
    },
    {
      Sid: 'DenyHTTP',
      Effect: 'Deny',
      Action: 'sqs:*',
      Resource: QUEUE_ARN,
      Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      Principal: '*',
    },
  ],
});

export function queue(attributes: Record<string, string | undefined> = {}, name = QUEUE): InterruptionQueue {
  const all: Record<string, string | undefined> = {
    QueueArn: `arn:aws:sqs:us-east-1:111122223333:${name}`,
    Policy: TEMPLATE_POLICY,
    SqsManagedSseEnabled: 'true',
    MessageRetentionPeriod: '300',
    ApproximateNumberOfMessages: '0',
    ...attributes,
  };
  const kept = Object.fromEntries(Object.entries(all).filter((e): e is [string, string] => e[1] !== undefined));
  return { name, exists: true, url: `https://sqs.us-east-1.amazonaws.com/111122223333/${name}`, attributes: kept };
}

const PATTERNS: Record<string, [string, string]> = {
  SpotInterruptionRule: ['aws.ec2', 'EC2 Spot Instance Interruption Warning'],
  RebalanceRule: ['aws.ec2', 'EC2 Instance Rebalance Recommendation'],
  InstanceStateChangeRule: ['aws.ec2', 'EC2 Instance State-change Notification'],
  ScheduledChangeRule: ['aws.health', 'AWS Health Event'],
};

/** The template's four rules as `describe-rule` prints them (CloudFormation names them `<stack>-<Rule>-<random>`). */
export function templateRules(states: Partial<Record<keyof typeof PATTERNS, string>> = {}): QueueRule[] {
  return Object.entries(PATTERNS).map(([rule, [source, detailType]]) => ({
    name: `Karpenter-${CLUSTER}-${rule}-1A2B3C4D5E6F`,
    state: states[rule] ?? 'ENABLED',
    eventPattern: JSON.stringify({ source: [source], 'detail-type': [detailType] }),
  }));
}

function spotClaim(name: string): NodeClaim {
  const claim = nodeClaim({ name, nodeName: `ip-10-0-1-${name.length}.ec2.internal` });
  return {
    ...claim,
    metadata: { ...claim.metadata, labels: { ...claim.metadata?.labels, 'karpenter.sh/capacity-type': 'spot' } },
  };
}

function controller(env: Container['env'], options: { version?: string; args?: string[] } = {}) {
  return karpenterDeployment({
    replicas: 2,
    readyReplicas: 2,
    spec: {
      containers: [
        {
          name: 'controller',
          image: `public.ecr.aws/karpenter/controller:${options.version ?? '1.4.0'}@sha256:0c4f1e2b`,
          env: [{ name: 'CLUSTER_NAME', value: CLUSTER }, ...(env ?? [])],
          ...(options.args ? { args: options.args } : {}),
        },
      ],
    },
  });
}

/** Karpenter v1.4+'s error when the queue is gone (aws@v1.14.1 interruption controller, kubernetes-sigs/karpenter#2490 shape). */
export const V14_NOT_FOUND = logLine({
  level: 'ERROR',
  time: T0,
  logger: 'controller',
  message: 'failed to create valid sqs provider',
  controller: 'interruption',
  error:
    'operation error SQS: GetQueueUrl, https response error StatusCode: 400, RequestID: 9d3b1f0e-2c4a-5e6f-8a7b-0c1d2e3f4a5b, AWS.SimpleQueueService.NonExistentQueue: The specified queue does not exist.',
});

export interface Parts {
  env?: Container['env'];
  version?: string;
  args?: string[];
  queues?: InterruptionQueue[];
  rules?: QueueRule[];
  age?: number;
  logs?: LogLine[];
  claims?: NodeClaim[];
  configMaps?: ConfigMap[];
  instances?: Instance[];
}

/** A v1.4 controller set to QUEUE on a Spot cluster whose queue, rules and consumer are as the template makes them. */
export function interruptionSnapshot(parts: Parts = {}): ClusterSnapshot {
  return snapshotOf(
    {
      deployments: [controller(parts.env ?? [{ name: 'INTERRUPTION_QUEUE', value: QUEUE }], parts)],
      nodeClaims: parts.claims ?? [spotClaim('spot-a1'), spotClaim('spot-b22')],
      nodePools: [nodePool({ name: 'default' })],
      configMaps: parts.configMaps ?? [],
      ...(parts.instances ? { instances: parts.instances } : {}),
      interruptionQueues: parts.queues ?? [queue()],
      queueRules: parts.rules ?? templateRules(),
      ...(parts.age !== undefined ? { queueOldestMessageAgeSeconds: parts.age } : {}),
      logs: parts.logs ?? [],
      cluster: cluster({ name: CLUSTER }),
    },
    CLUSTER,
  );
}
