import { commandStep } from '../../domain/finding.ts';
import { QUEUE_ARN, QUEUE_URL, queueNameIn, type InterruptionQueue } from '../../domain/interruption-queue.ts';
import { shellQuote } from '../../domain/shell.ts';
import type { ClusterSnapshot } from '../../domain/snapshot.ts';
import type { ControllerInfo } from '../../domain/snapshot-index.ts';
import { oneLine } from '../../domain/shape.ts';
import { regionFlag, regionOf } from '../aws-iam/iam-arn.ts';
import { createQueueSteps, setQueueStep, unsetQueueStep, type FixContext } from './fixes.ts';
import { readWhole } from './pipeline.ts';
import type { Diagnosis } from './diagnosis.ts';
import { queueChecks } from './queue-checks.ts';
import type { QueueLog } from './queue-log.ts';
import type { QueueSetting } from './queue-setting.ts';
import { spotInUse, type SpotUse } from './spot-use.ts';

export interface DiagnoseInput {
  snapshot: ClusterSnapshot;
  controller: ControllerInfo | undefined;
  version: string | undefined;
  setting: QueueSetting;
  log: QueueLog;
  spot: SpotUse;
  clusterName: string | undefined;
}

const PREFIX = "Karpenter's interruption queue";
/** A name from the capture as the title and detail show it: one line, bounded. */
const shown = (text: string) => oneLine(text, 120);

/**
 * The setting first (nothing can be looked up without it), then the queue it names, then what feeds
 * and reads that queue (docs/findings.md#interruption_handling_off says why this order). Undefined
 * when nothing is wrong, or nothing captured says so.
 */
export function diagnose(input: DiagnoseInput): Diagnosis | undefined {
  const { setting } = input;
  if (setting.state === 'unset') return notConfigured(input);
  if (setting.state === 'unknown') return settingUnknown(input, setting.why);
  const name = queueNameIn(setting.value);
  const fix = fixContext(input, lookedUp(input, name));
  if (QUEUE_ARN.test(setting.value) || QUEUE_URL.test(setting.value)) return nameInvalid(input, setting, name, fix);
  const queue = lookedUp(input, name);
  if (queue?.exists === false || (queue === undefined && input.log.notFound)) return missing(input, setting, queue, fix);
  if (queue?.exists === true && input.log.notFound) return existsButControllerSaysMissing(input, setting, queue);
  const checked = queue?.exists === true ? queueChecks(input.snapshot, queue, fix) : undefined;
  if (checked) return { ...checked, evidence: [settingEvidence(setting), ...checked.evidence] };
  if (input.log.otherError) return otherQueueError(input, setting, name);
  return undefined;
}

type SetSetting = Extract<QueueSetting, { state: 'set' }>;

function settingEvidence(setting: SetSetting): string {
  return `queue setting: ${shown(setting.value)} (${setting.from})`;
}

/** The configured queue as looked up: by name, or the capture's unnamed NonExistentQueue answer. */
function lookedUp(input: DiagnoseInput, name: string): InterruptionQueue | undefined {
  const queues = input.snapshot.interruptionQueues ?? [];
  return queues.find((q) => q.name === name) ?? queues.find((q) => q.name === '');
}

/** The queue named after the cluster, found existing (Karpenter's getting-started convention). */
function clusterQueue(input: DiagnoseInput, other: string | undefined): InterruptionQueue | undefined {
  const cluster = input.clusterName;
  if (!cluster || cluster === other) return undefined;
  return (input.snapshot.interruptionQueues ?? []).find((q) => q.name === cluster && q.exists);
}

function fixContext(input: DiagnoseInput, queue: InterruptionQueue | undefined): FixContext {
  const arn = queue?.attributes?.QueueArn;
  const fromQueue =
    /^arn:aws[a-z-]*:sqs:([a-z0-9-]+):/.exec(arn ?? '')?.[1] ?? /\/\/sqs\.([a-z0-9-]+)\.amazonaws/.exec(queue?.url ?? '')?.[1];
  const region = regionOf({ clusterArn: input.snapshot.cluster?.arn }) ?? fromQueue;
  return { controller: input.controller, version: input.version, setting: input.setting, region: regionFlag(region) };
}

function notConfigured(input: DiagnoseInput): Diagnosis | undefined {
  if (!spotInUse(input.spot)) return undefined;
  const stale = input.setting.state === 'unset' ? input.setting.staleConfigMap : undefined;
  const old = stale === undefined ? undefined : staleQueue(input, stale);
  const existing = clusterQueue(input, undefined);
  const fix = fixContext(input, old?.queue?.exists ? old.queue : existing);
  const name = existing?.name ?? input.clusterName;
  const steps = old?.queue?.exists
    ? [
        setQueueStep(
          fix,
          old.name,
          `point the setting at ${old.name}, the queue the old ConfigMap named (it exists), where this version reads it`,
        ),
      ]
    : old && old.queue === undefined
      ? staleCheckSteps(fix, old.name, existing?.name)
      : clusterQueueSteps(input, fix, existing, name);
  const staleState = old?.queue?.exists === true ? ' (it exists)' : old?.queue?.exists === false ? ' (it does not exist)' : '';
  return {
    cause: 'QUEUE_NOT_CONFIGURED',
    title: `${PREFIX} is not set while Spot capacity is in use: Spot interruptions reach nodes with no cordon or drain`,
    detail: [
      "No interruption queue is set (env INTERRUPTION_QUEUE, --interruption-queue or Helm settings.interruptionQueue), so Karpenter's interruption controller does not run: it cannot drain a Spot node in the two minutes before EC2 reclaims it, nor act on rebalance recommendations and scheduled maintenance.",
      stale
        ? `ConfigMap karpenter-global-settings still names ${shown(stale)}${staleState} under aws.interruptionQueueName, which Karpenter v0.33 and later no longer read: move it to settings.interruptionQueue.`
        : '',
      existing ? `A queue named after the cluster, ${shown(existing.name)}, exists.` : '',
    ]
      .filter(Boolean)
      .join(' '),
    evidence: [
      'queue setting: unset',
      ...input.spot.evidence,
      ...(stale ? [`karpenter-global-settings aws.interruptionQueueName: ${shown(stale)} (not read by v0.33+)`] : []),
      ...(old?.queue
        ? [`aws sqs get-queue-url ${shown(old.name)}: ${old.queue.exists ? (old.queue.url ?? 'exists') : 'NonExistentQueue'}`]
        : []),
    ],
    steps,
  };
}

/**
 * The queue a stale ConfigMap names, as looked up: by its name, or (for a plain name) the capture's
 * unnamed answer — with no setting, capture-script looks up the ConfigMap's name as sqs-queue-url.json.
 */
function staleQueue(input: DiagnoseInput, stale: string): { name: string; queue: InterruptionQueue | undefined } {
  const name = queueNameIn(stale);
  const queues = input.snapshot.interruptionQueues ?? [];
  const plain = !QUEUE_ARN.test(stale) && !QUEUE_URL.test(stale);
  return { name, queue: queues.find((q) => q.name === name) ?? (plain ? queues.find((q) => q.name === '') : undefined) };
}

/** The stale queue not looked up: check it first, then one queue or the other, never both set. */
function staleCheckSteps(fix: FixContext, stale: string, existing: string | undefined): string[] {
  return [
    commandStep(
      `whether the queue the old ConfigMap named, ${stale}, exists`,
      `aws sqs get-queue-url --queue-name ${shellQuote(stale)}${fix.region}`,
    ),
    // v0.33–v1.3 panic at start-up on a queue that does not exist: set it only once it is seen.
    setQueueStep(fix, stale, `only if it exists: point the setting at ${stale}, where this version reads it`),
    existing
      ? `if it does not: point the setting at ${shown(existing)}, the queue named after the cluster (it exists), instead`
      : 'if it does not: create a queue as the getting-started template does and point the setting at it (a scan with the lookup saved prints those steps)',
  ];
}

/**
 * The queue named after the cluster is only seen to exist (its rules and readers were not captured):
 * checked before the setting points at it. Karpenter deletes every message it receives, so a queue
 * another cluster's Karpenter reads would lose events for both.
 */
function pointAtClusterQueue(fix: FixContext, existing: InterruptionQueue): string[] {
  const arn = existing.attributes?.QueueArn;
  const target = arn
    ? shellQuote(arn)
    : `"$(aws sqs get-queue-attributes --queue-url ${shellQuote(existing.url ?? existing.name)} --attribute-names QueueArn --query Attributes.QueueArn --output text${fix.region})"`;
  return [
    commandStep(
      `the EventBridge rules sending to ${existing.name} (the getting-started template makes four: Spot interruption, rebalance, state change, scheduled change)`,
      `aws events list-rule-names-by-target --target-arn ${target}${fix.region}`,
    ),
    `make sure no other cluster's Karpenter reads ${shown(existing.name)}: Karpenter deletes the messages it receives, so two controllers on one queue each lose events`,
    setQueueStep(fix, existing.name, `point the setting at ${existing.name}, the queue named after the cluster (it exists)`),
  ];
}

/** Point at, or check for and create, the queue named after the cluster. */
function clusterQueueSteps(
  input: DiagnoseInput,
  fix: FixContext,
  existing: InterruptionQueue | undefined,
  name: string | undefined,
): string[] {
  if (existing) return pointAtClusterQueue(fix, existing);
  if (!name)
    return [
      'create an SQS queue with the EventBridge rules of the getting-started template, then set settings.interruptionQueue to its name',
    ];
  return [
    // Asked only when no lookup answered: a NonExistentQueue answer already said it does not.
    ...((input.snapshot.interruptionQueues ?? []).some((q) => q.name === name && !q.exists)
      ? []
      : [
          commandStep(
            `whether a queue named after the cluster (the getting-started convention) exists`,
            `aws sqs get-queue-url --queue-name ${shellQuote(name)}${fix.region}`,
          ),
        ]),
    ...createQueueSteps(fix, name),
    setQueueStep(fix, name, 'then point the setting at it'),
  ];
}

function settingUnknown(input: DiagnoseInput, why: string): Diagnosis | undefined {
  const found = input.log.notFound;
  if (!found) return undefined;
  const deployment = shellQuote(input.controller?.deploymentName ?? 'karpenter');
  const ns = shellQuote(input.controller?.namespace ?? 'karpenter');
  return {
    cause: 'QUEUE_MISSING',
    title: `${PREFIX} does not exist: the controller's log says NonExistentQueue`,
    detail: `The controller's log says the queue it is set to does not exist (SQS NonExistentQueue), so interruption handling is off. Which queue it names is unknown: ${why}.`,
    evidence: [found.quote, `queue setting: unknown (${why})`],
    ...(found.since ? { since: found.since } : {}),
    steps: [
      commandStep(
        'the queue the controller is set to',
        `kubectl get deployment -n ${ns} ${deployment} -o yaml | grep -i -A1 interruption`,
      ),
      // The name is not in the capture: said in words, never a placeholder that would be pasted as a name.
      "then whether the queue it names exists, in the controller's region: aws sqs get-queue-url --queue-name with that name",
      'create it as the getting-started template does, or point the setting at an existing queue; unset it to run without interruption handling',
    ],
  };
}

function nameInvalid(input: DiagnoseInput, set: SetSetting, name: string, fix: FixContext): Diagnosis {
  const value = set.value;
  const kind = QUEUE_ARN.test(value) ? 'an ARN' : 'a URL';
  // Only an answer for the name itself: an unnamed NonExistentQueue answer was asked with the raw ARN or URL, which no queue has.
  const queue = (input.snapshot.interruptionQueues ?? []).find((q) => q.name === name);
  const exists = queue?.exists;
  const state =
    exists === true
      ? `a queue named ${shown(name)} exists`
      : exists === false
        ? `no queue named ${shown(name)} exists either`
        : `whether a queue named ${shown(name)} exists was not looked up`;
  const steps = [
    ...(exists === undefined
      ? [commandStep(`whether the queue ${name} exists`, `aws sqs get-queue-url --queue-name ${shellQuote(name)}${fix.region}`)]
      : []),
    ...(exists === false ? createQueueSteps(fix, name) : []),
    setQueueStep(fix, name, `set the queue's name, ${name}, not its ${kind === 'an ARN' ? 'ARN' : 'URL'}`),
  ];
  return {
    cause: 'QUEUE_NAME_INVALID',
    title: `${PREFIX} is set to ${kind}, not a name: set it to ${shown(name)}`,
    detail: `Karpenter passes the setting to SQS GetQueueUrl as the queue's name, so ${kind} names no queue: it answers NonExistentQueue and interruption handling is off. The name is its last part, ${shown(name)}; ${state}.`,
    evidence: [settingEvidence(set), ...(input.log.notFound ? [input.log.notFound.quote] : [])],
    ...(input.log.notFound?.since ? { since: input.log.notFound.since } : {}),
    steps,
  };
}

function missing(input: DiagnoseInput, set: SetSetting, queue: InterruptionQueue | undefined, fix: FixContext): Diagnosis {
  const value = set.value;
  const existing = clusterQueue(input, value);
  const found = input.log.notFound;
  const fixText = existing
    ? `did you mean ${shown(existing.name)} (it exists)? point the setting at it`
    : 'create it (the getting-started template) or unset the setting';
  const steps = existing
    ? pointAtClusterQueue(fix, existing)
    : [
        ...(queue
          ? []
          : [
              commandStep(
                `whether the queue ${value} exists (the log says it does not)`,
                `aws sqs get-queue-url --queue-name ${shellQuote(value)}${fix.region}`,
              ),
            ]),
        ...createQueueSteps(fix, value),
        unsetQueueStep(fix),
      ];
  const crash =
    found && /^panic:|\bpanic: /.test(found.quote.slice(found.quote.indexOf(': ') + 2))
      ? ' Karpenter v0.33 to v1.3 resolve the queue at start-up and panic when it is missing: the controller crash-loops (see KARPENTER_CONTROLLER_UNHEALTHY).'
      : '';
  return {
    cause: 'QUEUE_MISSING',
    title: `${PREFIX} ${shown(value)} does not exist: ${fixText}`,
    detail: `No SQS queue named ${shown(value)} exists${queue ? '' : " (the controller's log says so)"}, so Karpenter cannot read interruption events.${crash}`,
    evidence: [
      settingEvidence(set),
      ...(queue ? ['aws sqs get-queue-url: AWS.SimpleQueueService.NonExistentQueue (the queue does not exist)'] : []),
      ...(found ? [found.quote] : []),
      ...(existing ? [`a queue named after the cluster exists: ${existing.url ?? existing.name}`] : []),
    ],
    ...(found?.since ? { since: found.since } : {}),
    steps,
  };
}

function existsButControllerSaysMissing(input: DiagnoseInput, set: SetSetting, queue: InterruptionQueue): Diagnosis {
  const found = input.log.notFound;
  return {
    cause: 'UNKNOWN',
    title: `${PREFIX} ${shown(queue.name)} exists, yet the controller's log says it does not`,
    detail:
      "The queue exists in the account and region scanned, but the controller's GetQueueUrl answers NonExistentQueue: it may look in another region or account (its AWS_REGION, its role), or the log predates the queue. Check before changing anything.",
    evidence: [settingEvidence(set), `the queue exists: ${queue.url ?? queue.name}`, ...(found ? [found.quote] : [])],
    steps: [
      commandStep(
        'the region and role the controller uses',
        `kubectl get deployment -n ${shellQuote(input.controller?.namespace ?? 'karpenter')} ${shellQuote(input.controller?.deploymentName ?? 'karpenter')} -o yaml | grep -E -A1 'AWS_REGION|AWS_ROLE_ARN|INTERRUPTION_QUEUE'`,
      ),
      commandStep(
        'the log now',
        `kubectl logs -n ${shellQuote(input.controller?.namespace ?? 'karpenter')} deployment/${shellQuote(input.controller?.deploymentName ?? 'karpenter')} --tail=200`,
      ),
    ],
  };
}

function otherQueueError(input: DiagnoseInput, set: SetSetting, name: string): Diagnosis | undefined {
  const error = input.log.otherError;
  if (!error) return undefined;
  const action = input.log.deniedAction;
  return {
    cause: 'UNKNOWN',
    title: `${PREFIX} ${shown(name)}: the controller's calls to it fail`,
    detail: `The controller's log shows its queue calls failing${action ? `; the text names ${action}, which its role must allow on the queue` : ''}.`,
    evidence: [
      settingEvidence(set),
      error.quote,
      ...(readWhole(input.snapshot, 'interruptionqueue') ? [] : ['the queue itself was not looked up']),
    ],
    ...(error.since ? { since: error.since } : {}),
    steps: [
      commandStep(
        'the full error',
        `kubectl logs -n ${shellQuote(input.controller?.namespace ?? 'karpenter')} deployment/${shellQuote(input.controller?.deploymentName ?? 'karpenter')} --tail=500 | grep -i queue`,
      ),
      ...(action
        ? [`allow ${action} (with sqs:GetQueueUrl, sqs:ReceiveMessage, sqs:DeleteMessage) on the queue in the controller's role`]
        : []),
    ],
  };
}
