/**
 * The AWS CLI outputs about Karpenter's interruption queue (docs/capture.md): `aws sqs
 * get-queue-url`, `aws sqs get-queue-attributes --attribute-names All`, `aws events
 * list-rule-names-by-target`, `aws events describe-rule`, and `aws cloudwatch
 * get-metric-statistics` of `ApproximateAgeOfOldestMessage`.
 */
import { queueNameIn, type InterruptionQueue, type QueueRule } from '../domain/interruption-queue.ts';
import { arrayAt, isRecord, optNumber, optText, ShapeError, stringAt, stringRecord, type JsonRecord } from '../domain/shape.ts';

export type QueueCliOutput =
  | { source: 'interruptionqueue'; queues: InterruptionQueue[] }
  | { source: 'queuerules'; rules: QueueRule[] }
  /** No `ageSeconds` when CloudWatch returned no datapoint for the period asked. */
  | { source: 'queueage'; ageSeconds?: number };

const AGE_METRIC = 'ApproximateAgeOfOldestMessage';

/** The top-level key each command prints, and how to read it (aws-cli.ts READERS). */
export const QUEUE_READERS: readonly [key: string, read: (document: JsonRecord) => QueueCliOutput][] = [
  ['QueueUrl', readQueueUrl], // aws sqs get-queue-url
  ['Attributes', readQueueAttributes], // aws sqs get-queue-attributes
  ['RuleNames', readRuleNames], // aws events list-rule-names-by-target
  ['EventBusName', readRule], // aws events describe-rule
  ['Datapoints', readOldestMessageAge], // aws cloudwatch get-metric-statistics
];

/** `{"QueueUrl": "https://sqs.us-east-1.amazonaws.com/111122223333/NAME"}`: the queue exists; its name ends the URL. */
function readQueueUrl(document: JsonRecord): QueueCliOutput {
  const url = stringAt(document, 'QueueUrl', '');
  return { source: 'interruptionqueue', queues: [{ name: queueNameIn(url), exists: true, url }] };
}

/** `{"Attributes": {"QueueArn": ..., ...}}`: the name ends the ARN. Without QueueArn nothing says which queue it is. */
function readQueueAttributes(document: JsonRecord): QueueCliOutput {
  if (!isRecord(document.Attributes)) throw new ShapeError('Attributes is not an object');
  const attributes = stringRecord(document.Attributes);
  const arn = attributes.QueueArn;
  if (!arn) {
    throw new ShapeError(
      'queue attributes without QueueArn: capture `aws sqs get-queue-attributes --queue-url URL --attribute-names All`',
    );
  }
  return { source: 'interruptionqueue', queues: [{ name: queueNameIn(arn), exists: true, attributes }] };
}

function readRuleNames(document: JsonRecord): QueueCliOutput {
  const names = arrayAt(document, 'RuleNames', '').filter((n): n is string => typeof n === 'string' && n !== '');
  return { source: 'queuerules', rules: names.map((name) => ({ name })) };
}

/** One rule, as `describe-rule` prints it: `Name`, `State`, `EventPattern` (a JSON string). */
function readRule(document: JsonRecord): QueueCliOutput {
  const rule: QueueRule = { name: stringAt(document, 'Name', 'rule ') };
  const state = optText(document.State);
  if (state) rule.state = state;
  const pattern = optText(document.EventPattern);
  if (pattern) rule.eventPattern = pattern;
  return { source: 'queuerules', rules: [rule] };
}

/** The largest `Maximum` of the datapoints, in seconds; none when CloudWatch returned none. */
function readOldestMessageAge(document: JsonRecord): QueueCliOutput {
  const label = optText(document.Label);
  if (label !== undefined && label !== AGE_METRIC) {
    throw new ShapeError(`CloudWatch statistics of ${label}: only ${AGE_METRIC} (namespace AWS/SQS) is read`);
  }
  const maxima = arrayAt(document, 'Datapoints', '').flatMap((p) => {
    const max = isRecord(p) ? optNumber(p.Maximum) : undefined;
    return max === undefined ? [] : [max];
  });
  return maxima.length > 0 ? { source: 'queueage', ageSeconds: Math.max(...maxima) } : { source: 'queueage' };
}
