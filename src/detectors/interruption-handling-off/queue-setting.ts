import type { ConfigMap } from '../../domain/kube.ts';
import type { ControllerInfo } from '../../domain/snapshot-index.ts';
import { controllerContainerOf } from '../karpenter/feature-gates.ts';
import { versionAtLeast } from '../karpenter/version.ts';

/**
 * Karpenter's interruption queue setting as its controller reads it, by version
 * (docs/findings.md#interruption_handling_off):
 * - v0.19–v0.31: ConfigMap `karpenter-global-settings`, key `aws.interruptionQueueName`;
 * - v0.32: the flag `--interruption-queue`, else env `INTERRUPTION_QUEUE`, else that ConfigMap key;
 * - v0.33 on: the flag, else the env (Helm `settings.interruptionQueue` renders the env); the
 *   ConfigMap key is no longer read.
 * The flag wins over the env because Karpenter reads the env as the flag's default. A version that
 * cannot be read is taken as any of them: flag, env, then ConfigMap.
 */
export type QueueSetting =
  | { state: 'set'; value: string; from: string }
  /** Known to be unset; `staleConfigMap` is a ConfigMap value the controller's version no longer reads. */
  | { state: 'unset'; staleConfigMap?: string }
  | { state: 'unknown'; why: string };

const ARG = /^--?interruption-queue(?:=(.*))?$/;
export const SETTINGS_CONFIGMAP = 'karpenter-global-settings';
export const CONFIGMAP_KEY = 'aws.interruptionQueueName';

interface SettingInput {
  controller: ControllerInfo | undefined;
  version: string | undefined;
  configMaps: readonly ConfigMap[];
  /** Whether ConfigMaps were captured (an absent one is then known to be absent). */
  configMapsCaptured: boolean;
}

export function queueSetting(input: SettingInput): QueueSetting {
  const found = input.controller ? controllerContainerOf(input.controller) : undefined;
  if (!found) return { state: 'unknown', why: "the controller's Deployment and pods were not captured" };
  const usesFlag = versionAtLeast(input.version, 0, 32) !== false;
  const usesConfigMap = versionAtLeast(input.version, 0, 33) !== true;
  if (usesFlag) {
    const args = found.container.args ?? [];
    for (let i = args.length - 1; i >= 0; i--) {
      const m = ARG.exec(args[i] ?? '');
      const value = m ? (m[1] ?? args[i + 1]) : undefined;
      if (value) return { state: 'set', value, from: 'arg --interruption-queue' };
    }
    const env = found.container.env?.find((e) => e.name === 'INTERRUPTION_QUEUE');
    if (env?.valueFrom) return { state: 'unknown', why: 'env INTERRUPTION_QUEUE is set from a reference (valueFrom)' };
    // A name without a value is what a redacted capture keeps: set, to something unknown.
    if (env && env.value === undefined)
      return { state: 'unknown', why: 'the value of env INTERRUPTION_QUEUE was left out of the capture' };
    if (env?.value) return { state: 'set', value: env.value, from: 'env INTERRUPTION_QUEUE' };
  }
  const settings = input.configMaps.find(
    (c) => c.metadata?.name === SETTINGS_CONFIGMAP && c.metadata.namespace === input.controller?.namespace,
  );
  const fromConfigMap = settings?.data?.[CONFIGMAP_KEY];
  if (usesConfigMap) {
    if (fromConfigMap) {
      return {
        state: 'set',
        value: fromConfigMap,
        from: `ConfigMap ${settings?.metadata?.namespace}/${SETTINGS_CONFIGMAP} ${CONFIGMAP_KEY}`,
      };
    }
    // Before v0.33 the ConfigMap holds it: unset only if the capture holds the ConfigMap (a version
    // that cannot be read is most likely a newer one: ConfigMaps captured is enough then).
    const known = versionAtLeast(input.version, 0, 0) !== undefined;
    if (!settings && (known || !input.configMapsCaptured)) {
      return {
        state: 'unknown',
        why: `ConfigMap ${SETTINGS_CONFIGMAP} was not captured (Karpenter before v0.33 reads the queue there)`,
      };
    }
  }
  return fromConfigMap ? { state: 'unset', staleConfigMap: fromConfigMap } : { state: 'unset' };
}
