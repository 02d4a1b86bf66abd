import { commandStep } from '../../domain/finding.ts';
import type { InterruptionQueue } from '../../domain/interruption-queue.ts';
import { isRecord, oneLine } from '../../domain/shape.ts';
import { shellQuote } from '../../domain/shell.ts';
import type { ClusterSnapshot } from '../../domain/snapshot.ts';
import { enableRuleSteps, policyStep, ruleSteps, sendStatement, type FixContext } from './fixes.ts';
import { awsManagedKey, judgeRules, NOT_CONSUMED_AFTER_SECONDS, readWhole } from './pipeline.ts';
import { judgePolicy, policyStatements } from './queue-policy.ts';
import type { Diagnosis } from './diagnosis.ts';

type Problem = Omit<Diagnosis, 'evidence'> & { evidence: string[] };

/**
 * What is wrong with an existing queue, in the order of the catalogue: its rules, its policy, its
 * key, then whether anyone reads it. The first is the cause; the others are named in the detail and
 * fixed by the same steps. Undefined when nothing captured shows a problem (unknown parts are said
 * in the evidence of a finding made for another reason only).
 */
export function queueChecks(snapshot: ClusterSnapshot, queue: InterruptionQueue, fix: FixContext): Diagnosis | undefined {
  const problems = [
    rulesProblem(snapshot, queue, fix),
    policyProblem(queue, fix),
    keyProblem(queue, fix),
    ageProblem(snapshot, queue, fix),
  ].filter((p): p is Problem => p !== undefined);
  const [first, ...others] = problems;
  if (!first) return undefined;
  const unknown = unknownParts(snapshot, queue);
  return {
    ...first,
    detail: [first.detail, ...others.map((o) => `Also: ${o.detail}`)].join(' '),
    evidence: [...problems.flatMap((p) => p.evidence), ...unknown],
    steps: problems.flatMap((p) => p.steps),
  };
}

const shown = (text: string) => oneLine(text, 120);

function unknownParts(snapshot: ClusterSnapshot, queue: InterruptionQueue): string[] {
  return [
    ...(readWhole(snapshot, 'queuerules') ? [] : ['unknown: the EventBridge rules targeting the queue (not captured or a gap)']),
    ...(queue.attributes ? [] : ['unknown: the queue attributes (policy, key)']),
    ...(readWhole(snapshot, 'queueage') ? [] : ['unknown: the age of its oldest message (CloudWatch not captured or a gap)']),
  ];
}

function rulesProblem(snapshot: ClusterSnapshot, queue: InterruptionQueue, fix: FixContext): Problem | undefined {
  if (!readWhole(snapshot, 'queuerules')) return undefined;
  const rules = snapshot.queueRules ?? [];
  const verdict = judgeRules(rules);
  if (!verdict || verdict.missing.length === 0) return undefined;
  const kinds = verdict.missing.map((k) => k.kind).join(', ');
  const arn = queue.attributes?.QueueArn;
  const disabled = verdict.disabled.filter((d) => d.kinds.length > 0);
  const enabled = new Set(disabled.flatMap((d) => d.kinds));
  const toCreate = verdict.missing.filter((k) => !enabled.has(k));
  return {
    cause: 'RULES_MISSING',
    title: `Karpenter's interruption queue ${shown(queue.name)}: no enabled EventBridge rule sends it ${kinds} events`,
    detail: `No enabled EventBridge rule targeting the queue sends ${kinds} events${disabled.length > 0 ? ` (disabled: ${disabled.map((d) => shown(d.rule)).join(', ')})` : ''}: Karpenter never hears of them.`,
    evidence: [
      rules.length === 0
        ? 'aws events list-rule-names-by-target: no rule targets the queue'
        : `rules targeting the queue: ${rules.map((r) => `${shown(r.name)} (${r.state ?? 'state unknown'})`).join(', ')}`,
    ],
    steps: [
      ...enableRuleSteps(disabled, fix.region),
      ...(toCreate.length > 0
        ? arn
          ? ruleSteps(queue.name, toCreate, arn, fix.region)
          : [
              commandStep(
                'the queue ARN, for the rules',
                `aws sqs get-queue-attributes --queue-url ${shellQuote(queue.url ?? queue.name)} --attribute-names QueueArn${fix.region}`,
              ),
            ]
        : []),
    ],
  };
}

function policyProblem(queue: InterruptionQueue, fix: FixContext): Problem | undefined {
  const verdict = judgePolicy(queue);
  if (verdict === undefined || verdict.allows) return undefined;
  const title = `Karpenter's interruption queue ${shown(queue.name)}: its policy does not let EventBridge (events.amazonaws.com) send to it`;
  const consequence = "EventBridge's deliveries fail (the rules' FailedInvocations) and the queue stays empty.";
  if (verdict.reason === 'denied') {
    // A Deny wins over every Allow: adding one changes nothing, the Deny itself must change.
    const denying = policyStatements(queue.attributes?.Policy ?? '')?.[verdict.index];
    const url = shellQuote(queue.url ?? queue.name);
    return {
      cause: 'QUEUE_POLICY_DENIES_EVENTS',
      title,
      detail: `The queue policy's ${shown(verdict.statement)} denies sqs:SendMessage to events.amazonaws.com with no condition, and a Deny overrides any Allow: ${consequence}`,
      evidence: [`queue policy ${shown(verdict.statement)}: ${oneLine(JSON.stringify(denying), 400)}`],
      steps: [
        commandStep(
          'the queue policy as it is',
          `aws sqs get-queue-attributes --queue-url ${url} --attribute-names Policy${fix.region}`,
        ),
        `change the policy's ${shown(verdict.statement)} so it no longer denies events.amazonaws.com sqs:SendMessage (narrow its Principal or Action, or give it a Condition as the getting-started template's DenyHTTP does), then set the policy back with aws sqs set-queue-attributes; an added Allow does not help while that Deny stands`,
      ],
    };
  }
  const arn = queue.attributes?.QueueArn ?? '';
  const current = parsedPolicy(queue.attributes?.Policy);
  const statements =
    current && Array.isArray(current.Statement) ? current.Statement : current?.Statement ? [current.Statement] : [];
  const policy = {
    Version: '2012-10-17',
    ...(current ?? { Id: 'EC2InterruptionPolicy' }),
    Statement: [...statements, sendStatement(arn)],
  };
  return {
    cause: 'QUEUE_POLICY_DENIES_EVENTS',
    title,
    detail: `The queue policy ${verdict.reason === 'no-allow' ? 'has no statement allowing' : 'is missing, so nothing allows'} events.amazonaws.com to sqs:SendMessage: ${consequence}`,
    evidence: [queue.attributes?.Policy ? `queue policy: ${oneLine(queue.attributes.Policy, 400)}` : 'queue policy: none'],
    steps: queue.url ? [policyStep(queue.url, policy, fix.region)] : [],
  };
}

function parsedPolicy(text: string | undefined): Record<string, unknown> | undefined {
  if (!text) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function keyProblem(queue: InterruptionQueue, fix: FixContext): Problem | undefined {
  const key = awsManagedKey(queue);
  if (!key) return undefined;
  const url = shellQuote(queue.url ?? queue.name);
  return {
    cause: 'KMS_KEY_UNUSABLE',
    title: `Karpenter's interruption queue ${shown(queue.name)} is encrypted with the AWS-managed key alias/aws/sqs, which EventBridge cannot use`,
    detail:
      "The queue's SSE-KMS key is the AWS-managed alias/aws/sqs, whose key policy cannot grant events.amazonaws.com kms:GenerateDataKey: EventBridge cannot deliver to it. Karpenter's getting-started template uses SSE-SQS instead; a customer-managed key whose policy allows events.amazonaws.com works too.",
    evidence: [`KmsMasterKeyId: ${shown(key)}`],
    steps: [
      commandStep(
        "switch the queue to SSE-SQS (the getting-started template's encryption)",
        `aws sqs set-queue-attributes --queue-url ${url} --attributes '{"KmsMasterKeyId":"","SqsManagedSseEnabled":"true"}'${fix.region}`,
      ),
      commandStep(
        'check: SqsManagedSseEnabled true and no KmsMasterKeyId',
        `aws sqs get-queue-attributes --queue-url ${url} --attribute-names KmsMasterKeyId SqsManagedSseEnabled${fix.region}`,
      ),
    ],
  };
}

function ageProblem(snapshot: ClusterSnapshot, queue: InterruptionQueue, fix: FixContext): Problem | undefined {
  const age = snapshot.queueOldestMessageAgeSeconds;
  if (!readWhole(snapshot, 'queueage') || age === undefined || age <= NOT_CONSUMED_AFTER_SECONDS) return undefined;
  const url = shellQuote(queue.url ?? queue.name);
  return {
    cause: 'NOT_CONSUMED',
    title: `Karpenter's interruption queue ${shown(queue.name)}: its oldest message is ${Math.round(age)} s old; Karpenter reads it every 20 s`,
    detail: `The oldest message has waited ${Math.round(age)} s (CloudWatch ApproximateAgeOfOldestMessage, maximum over 15 minutes; over ${NOT_CONSUMED_AFTER_SECONDS} s counts): the controller is not receiving from this queue — it is down, set to another queue, or denied sqs:ReceiveMessage (or kms:Decrypt on a customer-managed key).`,
    evidence: [`ApproximateAgeOfOldestMessage: ${Math.round(age)} s`],
    steps: [
      commandStep(
        'messages waiting and in flight',
        `aws sqs get-queue-attributes --queue-url ${url} --attribute-names ApproximateNumberOfMessages ApproximateNumberOfMessagesNotVisible${fix.region}`,
      ),
      commandStep(
        "whether the controller reads the queue (its interruption controller's errors)",
        `kubectl logs -n ${shellQuote(fix.controller?.namespace ?? 'karpenter')} deployment/${shellQuote(fix.controller?.deploymentName ?? 'karpenter')} --tail=500 | grep -i -E 'interruption|queue'`,
      ),
    ],
  };
}
