import type { InterruptionQueue, QueueRule } from '../../domain/interruption-queue.ts';
import { isRecord } from '../../domain/shape.ts';
import type { ClusterSnapshot, SourceName } from '../../domain/snapshot.ts';

/**
 * What feeds and what reads an existing interruption queue (docs/findings.md#interruption_handling_off):
 * the EventBridge rules targeting it, its policy, its encryption key, the age of its oldest message.
 * Each check answers only from what was captured; `undefined` means it cannot tell.
 */

/** The event kinds Karpenter's getting-started CloudFormation sends to the queue, one rule each. */
export const EVENT_KINDS = [
  {
    kind: 'Spot interruption',
    source: 'aws.ec2',
    detailType: 'EC2 Spot Instance Interruption Warning',
    rule: 'SpotInterruption',
  },
  { kind: 'rebalance recommendation', source: 'aws.ec2', detailType: 'EC2 Instance Rebalance Recommendation', rule: 'Rebalance' },
  {
    kind: 'instance state change',
    source: 'aws.ec2',
    detailType: 'EC2 Instance State-change Notification',
    rule: 'InstanceStateChange',
  },
  { kind: 'scheduled change', source: 'aws.health', detailType: 'AWS Health Event', rule: 'ScheduledChange' },
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

export interface RulesVerdict {
  /** Kinds no ENABLED rule targeting the queue sends. */
  missing: EventKind[];
  /** DISABLED rules and the missing kinds they would send (enabling them is the fix). */
  disabled: { rule: string; kinds: EventKind[] }[];
}

/** undefined when the rules could not be judged: not captured, or some rule not described. */
export function judgeRules(rules: readonly QueueRule[] | undefined): RulesVerdict | undefined {
  if (!rules || rules.some((r) => r.eventPattern === undefined && r.state !== 'DISABLED')) return undefined;
  const covers = (rule: QueueRule, kind: EventKind) => patternCovers(rule.eventPattern, kind);
  const enabled = rules.filter((r) => r.state === undefined || r.state === 'ENABLED');
  const missing = EVENT_KINDS.filter((k) => !enabled.some((r) => covers(r, k) === true));
  const disabled = rules
    .filter((r) => r.state === 'DISABLED')
    .map((r) => ({ rule: r.name, kinds: missing.filter((k) => covers(r, k) === true) }));
  return { missing, disabled };
}

/** Whether an EventBridge pattern matches the kind's `source` and `detail-type` (a field it leaves out matches anything). */
function patternCovers(pattern: string | undefined, kind: EventKind): boolean | undefined {
  if (pattern === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(pattern);
  } catch {
    return undefined;
  }
  if (!isRecord(parsed)) return undefined;
  const allows = (field: unknown, value: string) => field === undefined || (Array.isArray(field) && field.includes(value));
  return allows(parsed.source, kind.source) && allows(parsed['detail-type'], kind.detailType);
}

/** The AWS-managed SQS key, by alias or alias ARN: EventBridge cannot use it (its key policy cannot be changed). */
export function awsManagedKey(queue: InterruptionQueue): string | undefined {
  const key = queue.attributes?.KmsMasterKeyId;
  return key !== undefined && /^(?:arn:aws[a-z-]*:kms:[^:]*:\d*:)?alias\/aws\/sqs$/.test(key) ? key : undefined;
}

/**
 * Karpenter long-polls its queue every 20 s (10 messages, 20 s wait); a message older than this has
 * sat through nine polls. Below the getting-started queue's 300 s retention, so it can be seen at all.
 */
export const NOT_CONSUMED_AFTER_SECONDS = 180;

/** Whether a source was read without a gap: only then may what it does not hold count. */
export function readWhole(snapshot: ClusterSnapshot, source: SourceName): boolean {
  return snapshot.captured.has(source) && !snapshot.gaps.some((g) => g.source === source);
}
