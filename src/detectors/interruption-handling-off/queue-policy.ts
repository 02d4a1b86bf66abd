import type { InterruptionQueue } from '../../domain/interruption-queue.ts';
import { isRecord } from '../../domain/shape.ts';

/**
 * Whether the queue policy lets EventBridge (events.amazonaws.com) send to the queue, read as IAM
 * reads it (docs/findings.md#interruption_handling_off): a statement applies when its principal
 * names events.amazonaws.com or `*` (as `"*"`, `Service`, or `AWS` string or list), an action
 * matches sqs:SendMessage (IAM wildcards `*` `?`, case-insensitive), and a resource matches the
 * queue's ARN (wildcards; a missing Resource is the queue's own). An unconditional Deny that applies
 * overrides every Allow; a conditional one is not judged (it may never match EventBridge).
 */
export type PolicyVerdict =
  | { allows: true }
  | { allows: false; reason: 'none' | 'no-allow' }
  /** `statement` names the Deny: `Sid X`, else `statement N` (1-based), as it appears in the policy. */
  | { allows: false; reason: 'denied'; statement: string; index: number };

const EVENTS = 'events.amazonaws.com';
const SEND = 'sqs:SendMessage';

/** undefined when the attributes were not captured or the policy cannot be read. */
export function judgePolicy(queue: InterruptionQueue): PolicyVerdict | undefined {
  if (!queue.attributes) return undefined;
  const text = queue.attributes.Policy;
  if (text === undefined || text === '') return { allows: false, reason: 'none' };
  const statements = policyStatements(text);
  if (!statements) return undefined;
  const arn = queue.attributes.QueueArn;
  const applies = (s: Record<string, unknown>) =>
    principalIsEvents(s.Principal) && actionIsSend(s.Action) && resourceIsQueue(s.Resource, arn);
  const deny = statements.findIndex((s) => s.Effect === 'Deny' && s.Condition === undefined && applies(s));
  if (deny >= 0) {
    const sid = statements[deny]?.Sid;
    return {
      allows: false,
      reason: 'denied',
      statement: typeof sid === 'string' && sid ? `Sid ${sid}` : `statement ${deny + 1}`,
      index: deny,
    };
  }
  return statements.some((s) => s.Effect === 'Allow' && applies(s)) ? { allows: true } : { allows: false, reason: 'no-allow' };
}

/** The statements of a policy document, each an object; undefined when it is not one. */
export function policyStatements(text: string): Record<string, unknown>[] | undefined {
  let policy: unknown;
  try {
    policy = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(policy)) return undefined;
  return (Array.isArray(policy.Statement) ? policy.Statement : [policy.Statement]).filter(isRecord);
}

const listOf = (v: unknown): unknown[] => (Array.isArray(v) ? v : [v]);

function principalIsEvents(principal: unknown): boolean {
  if (principal === '*') return true;
  if (!isRecord(principal)) return false;
  return listOf(principal.Service).some((x) => x === EVENTS || x === '*') || listOf(principal.AWS).some((x) => x === '*');
}

/** IAM's wildcard match: `*` any run, `?` one character. */
function wildcard(pattern: string, flags: string): RegExp {
  const body = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${body}$`, flags);
}

function actionIsSend(action: unknown): boolean {
  return listOf(action).some((a) => typeof a === 'string' && wildcard(a, 'i').test(SEND));
}

function resourceIsQueue(resource: unknown, arn: string | undefined): boolean {
  if (resource === undefined) return true;
  return listOf(resource).some((r) => typeof r === 'string' && (arn === undefined ? true : wildcard(r, '').test(arn)));
}
