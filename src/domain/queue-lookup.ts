/**
 * How Karpenter's interruption queue is looked up, live and by the capture script alike: its
 * setting, where each version reads it (docs/findings.md#interruption_handling_off):
 * the controller's `--interruption-queue` flag, else its `INTERRUPTION_QUEUE` env (v0.32+: the flag's
 * default is the env), else, for v0.19–v0.32, `aws.interruptionQueueName` in the ConfigMap
 * `karpenter-global-settings` of the controller's namespace. Helm's `settings.interruptionQueue` is
 * rendered as that env. Then the queue by name, and (bounded) the rules that target it and its age.
 */
import type { ConfigMap, Container, Deployment } from './kube.ts';

/** The ConfigMap v0.19–v0.32 read their settings from, in the controller's namespace. */
export const GLOBAL_SETTINGS_CONFIGMAP = 'karpenter-global-settings';
/** Its key for the queue. */
const GLOBAL_SETTINGS_QUEUE_KEY = 'aws.interruptionQueueName';
export const QUEUE_ENV = 'INTERRUPTION_QUEUE';

/** Rules described one by one after ListRuleNamesByTarget: Karpenter's template makes four or five. */
export const MAX_DESCRIBED_RULES = 10;

/** The window CloudWatch's `ApproximateAgeOfOldestMessage` is read over, as one period. */
export const QUEUE_AGE_WINDOW_SECONDS = 900;
const QUEUE_FLAG = '--interruption-queue';

export type QueueSettingRead =
  /** `from`: where it was read, e.g. `env INTERRUPTION_QUEUE of deployment karpenter/karpenter`. */
  | { state: 'set'; value: string; from: string }
  | { state: 'unset' }
  /** Set, but its value is not in the spec (`valueFrom`, or a capture that redacted it). */
  | { state: 'unknown'; why: string };

/** The container Karpenter runs in: `controller` (the chart's name), else the only one. */
function controllerContainer(deployment: Deployment): Container | undefined {
  const containers = deployment.spec?.template?.spec?.containers ?? [];
  return containers.find((c) => c.name === 'controller') ?? (containers.length === 1 ? containers[0] : undefined);
}

/**
 * The setting of this controller Deployment; `configMap` is its namespace's karpenter-global-settings
 * when read (only consulted when the Deployment sets nothing). An env entry with no value is unknown,
 * never unset: Kubernetes omits an empty value, and the chart renders the env only when it is set.
 */
export function queueSettingOf(deployment: Deployment, configMap?: ConfigMap): QueueSettingRead {
  const where = `deployment ${deployment.metadata?.namespace ?? 'default'}/${deployment.metadata?.name ?? ''}`;
  const container = controllerContainer(deployment);
  const flag = flagValue(container?.args ?? []);
  if (flag !== undefined && flag !== '') return { state: 'set', value: flag, from: `${QUEUE_FLAG} of ${where}` };
  const env = container?.env?.find((e) => e.name === QUEUE_ENV);
  if (env?.valueFrom) return { state: 'unknown', why: `env ${QUEUE_ENV} of ${where} is set from elsewhere (valueFrom)` };
  if (env && env.value === undefined) return { state: 'unknown', why: `env ${QUEUE_ENV} of ${where} has no value (redacted?)` };
  if (env?.value) return { state: 'set', value: env.value, from: `env ${QUEUE_ENV} of ${where}` };
  const legacy = configMap?.data?.[GLOBAL_SETTINGS_QUEUE_KEY];
  if (legacy) {
    const cm = `ConfigMap ${configMap?.metadata?.namespace ?? ''}/${GLOBAL_SETTINGS_CONFIGMAP}`;
    return { state: 'set', value: legacy, from: `${GLOBAL_SETTINGS_QUEUE_KEY} of ${cm}` };
  }
  return { state: 'unset' };
}

/** `--interruption-queue=X` or `--interruption-queue X`; the last one wins, as Go's flag package does. */
function flagValue(args: readonly string[]): string | undefined {
  let value: string | undefined;
  for (const [i, arg] of args.entries()) {
    if (arg.startsWith(`${QUEUE_FLAG}=`)) value = arg.slice(QUEUE_FLAG.length + 1);
    else if (arg === QUEUE_FLAG) value = args[i + 1];
  }
  return value;
}

/**
 * What SQS takes as a queue name: 1 to 80 letters, digits, `-` and `_`, `.fifo` at the end of a FIFO
 * queue's. Anything else names no queue, so it is not looked up (nor can it reach a command line).
 */
export function isSqsQueueName(name: string): boolean {
  return /^[A-Za-z0-9_-]{1,80}$/.test(name.replace(/\.fifo$/, ''));
}
