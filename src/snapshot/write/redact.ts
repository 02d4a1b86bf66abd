/**
 * What `snapshot` leaves out of a capture meant for a bug report: values that may be secrets, and
 * copies of whole objects that would carry them again. Nothing the analysis reads is lost, so the
 * capture still analyses the same.
 */
import type { KubeObject } from '../../domain/kube.ts';
import { isRecord, type JsonRecord } from '../../domain/shape.ts';

/** Environment variables whose value the analysis reads, and which hold no secret. */
export const KEPT_ENV_VALUES: readonly string[] = [
  'CLUSTER_NAME', // the cluster the Karpenter controller is configured for (a capture of the wrong cluster)
  'AWS_ROLE_ARN', // the controller's IRSA role, named in the IAM steps
  'INTERRUPTION_QUEUE', // the interruption queue's name (INTERRUPTION_HANDLING_OFF): a name, no secret
];

/**
 * Annotations that hold a whole copy of the object as applied (its env values too) or credentials:
 * kubectl's client-side apply, kapp's and Rancher's copies.
 */
export const DROPPED_ANNOTATIONS: readonly string[] = [
  'kubectl.kubernetes.io/last-applied-configuration',
  'kapp.k14s.io/original',
  'objectset.rio.cattle.io/applied',
];

/** The ConfigMap a capture holds from kube-system: the analysis reads it (node role mappings). */
export const KEPT_CONFIGMAP = { namespace: 'kube-system', name: 'aws-auth' } as const;

/**
 * Karpenter v0.19–v0.32's settings, in the controller's namespace (whichever it is): the analysis
 * reads `aws.interruptionQueueName` there. It holds Karpenter settings only, no secret.
 */
export const KARPENTER_SETTINGS_CONFIGMAP = 'karpenter-global-settings';

const CONTAINER_LISTS = ['containers', 'initContainers', 'ephemeralContainers'] as const;

/** How much was left out, for SNAPSHOT.md. */
export interface Redactions {
  envValues: number;
  annotations: number;
  configMaps: number;
}

export function noRedactions(): Redactions {
  return { envValues: 0, annotations: 0, configMaps: 0 };
}

/** ConfigMaps other than kube-system/aws-auth and Karpenter's settings are left out whole (counted). */
export function keptConfigMaps(configMaps: readonly KubeObject[], redactions: Redactions): KubeObject[] {
  const kept = configMaps.filter(
    (c) =>
      (c.metadata?.namespace === KEPT_CONFIGMAP.namespace && c.metadata.name === KEPT_CONFIGMAP.name) ||
      c.metadata?.name === KARPENTER_SETTINGS_CONFIGMAP,
  );
  redactions.configMaps += configMaps.length - kept.length;
  return kept;
}

/**
 * A copy of `object` without env `value`s (the variable's `name` and `valueFrom` reference stay:
 * the key is dropped, so the file is still a valid object and says nothing it does not know) on
 * every container kind of a pod spec, its own or its template's, and without the annotations above.
 * The original is not changed.
 */
export function redactObject<T>(object: T, redactions: Redactions): T {
  if (!isRecord(object)) return object;
  const copy: JsonRecord = { ...object };
  if (isRecord(copy.metadata)) copy.metadata = withoutAnnotations(copy.metadata, redactions);
  if (isRecord(copy.spec)) {
    const spec: JsonRecord = redactPodSpec(copy.spec, redactions);
    if (isRecord(spec.template)) {
      const template: JsonRecord = { ...spec.template };
      if (isRecord(template.metadata)) template.metadata = withoutAnnotations(template.metadata, redactions);
      if (isRecord(template.spec)) template.spec = redactPodSpec(template.spec, redactions);
      spec.template = template;
    }
    copy.spec = spec;
  }
  return copy as T;
}

function redactPodSpec(spec: JsonRecord, redactions: Redactions): JsonRecord {
  const copy: JsonRecord = { ...spec };
  for (const list of CONTAINER_LISTS) {
    const containers = copy[list];
    if (Array.isArray(containers)) copy[list] = containers.map((c: unknown) => redactContainer(c, redactions));
  }
  return copy;
}

function redactContainer(container: unknown, redactions: Redactions): unknown {
  if (!isRecord(container) || !Array.isArray(container.env)) return container;
  const env = container.env.map((variable: unknown) => {
    if (!isRecord(variable) || !Object.hasOwn(variable, 'value')) return variable;
    if (typeof variable.name === 'string' && KEPT_ENV_VALUES.includes(variable.name)) return variable;
    const { value: _value, ...kept } = variable;
    redactions.envValues++;
    return kept;
  });
  return { ...container, env };
}

function withoutAnnotations(metadata: JsonRecord, redactions: Redactions): JsonRecord {
  const annotations = metadata.annotations;
  if (!isRecord(annotations)) return metadata;
  const dropped = DROPPED_ANNOTATIONS.filter((key) => Object.hasOwn(annotations, key));
  if (dropped.length === 0) return metadata;
  redactions.annotations += dropped.length;
  const kept = Object.fromEntries(Object.entries(annotations).filter(([key]) => !dropped.includes(key)));
  return { ...metadata, annotations: kept };
}
