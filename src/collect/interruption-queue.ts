/**
 * Karpenter's interruption queue, read live (docs/usage.md, "What a live scan reads"): the setting
 * from the controller's Deployment (or, when the Deployment sets nothing, the v0.19–v0.32 ConfigMap
 * karpenter-global-settings of its namespace), then the queue it names, its attributes, the
 * EventBridge rules that target it and the age of its oldest message. Started as soon as the
 * Deployments are listed. What the capture script records for the same cluster is what this
 * records: nothing for a source it does not ask (no queue: no rules, no age), a gap for one that failed.
 */
import type { ConfigMap, Deployment } from '../domain/kube.ts';
import { queueNameIn, type InterruptionQueue } from '../domain/interruption-queue.ts';
import { deploymentVersion } from '../domain/karpenter-controller.ts';
import {
  GLOBAL_SETTINGS_CONFIGMAP,
  isSqsQueueName,
  QUEUE_ENV,
  queueSettingOf,
  readsGlobalSettings,
  type QueueSettingRead,
} from '../domain/queue-lookup.ts';
import { hasControllerLabel } from '../domain/snapshot-index.ts';
import type { SourceName } from '../domain/snapshot.ts';
import type { AwsPorts } from '../ports/aws.ts';
import { failureText } from '../ports/failure-text.ts';
import type { KubernetesReader } from '../ports/kubernetes.ts';
import type { CaptureMerger } from '../snapshot/capture-merger.ts';
import type { AwsCliOutput } from '../snapshot/aws-cli.ts';
import { classifyKubeObject } from '../snapshot/kube-objects.ts';

type Gap = (source: SourceName, error: unknown) => void;

/** Why the queue is a gap when the Deployments (which carry its setting) could not be listed. */
export const QUEUE_SETTING_UNKNOWN =
  "not read: the interruption queue is the one the controller's Deployment names, and the Deployments could not be read";

export interface QueueCollectOptions {
  clusterName: string;
  now: Date;
  wanted: ReadonlySet<SourceName>;
}

/** What of the Kubernetes side the queue reads wait on. */
export interface QueueKubeInputs {
  /** Reads the ConfigMap by name. */
  reader: KubernetesReader;
  /** The Deployments as listed; undefined when they could not be. */
  deployments: Promise<readonly Deployment[] | undefined>;
  /** Settles once the ConfigMaps list is merged: the one read here is merged after it, as a capture's files are read. */
  configMapsListed: Promise<void>;
}

/** Never rejects: every failure is a gap on its source (an unexpected one on the queue's). */
export async function collectInterruptionQueue(
  aws: AwsPorts,
  kube: QueueKubeInputs,
  merger: CaptureMerger,
  gap: Gap,
  options: QueueCollectOptions,
): Promise<void> {
  try {
    await collectQueue(aws, kube, merger, gap, options);
  } catch (error) {
    gap('interruptionqueue', error);
  }
}

async function collectQueue(
  aws: AwsPorts,
  kube: QueueKubeInputs,
  merger: CaptureMerger,
  gap: Gap,
  options: QueueCollectOptions,
): Promise<void> {
  const deployments = await kube.deployments;
  if (!deployments) {
    gap('interruptionqueue', QUEUE_SETTING_UNKNOWN);
    return;
  }
  const controller = deployments.find(
    (d) => hasControllerLabel(d.metadata?.labels) || hasControllerLabel(d.spec?.template?.metadata?.labels),
  );
  // No Karpenter here: no setting, no queue of its own to judge.
  if (!controller) return;
  const setting = await settingOf(controller, kube, merger, options.wanted);
  if ('error' in setting) {
    gap('interruptionqueue', setting.error);
    return;
  }
  if (setting.state === 'unknown') {
    gap('interruptionqueue', `not read: ${unknownWhy(controller, setting.why)}`);
    return;
  }
  const add = (output: AwsCliOutput) => merger.add('AWS API', [{ type: 'aws', output }]);
  const name = setting.state === 'set' ? queueNameIn(setting.value) : undefined;
  let queue: InterruptionQueue | undefined;
  // A name SQS cannot hold is not asked about: no queue can have it (the detector judges the setting itself).
  if (name !== undefined && isSqsQueueName(name)) {
    try {
      queue = await aws.queue.describeQueue(name);
    } catch (error) {
      gap('interruptionqueue', error);
      return;
    }
    add({ source: 'interruptionqueue', queues: [queue] });
  }
  // Unset or missing: a queue named after the cluster (Karpenter's getting-started name) is what the
  // fix points at, and its absence is an answer too. A failure here is no gap: it is only a hint.
  if (!queue?.exists && name !== options.clusterName && isSqsQueueName(options.clusterName)) {
    const named = await aws.queue.describeQueue(options.clusterName).catch(() => undefined);
    if (named) add({ source: 'interruptionqueue', queues: [named] });
  }
  if (!queue?.exists) return;
  const arn = queue.attributes?.QueueArn;
  await Promise.all([
    arn && options.wanted.has('queuerules')
      ? aws.queue.rulesTargeting(arn).then(
          (rules) => add({ source: 'queuerules', rules }),
          (error: unknown) => gap('queuerules', error),
        )
      : undefined,
    options.wanted.has('queueage')
      ? aws.queue.oldestMessageAgeSeconds(queue.name, options.now).then(
          (ageSeconds) => add({ source: 'queueage', ...(ageSeconds !== undefined ? { ageSeconds } : {}) }),
          (error: unknown) => gap('queueage', error),
        )
      : undefined,
  ]);
}

/** Why the Deployment's setting is unknown, naming the Deployment. */
function unknownWhy(controller: Deployment, why: 'valueFrom' | 'no-value'): string {
  const where = `deployment ${controller.metadata?.namespace ?? 'default'}/${controller.metadata?.name ?? ''}`;
  return why === 'valueFrom'
    ? `env ${QUEUE_ENV} of ${where} is set from elsewhere (valueFrom)`
    : `env ${QUEUE_ENV} of ${where} has no value (redacted?)`;
}

/**
 * The Deployment's setting; when it sets nothing and its version still reads the ConfigMap (before
 * v0.33, or a version not known), the ConfigMap's: one GET by name in the controller's namespace,
 * merged with the ConfigMaps when they are wanted. A ConfigMap that cannot be read leaves the
 * setting unknown: before v0.33 it would be there. On v0.33+ it is never asked for.
 */
async function settingOf(
  controller: Deployment,
  kube: QueueKubeInputs,
  merger: CaptureMerger,
  wanted: ReadonlySet<SourceName>,
): Promise<QueueSettingRead | { error: string }> {
  const containers = controller.spec?.template?.spec?.containers;
  const version = deploymentVersion(controller);
  const fromDeployment = queueSettingOf(containers, version);
  if (fromDeployment.state !== 'unset' || !readsGlobalSettings(version)) return fromDeployment;
  const namespace = controller.metadata?.namespace ?? 'default';
  let raw;
  try {
    raw = await kube.reader.get('configmaps', GLOBAL_SETTINGS_CONFIGMAP, namespace);
  } catch (error) {
    return {
      error: `not read: the controller's Deployment sets no queue, and ConfigMap ${namespace}/${GLOBAL_SETTINGS_CONFIGMAP} (where v0.19–v0.32 keep it) could not be read: ${failureText(error)}`,
    };
  }
  if (!raw) return fromDeployment;
  const verdict = classifyKubeObject(raw, 'v1', 'ConfigMap', 'from the API');
  if (verdict.type !== 'object') return fromDeployment;
  if (wanted.has('configmaps')) {
    await kube.configMapsListed;
    merger.add('Kubernetes API', [verdict]);
  }
  return queueSettingOf(containers, version, verdict.object as ConfigMap);
}
