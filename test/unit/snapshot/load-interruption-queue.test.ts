import { afterEach, describe, expect, it } from 'vitest';
import { loadSnapshot, snapshotFromFiles } from '../../../src/snapshot/load.ts';
import { awsCliDocuments } from '../../../src/snapshot/write/aws-cli-shape.ts';
import { captureDir, removeCaptureDirs } from './capture-dir.ts';

afterEach(removeCaptureDirs);

const ARN = 'arn:aws:sqs:us-west-2:123456789012:karpenter-demo';
const POLICY =
  '{"Version":"2012-10-17","Id":"EC2InterruptionPolicy","Statement":[{"Effect":"Allow","Principal":{"Service":["events.amazonaws.com","sqs.amazonaws.com"]},"Action":"sqs:SendMessage","Resource":"arn:aws:sqs:us-west-2:123456789012:karpenter-demo"}]}';
/** As moto 5.2.1 and aws-cli v1 print them (docs/capture.md). */
const NOT_FOUND =
  '\nAn error occurred (AWS.SimpleQueueService.NonExistentQueue) when calling the GetQueueUrl operation: The specified queue does not exist.\n';

async function reloaded(files: Record<string, string | object>) {
  const { snapshot } = await loadSnapshot([await captureDir(files)]);
  const again = snapshotFromFiles(awsCliDocuments(snapshot).map((d) => ({ path: d.name, text: d.text }))).snapshot;
  return { snapshot, again };
}

describe('loadSnapshot: Karpenter interruption queue (aws sqs, aws events, aws cloudwatch)', () => {
  it('reads the queue found, its attributes, the rules targeting it and the age of its oldest message; snapshot --out writes them back', async () => {
    // Act
    const { snapshot, again } = await reloaded({
      'sqs-queue-url.json': { QueueUrl: 'https://sqs.us-west-2.amazonaws.com/123456789012/karpenter-demo' },
      'sqs-queue-attributes.json': {
        Attributes: { QueueArn: ARN, Policy: POLICY, SqsManagedSseEnabled: 'true', MessageRetentionPeriod: '300' },
      },
      'events-rule-names.json': { RuleNames: ['karpenter-demo-SpotInterruptionRule', 'karpenter-demo-RebalanceRule'] },
      'events-rule-karpenter-demo-RebalanceRule.json': {
        Name: 'karpenter-demo-RebalanceRule',
        Arn: 'arn:aws:events:us-west-2:123456789012:rule/karpenter-demo-RebalanceRule',
        EventPattern: '{"source": ["aws.ec2"], "detail-type": ["EC2 Instance Rebalance Recommendation"]}',
        State: 'DISABLED',
        EventBusName: 'default',
        CreatedBy: '123456789012',
      },
      'sqs-oldest-message-age.json': {
        Label: 'ApproximateAgeOfOldestMessage',
        Datapoints: [
          { Timestamp: '2026-11-29T10:00:00Z', Maximum: 12, Unit: 'Seconds' },
          { Timestamp: '2026-11-29T10:05:00Z', Maximum: 840, Unit: 'Seconds' },
        ],
      },
    });

    // Assess
    expect(snapshot.gaps).toEqual([]);
    expect(snapshot.interruptionQueues).toEqual([
      {
        name: 'karpenter-demo',
        exists: true,
        url: 'https://sqs.us-west-2.amazonaws.com/123456789012/karpenter-demo',
        attributes: { QueueArn: ARN, Policy: POLICY, SqsManagedSseEnabled: 'true', MessageRetentionPeriod: '300' },
      },
    ]);
    expect(snapshot.queueRules).toEqual([
      {
        name: 'karpenter-demo-RebalanceRule',
        state: 'DISABLED',
        eventPattern: '{"source": ["aws.ec2"], "detail-type": ["EC2 Instance Rebalance Recommendation"]}',
      },
      { name: 'karpenter-demo-SpotInterruptionRule' },
    ]);
    expect(snapshot.queueOldestMessageAgeSeconds).toBe(840);
    expect([...snapshot.captured].sort()).toEqual(['interruptionqueue', 'queueage', 'queuerules']);
    expect(again.interruptionQueues).toEqual(snapshot.interruptionQueues);
    expect(again.queueRules).toEqual(snapshot.queueRules);
    expect(again.queueOldestMessageAgeSeconds).toBe(840);
  });

  it("reads a saved NonExistentQueue answer as the setting's queue not existing, not as a gap", async () => {
    // Act
    const { snapshot, again } = await reloaded({ 'sqs-queue-url.json': NOT_FOUND });

    // Assess
    expect(snapshot.gaps).toEqual([]);
    expect(snapshot.captured.has('interruptionqueue')).toBe(true);
    expect(snapshot.interruptionQueues).toEqual([{ name: '', exists: false }]);
    expect(again.interruptionQueues).toEqual([{ name: '', exists: false }]);
  });

  it('takes the name of a queue not found from a file named after it, and keeps it through snapshot --out', async () => {
    // Act
    const { snapshot, again } = await reloaded({
      'sqs-queue-url-karpenter-demo.txt': NOT_FOUND.replace('AWS.SimpleQueueService.NonExistentQueue', 'QueueDoesNotExist'),
    });

    // Assess
    expect(snapshot.interruptionQueues).toEqual([{ name: 'karpenter-demo', exists: false }]);
    expect(again.interruptionQueues).toEqual([{ name: 'karpenter-demo', exists: false }]);
  });

  it('reads AccessDenied on the queue or the rules as a gap: unknown, not absent', async () => {
    // Act
    const { snapshot } = await loadSnapshot([
      await captureDir({
        'sqs-queue-url.json':
          'An error occurred (AccessDenied) when calling the GetQueueUrl operation: Access to the resource https://sqs.us-west-2.amazonaws.com/ is denied.\n',
        'events-rule-names.json':
          'An error occurred (AccessDeniedException) when calling the ListRuleNamesByTarget operation: User: arn:aws:sts::123456789012:assumed-role/scan/x is not authorized to perform: events:ListRuleNamesByTarget\n',
      }),
    ]);

    // Assess
    expect(snapshot.interruptionQueues).toEqual([]);
    expect(snapshot.gaps.map((g) => g.source)).toEqual(['interruptionqueue', 'queuerules']);
    expect(snapshot.captured.has('interruptionqueue')).toBe(false);
  });

  it('says what to capture when the attributes lack QueueArn (a --attribute-names other than All)', async () => {
    // Prepare
    const dir = await captureDir({ 'sqs-queue-attributes.json': { Attributes: { Policy: POLICY } } });

    // Act / Assess
    await expect(loadSnapshot([dir])).rejects.toThrow(/sqs-queue-attributes\.json: .*--attribute-names All/);
  });

  it('reads a CloudWatch answer with no datapoint as captured, age unknown', async () => {
    // Act
    const { snapshot } = await loadSnapshot([
      await captureDir({ 'sqs-oldest-message-age.json': { Label: 'ApproximateAgeOfOldestMessage', Datapoints: [] } }),
    ]);

    // Assess
    expect(snapshot.captured.has('queueage')).toBe(true);
    expect(snapshot.queueOldestMessageAgeSeconds).toBeUndefined();
  });
});

describe('loadSnapshot: an ambiguous NonExistentQueue', () => {
  it('reads "does not exist or you do not have access to it" as a gap, never as a queue that does not exist', async () => {
    // Act
    const { snapshot } = await reloaded({
      'sqs-queue-url.json': NOT_FOUND.replace('does not exist.', 'does not exist or you do not have access to it.'),
    });

    // Assess
    expect(snapshot.interruptionQueues).toEqual([]);
    expect(snapshot.gaps.map((g) => g.source)).toEqual(['interruptionqueue']);
  });
});
