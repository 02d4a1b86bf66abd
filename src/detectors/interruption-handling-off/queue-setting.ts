import type { ConfigMap } from '../../domain/kube.ts';
import {
  GLOBAL_SETTINGS_CONFIGMAP,
  GLOBAL_SETTINGS_QUEUE_KEY,
  queueSettingOf,
  readsGlobalSettings,
} from '../../domain/queue-lookup.ts';
import type { ControllerInfo } from '../../domain/snapshot-index.ts';
import { controllerContainerOf } from '../karpenter/feature-gates.ts';
import { versionAtLeast } from '../karpenter/version.ts';

/**
 * Karpenter's interruption queue setting as its controller reads it, by version: the one parser of
 * src/domain/queue-lookup.ts (docs/findings.md#interruption_handling_off), read from the Deployment
 * or else one of its pods, and unknown rather than unset when the ConfigMap a pre-v0.33 controller
 * reads was not captured.
 */
export type QueueSetting =
  | { state: 'set'; value: string; from: string }
  /** Known to be unset; `staleConfigMap` is a ConfigMap value the controller's version no longer reads. */
  | { state: 'unset'; staleConfigMap?: string }
  | { state: 'unknown'; why: string };

export { GLOBAL_SETTINGS_CONFIGMAP as SETTINGS_CONFIGMAP, GLOBAL_SETTINGS_QUEUE_KEY as CONFIGMAP_KEY };

interface SettingInput {
  controller: ControllerInfo | undefined;
  version: string | undefined;
  configMaps: readonly ConfigMap[];
  /** Whether ConfigMaps were captured (an absent one is then known to be absent). */
  configMapsCaptured: boolean;
}

const WHY = {
  valueFrom: 'env INTERRUPTION_QUEUE is set from a reference (valueFrom)',
  // A name without a value is what a redacted capture keeps: set, to something unknown.
  'no-value': 'the value of env INTERRUPTION_QUEUE was left out of the capture',
} as const;

export function queueSetting(input: SettingInput): QueueSetting {
  const found = input.controller ? controllerContainerOf(input.controller) : undefined;
  if (!found) return { state: 'unknown', why: "the controller's Deployment and pods were not captured" };
  const settings = input.configMaps.find(
    (c) => c.metadata?.name === GLOBAL_SETTINGS_CONFIGMAP && c.metadata.namespace === input.controller?.namespace,
  );
  const read = queueSettingOf([found.container], input.version, settings);
  if (read.state === 'unknown') return { state: 'unknown', why: WHY[read.why] };
  if (read.state === 'set') {
    const from =
      read.from === 'flag'
        ? 'arg --interruption-queue'
        : read.from === 'env'
          ? 'env INTERRUPTION_QUEUE'
          : `ConfigMap ${settings?.metadata?.namespace}/${GLOBAL_SETTINGS_CONFIGMAP} ${GLOBAL_SETTINGS_QUEUE_KEY}`;
    return { state: 'set', value: read.value, from };
  }
  // Before v0.33 the ConfigMap holds it: unset only if the capture holds the ConfigMap (a version
  // that cannot be read is most likely a newer one: ConfigMaps captured is enough then).
  const known = versionAtLeast(input.version, 0, 0) !== undefined;
  if (readsGlobalSettings(input.version) && !settings && (known || !input.configMapsCaptured)) {
    return {
      state: 'unknown',
      why: `ConfigMap ${GLOBAL_SETTINGS_CONFIGMAP} was not captured (Karpenter before v0.33 reads the queue there)`,
    };
  }
  return read;
}
