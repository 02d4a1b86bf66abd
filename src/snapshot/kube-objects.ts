import type { KubeEvent, KubeObject } from '../domain/kube.ts';
import type { SourceName } from '../domain/snapshot.ts';
import { describeProblem, nestingProblem, obj, str, typeOf, under } from '../domain/json-checks.ts';
import { KUBE_SHAPES } from '../domain/object-shapes.ts';
import { isRecord, oneLine, optNumber, optString, optText, optTime, withoutUndefined, type JsonRecord } from '../domain/shape.ts';
import { KARPENTER_API_GROUPS } from '../domain/tags.ts';

/** The Kubernetes kinds karpenter-sentinel reads, by kind and API group ('' is the core group). */
const KINDS_IN_USE: readonly { kind: string; groups: readonly string[]; source: SourceName }[] = [
  { kind: 'Pod', groups: [''], source: 'pods' },
  { kind: 'Deployment', groups: ['apps'], source: 'deployments' },
  { kind: 'ReplicaSet', groups: ['apps'], source: 'replicasets' },
  { kind: 'Node', groups: [''], source: 'nodes' },
  { kind: 'Event', groups: ['', 'events.k8s.io'], source: 'events' },
  { kind: 'ConfigMap', groups: [''], source: 'configmaps' },
  { kind: 'Service', groups: [''], source: 'services' },
  { kind: 'CustomResourceDefinition', groups: ['apiextensions.k8s.io'], source: 'crds' },
  { kind: 'NodeClaim', groups: ['karpenter.sh'], source: 'nodeclaims' },
  { kind: 'NodePool', groups: ['karpenter.sh'], source: 'nodepools' },
  { kind: 'EC2NodeClass', groups: ['karpenter.k8s.aws'], source: 'ec2nodeclasses' },
  { kind: 'PodDisruptionBudget', groups: ['policy'], source: 'pdbs' },
  { kind: 'VolumeAttachment', groups: ['storage.k8s.io'], source: 'volumeattachments' },
  { kind: 'ValidatingWebhookConfiguration', groups: ['admissionregistration.k8s.io'], source: 'webhookconfigurations' },
  { kind: 'MutatingWebhookConfiguration', groups: ['admissionregistration.k8s.io'], source: 'webhookconfigurations' },
  { kind: 'EndpointSlice', groups: ['discovery.k8s.io'], source: 'endpoints' },
  { kind: 'Endpoints', groups: [''], source: 'endpoints' },
];

/**
 * `kubectl get nodeclaims -o json` with nothing to list prints a bare `List`; the file's name is
 * then the only thing saying what was listed. Plural resource names, also fully qualified.
 */
const RESOURCE_FILE_NAMES: Readonly<Record<string, SourceName>> = {
  pods: 'pods',
  deployments: 'deployments',
  'deployments.apps': 'deployments',
  replicasets: 'replicasets',
  'replicasets.apps': 'replicasets',
  nodes: 'nodes',
  events: 'events',
  'events.events.k8s.io': 'events',
  configmaps: 'configmaps',
  services: 'services',
  customresourcedefinitions: 'crds',
  'customresourcedefinitions.apiextensions.k8s.io': 'crds',
  crds: 'crds',
  nodeclaims: 'nodeclaims',
  'nodeclaims.karpenter.sh': 'nodeclaims',
  nodepools: 'nodepools',
  'nodepools.karpenter.sh': 'nodepools',
  ec2nodeclasses: 'ec2nodeclasses',
  'ec2nodeclasses.karpenter.k8s.aws': 'ec2nodeclasses',
  pdb: 'pdbs',
  pdbs: 'pdbs',
  poddisruptionbudgets: 'pdbs',
  'poddisruptionbudgets.policy': 'pdbs',
  volumeattachments: 'volumeattachments',
  'volumeattachments.storage.k8s.io': 'volumeattachments',
  // capture-script's name for the one list of both kinds.
  webhookconfigurations: 'webhookconfigurations',
  validatingwebhookconfigurations: 'webhookconfigurations',
  'validatingwebhookconfigurations.admissionregistration.k8s.io': 'webhookconfigurations',
  mutatingwebhookconfigurations: 'webhookconfigurations',
  'mutatingwebhookconfigurations.admissionregistration.k8s.io': 'webhookconfigurations',
  endpointslices: 'endpoints',
  'endpointslices.discovery.k8s.io': 'endpoints',
  endpoints: 'endpoints',
  ep: 'endpoints',
};

/** `capture/nodeclaims.json` → 'nodeclaims'; undefined when the name is no resource's plural. */
export function sourceNamedByFile(fileBaseNameWithoutExtension: string): SourceName | undefined {
  const key = fileBaseNameWithoutExtension.toLowerCase();
  return Object.hasOwn(RESOURCE_FILE_NAMES, key) ? RESOURCE_FILE_NAMES[key] : undefined;
}

export const EXAMPLE_RESOURCE_FILE_NAMES = 'nodeclaims.json, pods.yaml, events.json';

/** One of the loader's and the live collector's contributions (recognise.ts's Contribution): both pass it on as it is. */
export type KubeObjectVerdict =
  | { type: 'object'; source: Exclude<SourceName, 'events'>; object: KubeObject; key: string }
  /**
   * A field detectors read has the wrong JSON type, or the object has no name: it is set aside,
   * its source incomplete. `object` names it (`Pod default/web`), `problem` says which field is
   * wrong; `key` is undefined when the object cannot be named.
   */
  | { type: 'malformed'; source: SourceName; object: string; problem: string; key?: string }
  | { type: 'event'; event: KubeEvent; key: string }
  | { type: 'secret' }
  /** `legacyKarpenter`: a kind of Karpenter's alpha API (Provisioner, Machine, AWSNodeTemplate). */
  | { type: 'unused'; kind: string; legacyKarpenter?: true };

/** The source objects of this kind belong to; undefined for kinds karpenter-sentinel does not use. */
export function sourceOfKind(apiVersion: string, kind: string): SourceName | undefined {
  return kindInUse(apiGroupOf(apiVersion), kind)?.source;
}

function kindInUse(group: string, kind: string): (typeof KINDS_IN_USE)[number] | undefined {
  return KINDS_IN_USE.find((k) => k.kind === kind && k.groups.includes(group));
}

function apiGroupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/**
 * One Kubernetes object → what the snapshot does with it. An object without a name, or whose
 * fields detectors read are of the wrong type (see src/domain/object-shapes.ts), is `malformed`: set aside,
 * and the rest of its file still counts.
 */
export function classifyKubeObject(object: JsonRecord, apiVersion: string, kind: string, where: string): KubeObjectVerdict {
  const group = apiGroupOf(apiVersion);
  if (kind === 'Secret' && group === '') return { type: 'secret' };
  const known = kindInUse(group, kind);
  if (!known) {
    if (KARPENTER_API_GROUPS.includes(group) && /\/v1alpha\d+$/.test(apiVersion)) {
      return { type: 'unused', kind: `${kind} (${apiVersion})`, legacyKarpenter: true };
    }
    return { type: 'unused', kind: group ? `${kind} (${group})` : kind };
  }
  const named = where ? `${kind} ${where}` : kind;
  const unnamed = metadataProblem(object.metadata);
  if (unnamed) return { type: 'malformed', source: known.source, object: oneLine(named, 100), problem: unnamed };
  const metadata = object.metadata as { name: string; namespace?: string | null };
  const namespace = metadata.namespace ?? undefined;
  const key = `${namespace ?? ''}/${metadata.name}`;
  if (known.source === 'events') return { type: 'event', event: normaliseEvent(object, group), key };
  const problem = nestingProblem(object) ?? KUBE_SHAPES[known.source]?.(object);
  if (problem) {
    const name = namespace ? `${namespace}/${metadata.name}` : metadata.name;
    return {
      type: 'malformed',
      source: known.source,
      object: `${kind} ${oneLine(name, 100)}`,
      problem: oneLine(describeProblem(problem), 200),
      key,
    };
  }
  // Typed lists (`PodList` from the API) leave kind/apiVersion off their items.
  const kept = object.kind === kind && object.apiVersion === apiVersion ? object : { ...object, apiVersion, kind };
  return { type: 'object', source: known.source, object: kept as KubeObject, key };
}

/** What every object needs to be named and told apart: metadata.name, and a string namespace if any. */
function metadataProblem(metadata: unknown): string | undefined {
  if (!isRecord(metadata)) return describeProblem({ path: ['metadata'], got: typeOf(metadata), expected: 'an object' });
  const problem = NAMED(metadata);
  if (problem) return describeProblem(under('metadata', problem));
  if (metadata.name === '') return 'metadata.name is empty, expected a name';
  return undefined;
}

const NAMED = obj({ name: str, namespace: str }, ['name']);

/**
 * core/v1 and events.k8s.io/v1 Events → one shape. They are the same objects seen through two
 * APIs; the newer one renamed the fields and moved repeat counts into `series`.
 */
function normaliseEvent(object: JsonRecord, group: string): KubeEvent {
  const metadata = isRecord(object.metadata) ? object.metadata : {};
  const series = isRecord(object.series) ? object.series : {};
  const seriesLast = optTime(series.lastObservedTime);
  const eventTime = optTime(object.eventTime);
  const isEventsApi = group === 'events.k8s.io';
  const regardingValue = isEventsApi ? object.regarding : object.involvedObject;
  const regarding = isRecord(regardingValue) ? regardingValue : {};
  const firstTime = optTime(isEventsApi ? object.deprecatedFirstTimestamp : object.firstTimestamp) ?? eventTime ?? seriesLast;
  const lastTime =
    seriesLast ?? optTime(isEventsApi ? object.deprecatedLastTimestamp : object.lastTimestamp) ?? eventTime ?? firstTime;
  const count = optNumber(series.count) ?? optNumber(isEventsApi ? object.deprecatedCount : object.count);
  const legacySourceValue = isEventsApi ? object.deprecatedSource : object.source;
  const legacySource = isRecord(legacySourceValue) ? legacySourceValue : {};
  const source =
    optText(isEventsApi ? object.reportingController : legacySource.component) ??
    optText(isEventsApi ? legacySource.component : object.reportingComponent);
  return withoutUndefined({
    regarding: withoutUndefined({
      kind: optString(regarding.kind),
      namespace: optString(regarding.namespace),
      name: optString(regarding.name),
      uid: optString(regarding.uid),
    }),
    namespace: optString(metadata.namespace),
    reason: optString(object.reason),
    message: optString(isEventsApi ? object.note : object.message),
    type: optString(object.type),
    firstTime,
    lastTime,
    count,
    source,
  }) as KubeEvent;
}
