/**
 * Karpenter's interruption pipeline as the account has it: the SQS queue its setting names and the
 * EventBridge rules that send to it (docs/findings.md#interruption_handling_off, docs/capture.md).
 * Read live (sources `interruptionqueue`, `queuerules`, `queueage`) or from the captured aws CLI
 * outputs; the detector judges them.
 */

/** Karpenter's interruption queue as the account has it. */
export interface InterruptionQueue {
  /**
   * The queue name looked up: the setting, or the last segment of an ARN/URL given as the setting.
   * '' for a capture's saved NonExistentQueue error, which does not repeat the name: the queue the
   * setting names (docs/capture.md).
   */
  name: string;
  /** false when GetQueueUrl said AWS.SimpleQueueService.NonExistentQueue / QueueDoesNotExist. */
  exists: boolean;
  url?: string;
  /**
   * GetQueueAttributes `All`, as AWS gives them (strings): QueueArn, Policy, KmsMasterKeyId,
   * SqsManagedSseEnabled, ApproximateNumberOfMessages, MessageRetentionPeriod, … An attribute AWS
   * did not return is absent (no `Policy` key: the queue has no policy).
   */
  attributes?: Record<string, string>;
}

/** An EventBridge rule that targets the queue (ListRuleNamesByTarget, then DescribeRule each). */
export interface QueueRule {
  name: string;
  /** `ENABLED` / `DISABLED` (DescribeRule); absent when only the name is known. */
  state?: string;
  /** The rule's event pattern, a JSON string as DescribeRule gives it; absent when only the name is known. */
  eventPattern?: string;
}

/** An SQS queue ARN (`arn:aws:sqs:us-east-1:111122223333:name`, any partition): what Karpenter does not take as the setting. */
export const QUEUE_ARN = /^arn:aws[a-z-]*:sqs:/;
/** A queue URL (`https://sqs.us-east-1.amazonaws.com/111122223333/name`, or a local endpoint's). */
export const QUEUE_URL = /^https?:\/\//;

/**
 * The queue name in an ARN or URL: its last `:` or `/` segment. Karpenter passes its setting to
 * GetQueueUrl as `QueueName` unchanged, so an ARN or URL there names no queue; this is the name
 * that was meant. Text that is neither comes back as it is.
 */
export function queueNameIn(setting: string): string {
  if (QUEUE_ARN.test(setting)) return setting.slice(setting.lastIndexOf(':') + 1);
  if (QUEUE_URL.test(setting)) return setting.replace(/\/+$/, '').slice(setting.replace(/\/+$/, '').lastIndexOf('/') + 1);
  return setting;
}

/**
 * SQS has also answered NonExistentQueue with `The specified queue does not exist or you do not have
 * access to it.`: a refusal it will not tell from absence, so no proof the queue is missing (a gap).
 */
export function queueAnswerMayBeDenial(message: string): boolean {
  return /do not have access/i.test(message);
}
