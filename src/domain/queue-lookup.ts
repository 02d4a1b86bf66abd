/**
 * How Karpenter's interruption queue is looked up, live, by the capture script and by the detector
 * alike: its setting, where each version reads it (docs/findings.md#interruption_handling_off):
 * - v0.19–v0.31: `aws.interruptionQueueName` in the ConfigMap `karpenter-global-settings` of the
 *   controller's namespace, nothing else;
 * - v0.32: the controller's `--interruption-queue` flag, else its `INTERRUPTION_QUEUE` env (the
 *   flag's default), else that ConfigMap key;
 * - v0.33 on: the flag, else the env; the ConfigMap key is no longer read.
 * A version that cannot be read is taken as any of them: flag, env, then ConfigMap. Helm's
 * `settings.interruptionQueue` is rendered as the env. Then the queue by name, and (bounded) the
 * rules that target it and its age.
 */
import { pickControllerContainer, versionAtLeast } from './karpenter-controller.ts';
import type { ConfigMap, Container } from './kube.ts';

/** The ConfigMap v0.19–v0.32 read their settings from, in the controller's namespace. */
export const GLOBAL_SETTINGS_CONFIGMAP = 'karpenter-global-settings';
/** Its key for the queue. */
export const GLOBAL_SETTINGS_QUEUE_KEY = 'aws.interruptionQueueName';
export const QUEUE_ENV = 'INTERRUPTION_QUEUE';

/** Rules described one by one after ListRuleNamesByTarget: Karpenter's template makes four or five. */
export const MAX_DESCRIBED_RULES = 10;

/** The window CloudWatch's `ApproximateAgeOfOldestMessage` is read over, as one period. */
export const QUEUE_AGE_WINDOW_SECONDS = 900;
/** Go's flag package takes one dash or two, `=value` or the next argument. */
const QUEUE_FLAG = /^--?interruption-queue(?:=(.*))?$/s;

export type QueueSettingRead =
  | { state: 'set'; value: string; from: 'flag' | 'env' | 'configmap' }
  /** Known to be unset; `staleConfigMap` is a ConfigMap value this version no longer reads. */
  | { state: 'unset'; staleConfigMap?: string }
  /** Set, but its value is not in the spec: `valueFrom`, or a capture that left the value out. */
  | { state: 'unknown'; why: 'valueFrom' | 'no-value' };

/** Whether a controller of this version reads the ConfigMap (before v0.33, or a version not known). */
export function readsGlobalSettings(version: string | undefined): boolean {
  return versionAtLeast(version, 0, 33) !== true;
}

/**
 * The setting a controller of `version` runs with: its containers (the chart's `controller`, else the
 * first) and its namespace's karpenter-global-settings when read. An env entry with no value is
 * unknown, never unset: Kubernetes omits an empty value, and the chart renders the env only when set.
 * An explicit empty flag (`--interruption-queue=`) turns interruption handling off: the env and the
 * ConfigMap are then not read. Whatever is not a list or a string (a hand-edited capture) sets nothing.
 */
export function queueSettingOf(containers: unknown, version: string | undefined, configMap?: ConfigMap): QueueSettingRead {
  const container = pickControllerContainer(containers);
  if (versionAtLeast(version, 0, 32) !== false) {
    const flag = flagValue(container?.args);
    if (flag !== undefined) return flag === '' ? { state: 'unset' } : { state: 'set', value: flag, from: 'flag' };
    const env = envEntry(container);
    if (env?.valueFrom) return { state: 'unknown', why: 'valueFrom' };
    if (env && env.value === undefined) return { state: 'unknown', why: 'no-value' };
    if (typeof env?.value === 'string' && env.value !== '') return { state: 'set', value: env.value, from: 'env' };
  }
  const legacy = configMap?.data?.[GLOBAL_SETTINGS_QUEUE_KEY];
  if (typeof legacy !== 'string' || legacy === '') return { state: 'unset' };
  return readsGlobalSettings(version)
    ? { state: 'set', value: legacy, from: 'configmap' }
    : { state: 'unset', staleConfigMap: legacy };
}

function envEntry(container: Container | undefined): { value?: unknown; valueFrom?: unknown } | undefined {
  const env: unknown = container?.env;
  if (!Array.isArray(env)) return undefined;
  return (env as unknown[]).find(
    (e): e is { name: string; value?: unknown; valueFrom?: unknown } =>
      typeof e === 'object' && e !== null && (e as { name?: unknown }).name === QUEUE_ENV,
  );
}

/** The flag's value; the last one wins, as Go's flag package does (a bare flag at the end takes nothing). */
function flagValue(args: unknown): string | undefined {
  if (!Array.isArray(args)) return undefined;
  const list = args as unknown[];
  let value: string | undefined;
  list.forEach((arg, i) => {
    const m = typeof arg === 'string' ? QUEUE_FLAG.exec(arg) : null;
    if (!m) return;
    const next = list[i + 1];
    if (m[1] !== undefined) value = m[1];
    else if (typeof next === 'string') value = next;
  });
  return value;
}

/**
 * What SQS takes as a queue name: 1 to 80 letters, digits, `-` and `_`, `.fifo` at the end of a FIFO
 * queue's. Anything else names no queue, so it is not looked up (nor can it reach a command line).
 */
export function isSqsQueueName(name: string): boolean {
  return /^[A-Za-z0-9_-]{1,80}$/.test(name.replace(/\.fifo$/, ''));
}
