import { commandStep } from '../../domain/finding.ts';
import { shellQuote } from '../../domain/shell.ts';
import type { ControllerInfo } from '../../domain/snapshot-index.ts';
import { helmUpgrade, karpenterRelease } from '../karpenter/helm.ts';
import { versionAtLeast } from '../karpenter/version.ts';
import { EVENT_KINDS, type EventKind } from './pipeline.ts';
import { CONFIGMAP_KEY, SETTINGS_CONFIGMAP, type QueueSetting } from './queue-setting.ts';

/**
 * The steps of INTERRUPTION_HANDLING_OFF (docs/findings.md#interruption_handling_off): the queue,
 * policy and rules as Karpenter's getting-started CloudFormation makes them, by aws CLI, and the
 * setting by Helm. Every value from the capture is shell-quoted.
 */
export interface FixContext {
  controller: ControllerInfo | undefined;
  version: string | undefined;
  setting: QueueSetting;
  /** ` --region us-east-1`, or '' when unknown. */
  region: string;
}

/** The getting-started template's target id and policy (docs/findings.md#interruption_handling_off). */
const TARGET_ID = 'KarpenterInterruptionQueueTarget';
const CLOUDFORMATION_DOC = 'https://karpenter.sh/docs/reference/cloudformation/#interruption-handling';

/**
 * The Helm values that set the queue: `settings.aws.interruptionQueueName` before v0.32,
 * `settings.interruptionQueue` from v0.33. v0.32's chart renders `or .Values.settings.aws.interruptionQueueName
 * .Values.settings.interruptionQueue` (aws@v0.32.0 charts/karpenter/templates/deployment.yaml:141), so
 * an old value kept by --reuse-values wins: both are set there, and when the version is unknown but
 * the setting came from the ConfigMap (a chart before v0.33).
 */
function helmSets(ctx: FixContext, name: string): string[] {
  const old = `settings.aws.interruptionQueueName=${name}`;
  if (versionAtLeast(ctx.version, 0, 32) === false) return [old];
  const v032 = versionAtLeast(ctx.version, 0, 33) === false;
  const fromConfigMap = ctx.setting.state === 'set' && ctx.setting.from.startsWith('ConfigMap ');
  return v032 || (versionAtLeast(ctx.version, 0, 0) === undefined && fromConfigMap)
    ? [`settings.interruptionQueue=${name}`, old]
    : [`settings.interruptionQueue=${name}`];
}

/** Points the setting at `name` where the controller reads it: its arg, the v0.19 ConfigMap, or the chart's value. */
export function setQueueStep(ctx: FixContext, name: string, why: string): string {
  const release = karpenterRelease(ctx.controller);
  const ns = shellQuote(release.namespace);
  if (ctx.setting.state === 'set' && ctx.setting.from.startsWith('arg ')) {
    const deployment = shellQuote(ctx.controller?.deploymentName ?? 'karpenter');
    const change = name
      ? `change the controller's --interruption-queue arg to ${name}`
      : "remove the controller's --interruption-queue arg";
    return commandStep(`${why}: ${change}`, `kubectl edit deployment -n ${ns} ${deployment}`);
  }
  // v0.19's chart has no value for it: the ConfigMap is edited, and read again at start-up.
  if (versionAtLeast(ctx.version, 0, 20) === false) {
    const patch = JSON.stringify({ data: { [CONFIGMAP_KEY]: name } });
    return commandStep(
      why,
      `kubectl patch configmap ${SETTINGS_CONFIGMAP} -n ${ns} --type merge -p ${shellQuote(patch)} && kubectl rollout restart deployment -n ${ns} ${shellQuote(ctx.controller?.deploymentName ?? 'karpenter')}`,
    );
  }
  return commandStep(why, helmUpgrade(release, helmSets(ctx, name)));
}

/** Turns interruption handling off on purpose (what Karpenter's maintainers advise when no queue is wanted). */
export function unsetQueueStep(ctx: FixContext): string {
  return setQueueStep(ctx, '', 'or, to run without interruption handling, unset the setting');
}

function ruleName(queue: string, kind: EventKind): string {
  const base = /^[A-Za-z0-9_-]{1,80}$/.test(queue) ? queue.slice(0, 63 - kind.rule.length) : 'Karpenter';
  return `${base}-${kind.rule}`;
}

/** put-rule and put-targets for each kind, the target given as `arn` (a literal ARN, or "$queue_arn"). */
export function ruleSteps(queue: string, kinds: readonly EventKind[], arn: string, region: string): string[] {
  return kinds.map((kind) => {
    const name = shellQuote(ruleName(queue, kind));
    const pattern = shellQuote(JSON.stringify({ source: [kind.source], 'detail-type': [kind.detailType] }));
    return commandStep(
      `send ${kind.kind} events to the queue (the getting-started template's rule)`,
      `aws events put-rule --name ${name} --event-pattern ${pattern}${region}\naws events put-targets --rule ${name} --targets ${arn === '"$queue_arn"' ? `"Id=${TARGET_ID},Arn=$queue_arn"` : shellQuote(`Id=${TARGET_ID},Arn=${arn}`)}${region}`,
    );
  });
}

export function enableRuleSteps(disabled: readonly { rule: string; kinds: readonly EventKind[] }[], region: string): string[] {
  return disabled
    .filter((d) => d.kinds.length > 0)
    .map((d) =>
      commandStep(
        `rule ${d.rule} sends ${d.kinds.map((k) => k.kind).join(', ')} events but is DISABLED`,
        `aws events enable-rule --name ${shellQuote(d.rule)}${region}`,
      ),
    );
}

/** The template's statement: events.amazonaws.com (and sqs.amazonaws.com) may send to the queue. */
export function sendStatement(queueArn: string): Record<string, unknown> {
  return {
    Effect: 'Allow',
    Principal: { Service: ['events.amazonaws.com', 'sqs.amazonaws.com'] },
    Action: 'sqs:SendMessage',
    Resource: queueArn,
  };
}

/**
 * set-queue-attributes with `policy` from a file written by a quoted here-document (nothing in it
 * is expanded): the existing statements kept, the send statement added.
 */
export function policyStep(queueUrl: string, policy: Record<string, unknown>, region: string): string {
  const attributes = JSON.stringify({ Policy: JSON.stringify(policy) });
  return commandStep(
    'let EventBridge send to the queue: the policy it has, plus the getting-started template statement',
    `cat > queue-attributes.json <<'EOF'\n${attributes}\nEOF\naws sqs set-queue-attributes --queue-url ${shellQuote(queueUrl)} --attributes file://queue-attributes.json${region}`,
  );
}

/** A new queue, its policy and rules, as the getting-started template makes them (SSE-SQS, 300 s retention). */
export function createQueueSteps(ctx: FixContext, name: string): string[] {
  const q = shellQuote(name);
  const policy = JSON.stringify({ Version: '2012-10-17', Id: 'EC2InterruptionPolicy', Statement: [sendStatement('QUEUE_ARN')] });
  // The ARN is known only once the queue exists: the here-document expands $queue_arn and nothing else.
  const attributes = JSON.stringify({ Policy: policy }).replace('QUEUE_ARN', '$queue_arn');
  return [
    commandStep(
      `create the queue ${name} as Karpenter's getting-started template does (or deploy that template: ${CLOUDFORMATION_DOC})`,
      `queue_url=$(aws sqs create-queue --queue-name ${q} --attributes MessageRetentionPeriod=300,SqsManagedSseEnabled=true --query QueueUrl --output text${ctx.region})`,
    ),
    commandStep(
      'its ARN, for the policy and the rules',
      `queue_arn=$(aws sqs get-queue-attributes --queue-url "$queue_url" --attribute-names QueueArn --query Attributes.QueueArn --output text${ctx.region})`,
    ),
    commandStep(
      'let EventBridge send to it',
      `cat > queue-attributes.json <<EOF\n${attributes}\nEOF\naws sqs set-queue-attributes --queue-url "$queue_url" --attributes file://queue-attributes.json${ctx.region}`,
    ),
    ...ruleSteps(name, EVENT_KINDS, '"$queue_arn"', ctx.region),
    "the controller's role needs sqs:DeleteMessage, sqs:GetQueueUrl and sqs:ReceiveMessage on the queue (the getting-started policy's AllowInterruptionQueueActions statement)",
  ];
}
