/**
 * Karpenter's interruption pipeline as the account has it: the SQS queue its setting names and the
 * EventBridge rules that send to it (docs/findings.md#interruption_handling_off, docs/capture.md).
 * Read live (sources `interruptionqueue`, `queuerules`, `queueage`) or from the captured aws CLI
 * outputs; the detector judges them.
 */

/** Karpenter's interruption queue as the account has it. */
export interface InterruptionQueue {
  /** The queue name looked up: the setting, or the last segment of an ARN/URL given as the setting. */
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
