/**
 * The interruption-queue adapter against moto_server on 127.0.0.1 (pip install 'moto[server]'): the
 * real SDK clients, their real protocols (SQS over JSON with query-compatible error codes,
 * EventBridge, CloudWatch), and the queue, policy and rules of Karpenter's getting-started
 * CloudFormation, against a broken variant. moto stores what it is given and delivers no metrics
 * (docs/simulator.md): the checks are on what the adapter reads, not on what EventBridge would do.
 */
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { DisableRuleCommand, EventBridgeClient, PutRuleCommand, PutTargetsCommand } from '@aws-sdk/client-eventbridge';
import { CreateQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InterruptionQueueAdapter } from '../../../src/adapters/aws/interruption-queue.ts';
import { SourceError } from '../../../src/ports/errors.ts';
import { startMoto, type Moto } from '../../support/moto.ts';

const REGION = 'us-west-2';
const CREDENTIALS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'not-a-secret' };

/** The four rules of Karpenter's getting-started template (website/.../cloudformation.yaml), as EventBridge stores them. */
const TEMPLATE_PATTERNS = {
  ScheduledChangeRule: { source: ['aws.health'], 'detail-type': ['AWS Health Event'] },
  SpotInterruptionRule: { source: ['aws.ec2'], 'detail-type': ['EC2 Spot Instance Interruption Warning'] },
  RebalanceRule: { source: ['aws.ec2'], 'detail-type': ['EC2 Instance Rebalance Recommendation'] },
  InstanceStateChangeRule: { source: ['aws.ec2'], 'detail-type': ['EC2 Instance State-change Notification'] },
};

function templatePolicy(queueArn: string): string {
  return JSON.stringify({
    Id: 'EC2InterruptionPolicy',
    Statement: [
      {
        Effect: 'Allow',
        Principal: { Service: ['events.amazonaws.com', 'sqs.amazonaws.com'] },
        Action: 'sqs:SendMessage',
        Resource: queueArn,
      },
    ],
  });
}

let moto: Moto;
let clients: { sqs: SQSClient; events: EventBridgeClient; cloudwatch: CloudWatchClient };

beforeAll(async () => {
  moto = await startMoto();
  const config = { region: REGION, endpoint: moto.endpoint, credentials: CREDENTIALS };
  clients = { sqs: new SQSClient(config), events: new EventBridgeClient(config), cloudwatch: new CloudWatchClient(config) };
}, 20_000);

afterAll(() => {
  moto?.close();
});

/** A queue as the template makes it (name, 300 s retention, SSE-SQS, the policy), with its rules; `broken` as users break it. */
async function createPipeline(name: string, broken = false): Promise<string> {
  const arn = `arn:aws:sqs:${REGION}:123456789012:${name}`;
  await clients.sqs.send(
    new CreateQueueCommand({
      QueueName: name,
      Attributes: broken
        ? { MessageRetentionPeriod: '300', KmsMasterKeyId: 'alias/aws/sqs' }
        : { MessageRetentionPeriod: '300', SqsManagedSseEnabled: 'true', Policy: templatePolicy(arn) },
    }),
  );
  const rules = broken ? { SpotInterruptionRule: TEMPLATE_PATTERNS.SpotInterruptionRule } : TEMPLATE_PATTERNS;
  for (const [rule, pattern] of Object.entries(rules)) {
    const ruleName = `${name}-${rule}`;
    await clients.events.send(new PutRuleCommand({ Name: ruleName, EventPattern: JSON.stringify(pattern) }));
    await clients.events.send(
      new PutTargetsCommand({ Rule: ruleName, Targets: [{ Id: 'KarpenterInterruptionQueueTarget', Arn: arn }] }),
    );
    if (broken) await clients.events.send(new DisableRuleCommand({ Name: ruleName }));
  }
  return arn;
}

describe('InterruptionQueueAdapter against moto', () => {
  it("reads the getting-started queue's attributes, its four enabled rules with their patterns, and no age when CloudWatch has none", async () => {
    // Prepare
    const arn = await createPipeline('demo-cluster');
    const adapter = new InterruptionQueueAdapter(clients);

    // Act
    const queue = await adapter.describeQueue('demo-cluster');
    const rules = await adapter.rulesTargeting(arn);
    const age = await adapter.oldestMessageAgeSeconds('demo-cluster', new Date());

    // Assess
    expect(queue).toMatchObject({ name: 'demo-cluster', exists: true, url: expect.stringContaining('/demo-cluster') });
    expect(queue.attributes).toMatchObject({ QueueArn: arn, MessageRetentionPeriod: '300', SqsManagedSseEnabled: 'true' });
    expect(JSON.parse(queue.attributes?.Policy ?? '{}')).toMatchObject({ Id: 'EC2InterruptionPolicy' });
    expect(queue.attributes).not.toHaveProperty('KmsMasterKeyId');
    expect(rules.map((r) => [r.name, r.state, JSON.parse(r.eventPattern ?? '{}')]).sort()).toEqual(
      Object.entries(TEMPLATE_PATTERNS)
        .map(([rule, pattern]) => [`demo-cluster-${rule}`, 'ENABLED', pattern])
        .sort(),
    );
    expect(age).toBeUndefined();
  });

  it('reads a broken variant as it is: no policy, the AWS-managed key, one rule and that one disabled', async () => {
    // Prepare
    const arn = await createPipeline('broken-cluster', true);
    const adapter = new InterruptionQueueAdapter(clients);

    // Act
    const queue = await adapter.describeQueue('broken-cluster');
    const rules = await adapter.rulesTargeting(arn);

    // Assess
    expect(queue.exists).toBe(true);
    expect(queue.attributes).toMatchObject({ KmsMasterKeyId: 'alias/aws/sqs' });
    expect(queue.attributes).not.toHaveProperty('Policy');
    expect(rules).toEqual([
      {
        name: 'broken-cluster-SpotInterruptionRule',
        state: 'DISABLED',
        eventPattern: JSON.stringify(TEMPLATE_PATTERNS.SpotInterruptionRule),
      },
    ]);
  });

  it("answers exists: false for a typo'd name and for an ARN given as the name (SQS's NonExistentQueue), not a failure", async () => {
    // Prepare
    const arn = await createPipeline('typo-cluster');
    const adapter = new InterruptionQueueAdapter(clients);

    // Act
    const typo = await adapter.describeQueue('typo-clsuter');
    const byArn = await adapter.describeQueue(arn);

    // Assess
    expect(typo).toEqual({ name: 'typo-clsuter', exists: false });
    expect(byArn).toEqual({ name: arn, exists: false });
  });

  it('lists no rule for a queue nothing targets', async () => {
    // Prepare
    await clients.sqs.send(new CreateQueueCommand({ QueueName: 'lonely-cluster' }));
    const adapter = new InterruptionQueueAdapter(clients);

    // Act
    const rules = await adapter.rulesTargeting(`arn:aws:sqs:${REGION}:123456789012:lonely-cluster`);

    // Assess
    expect(rules).toEqual([]);
  });

  it('fails a call SQS refuses as a SourceError naming the operation (a gap, never exists: false)', async () => {
    // Prepare: an endpoint that answers every request with SQS's denial.
    const { createServer } = await import('node:http');
    const server = createServer((_request, response) => {
      response.writeHead(400, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-query-error': 'AccessDenied;Sender' });
      response.end(JSON.stringify({ __type: 'com.amazonaws.sqs#AccessDenied', message: 'Access to the resource is denied.' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const denied = new SQSClient({
      region: REGION,
      endpoint: `http://127.0.0.1:${port}`,
      credentials: CREDENTIALS,
      maxAttempts: 1,
    });
    const adapter = new InterruptionQueueAdapter({ ...clients, sqs: denied });

    // Act
    const read = adapter.describeQueue('demo-cluster');

    // Assess
    await expect(read).rejects.toBeInstanceOf(SourceError);
    await expect(read).rejects.toThrow(/^GetQueueUrl failed: AccessDenied: Access to the resource is denied\./);
    server.close();
  });
});
