/**
 * The Kubernetes API as karpenter-sentinel uses it. Objects cross this port in wire shape (what
 * `kubectl get -o json` prints: ISO-8601 strings, `apiVersion` and `kind` set on every item) as
 * unvalidated JSON records, minus what no reader needs and real objects carry in bulk (managedFields,
 * the last-applied annotation, a Node's image list: see dropUnusedFields); the collector checks them
 * with the same code that reads capture files.
 */
import type { JsonRecord } from '../domain/json.ts';

/** The resources read, by plural name; each maps to one API path (see KUBE_RESOURCES). */
export const KUBE_RESOURCE_NAMES = [
  'pods',
  'deployments',
  'replicasets',
  'nodes',
  'events',
  'configmaps',
  'services',
  'customresourcedefinitions',
  'nodeclaims',
  'nodepools',
  'ec2nodeclasses',
  'poddisruptionbudgets',
  'volumeattachments',
  'validatingwebhookconfigurations',
  'mutatingwebhookconfigurations',
  'endpointslices',
  'endpoints',
] as const;
export type KubeResourceName = (typeof KUBE_RESOURCE_NAMES)[number];

export interface KubeResourceInfo {
  /** '' for the core group. */
  group: string;
  version: string;
  kind: string;
  namespaced: boolean;
}

export const KUBE_RESOURCES: Readonly<Record<KubeResourceName, KubeResourceInfo>> = {
  pods: { group: '', version: 'v1', kind: 'Pod', namespaced: true },
  deployments: { group: 'apps', version: 'v1', kind: 'Deployment', namespaced: true },
  replicasets: { group: 'apps', version: 'v1', kind: 'ReplicaSet', namespaced: true },
  nodes: { group: '', version: 'v1', kind: 'Node', namespaced: false },
  events: { group: 'events.k8s.io', version: 'v1', kind: 'Event', namespaced: true },
  configmaps: { group: '', version: 'v1', kind: 'ConfigMap', namespaced: true },
  services: { group: '', version: 'v1', kind: 'Service', namespaced: true },
  customresourcedefinitions: {
    group: 'apiextensions.k8s.io',
    version: 'v1',
    kind: 'CustomResourceDefinition',
    namespaced: false,
  },
  nodeclaims: { group: 'karpenter.sh', version: 'v1', kind: 'NodeClaim', namespaced: false },
  nodepools: { group: 'karpenter.sh', version: 'v1', kind: 'NodePool', namespaced: false },
  ec2nodeclasses: { group: 'karpenter.k8s.aws', version: 'v1', kind: 'EC2NodeClass', namespaced: false },
  poddisruptionbudgets: { group: 'policy', version: 'v1', kind: 'PodDisruptionBudget', namespaced: true },
  volumeattachments: { group: 'storage.k8s.io', version: 'v1', kind: 'VolumeAttachment', namespaced: false },
  validatingwebhookconfigurations: {
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    kind: 'ValidatingWebhookConfiguration',
    namespaced: false,
  },
  mutatingwebhookconfigurations: {
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    kind: 'MutatingWebhookConfiguration',
    namespaced: false,
  },
  endpointslices: { group: 'discovery.k8s.io', version: 'v1', kind: 'EndpointSlice', namespaced: true },
  endpoints: { group: '', version: 'v1', kind: 'Endpoints', namespaced: true },
};

export function apiVersionOf(info: KubeResourceInfo): string {
  return info.group ? `${info.group}/${info.version}` : info.version;
}

export interface KubeListQuery {
  resource: KubeResourceName;
  /** All namespaces when absent. */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /**
   * Told each page's items as they arrive, the same objects `list` resolves with, in order (a
   * list started over tells its pages again). Lets the caller work on a long list while its next
   * page is on the way; a reader may never call it, so the resolved items stay the answer.
   */
  onPage?: (items: readonly JsonRecord[]) => void;
}

export interface PodLogQuery {
  namespace: string;
  pod: string;
  container?: string;
  tailLines: number;
  /** The previous (terminated) container's log, as `kubectl logs --previous`. */
  previous?: boolean;
  /** At most this many bytes of log (the API's `limitBytes`; the client cuts the log there too). */
  limitBytes?: number;
  /** Told, in one line, when the client cut the log at `limitBytes` or its own log-size limit (the start is kept). */
  onTruncated?: (note: string) => void;
}

/** A merge patch on a Deployment, applied only if the object is still at `resourceVersion`. */
export interface DeploymentAnnotationPatch {
  namespace: string;
  name: string;
  resourceVersion: string;
  /** `metadata.annotations` of the Deployment itself (no rollout). */
  annotations?: Record<string, string>;
  /** `spec.template.metadata.annotations` (changing them rolls the pods). */
  templateAnnotations?: Record<string, string>;
}

export interface KubernetesReader {
  /** Every page of a list (`limit` + `continue`), items in wire shape with apiVersion and kind. */
  list(query: KubeListQuery): Promise<JsonRecord[]>;
  /** One object, or undefined when it does not exist (404). */
  get(resource: KubeResourceName, name: string, namespace?: string): Promise<JsonRecord | undefined>;
  /** The last `tailLines` lines of a container's log. */
  podLog(query: PodLogQuery): Promise<string>;
}

interface KubernetesWriter {
  /** Rejects with KubeConflictError when the Deployment changed since `resourceVersion`. */
  patchDeploymentAnnotations(patch: DeploymentAnnotationPatch): Promise<JsonRecord>;
  /** Deletes a NodePool; false when it was already gone. */
  deleteNodePool(name: string): Promise<boolean>;
}

export interface KubernetesPort extends KubernetesReader, KubernetesWriter {}
