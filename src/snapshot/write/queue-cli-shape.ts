/**
 * Karpenter's interruption queue as the AWS CLI prints it, for `snapshot --out` (the recipe's files,
 * docs/capture.md): reading them back (aws-cli-queue.ts) gives the same records.
 */
import type { InterruptionQueue, QueueRule } from '../../domain/interruption-queue.ts';
import { withoutUndefined, type JsonRecord } from '../../domain/shape.ts';

/** A capture file: as aws-cli-shape.ts's AwsCliDocument (not imported: that module imports this one). */
interface AwsCliDocument {
  name: string;
  json: JsonRecord | JsonRecord[] | string;
  text: string;
}

/** What aws-cli v1 prints for a queue that does not exist (moto and AWS alike, docs/capture.md). */
const NOT_FOUND_TEXT =
  'An error occurred (AWS.SimpleQueueService.NonExistentQueue) when calling the GetQueueUrl operation: The specified queue does not exist.';

/** The file of a NonExistentQueue answer: its name carries the queue's (the error text does not). */
const QUEUE_NOT_FOUND_FILE_PREFIX = 'sqs-queue-url-';

/**
 * `aws sqs get-queue-url` and `get-queue-attributes` of the queues found, one file (`[]` when none
 * was looked up); a queue that does not exist is the CLI's error text in a file named after it.
 */
export function queueFiles(queues: readonly InterruptionQueue[]): AwsCliDocument[] {
  const found = queues
    .filter((q) => q.exists)
    .flatMap((q) => [
      ...(q.url !== undefined ? [{ QueueUrl: q.url }] : []),
      ...(q.attributes !== undefined ? [{ Attributes: q.attributes }] : []),
    ]);
  const missing = queues
    .filter((q) => !q.exists)
    .map((q): AwsCliDocument => {
      const text = `\n${NOT_FOUND_TEXT}\n`;
      return { name: `${QUEUE_NOT_FOUND_FILE_PREFIX}${q.name || 'configured'}.txt`, json: text, text };
    });
  const text = found.length > 0 ? found.map((d) => `${JSON.stringify(d, null, 4)}\n`).join('') : '[]\n';
  return [{ name: 'sqs-queue-url.json', json: found, text }, ...missing];
}

/** `aws events list-rule-names-by-target`, then `aws events describe-rule` of each rule described. */
export function ruleOutputs(rules: readonly QueueRule[]): JsonRecord[] {
  return [
    { RuleNames: rules.map((r) => r.name) },
    ...rules
      .filter((r) => r.state !== undefined || r.eventPattern !== undefined)
      .map((r) => withoutUndefined({ Name: r.name, EventPattern: r.eventPattern, State: r.state, EventBusName: 'default' })),
  ];
}

/** `aws cloudwatch get-metric-statistics ... --statistics Maximum`: one datapoint, or none. */
export function oldestMessageAgeOutput(ageSeconds: number | undefined): JsonRecord {
  return {
    Label: 'ApproximateAgeOfOldestMessage',
    Datapoints: ageSeconds === undefined ? [] : [{ Maximum: ageSeconds, Unit: 'Seconds' }],
  };
}
