/**
 * A ClusterSnapshot → the simulated cluster's store: every Kubernetes object, the events back in
 * events.k8s.io/v1 shape, the controller's log on its pod, and each gap on a Kubernetes source as
 * a standing denial, so a live scan of the simulation sees what the offline scan saw.
 */
import type { Deployment, KubeObject, Pod } from '../domain/kube.ts';
import { isSetAsideGap, type ClusterSnapshot, type Gap, type SourceName } from '../domain/snapshot.ts';
import { CONTROLLER_LABEL, CONTROLLER_LABEL_VALUE, controllersOf, type ControllerInfo } from '../domain/snapshot-index.ts';
import type { JsonRecord } from '../domain/shape.ts';
import { CONVERSION_WEBHOOK_FAILED } from '../domain/conversion-webhook.ts';
import { eventObject, logLineAsPrinted } from '../snapshot/write/wire.ts';
import { UNKNOWN_REASON } from './conversion-webhook.ts';
import { KubeStore, namespaceObject, type AccessDenial, type SimResourceName } from './kube-store.ts';

/** Snapshot list → the resource it is served as. */
const OBJECT_LISTS: readonly [SimResourceName, (s: ClusterSnapshot) => readonly KubeObject[]][] = [
  ['customresourcedefinitions', (s) => s.crds],
  ['nodes', (s) => s.nodes],
  ['configmaps', (s) => s.configMaps],
  ['services', (s) => s.services],
  ['deployments', (s) => s.deployments],
  ['replicasets', (s) => s.replicaSets],
  ['pods', (s) => s.pods],
  ['nodepools', (s) => s.nodePools],
  ['ec2nodeclasses', (s) => s.nodeClasses],
  ['nodeclaims', (s) => s.nodeClaims],
  ['poddisruptionbudgets', (s) => s.pdbs],
  ['volumeattachments', (s) => s.volumeAttachments],
  // One source each, two kinds served apart, as the API server serves them (no slice is made up for
  // a captured Endpoints: the collector reads Endpoints where a Service has no slice, docs/simulator.md).
  ['validatingwebhookconfigurations', (s) => ofKind(s.webhookConfigurations, 'ValidatingWebhookConfiguration')],
  ['mutatingwebhookconfigurations', (s) => ofKind(s.webhookConfigurations, 'MutatingWebhookConfiguration')],
  ['endpointslices', (s) => ofKind(s.endpoints, 'EndpointSlice')],
  ['endpoints', (s) => ofKind(s.endpoints, 'Endpoints')],
];

function ofKind(objects: readonly KubeObject[] | undefined, kind: string): readonly KubeObject[] {
  return (objects ?? []).filter((o) => o.kind === kind);
}

/** Kubernetes sources of a snapshot → the resource whose list a gap denies. */
const GAP_RESOURCES: Partial<Record<SourceName, SimResourceName | 'pods/log'>> = {
  pods: 'pods',
  deployments: 'deployments',
  replicasets: 'replicasets',
  nodes: 'nodes',
  events: 'events',
  configmaps: 'configmaps',
  services: 'services',
  crds: 'customresourcedefinitions',
  nodeclaims: 'nodeclaims',
  nodepools: 'nodepools',
  ec2nodeclasses: 'ec2nodeclasses',
  pdbs: 'poddisruptionbudgets',
  volumeattachments: 'volumeattachments',
  // The collector lists the validating ones first; a denial of either leaves the source a gap.
  webhookconfigurations: 'validatingwebhookconfigurations',
  endpoints: 'endpointslices',
  logs: 'pods/log',
};

/** The namespaces every cluster has. */
const SYSTEM_NAMESPACES = ['default', 'kube-node-lease', 'kube-public', 'kube-system'];

export function storeFromSnapshot(snapshot: ClusterSnapshot): KubeStore {
  const store = new KubeStore();
  if (snapshot.cluster?.version) store.kubernetesVersion = snapshot.cluster.version;
  for (const name of SYSTEM_NAMESPACES) store.put('namespaces', namespaceObject(name));
  for (const [resource, objects] of OBJECT_LISTS) {
    for (const object of objects(snapshot)) store.put(resource, object as JsonRecord);
  }
  snapshot.events.forEach((event, i) => store.put('events', eventObject(event, i)));
  // What admission judges from (src/simulator/admission-webhooks.ts): not captured is not "none exist".
  for (const [source, resource] of [
    ['services', 'services'],
    ['endpoints', 'endpointslices'],
  ] as const) {
    if (!snapshot.captured.has(source)) store.unknown.add(resource);
  }
  if (snapshot.logs.length > 0) attachControllerLogs(store, snapshot);
  for (const gap of snapshot.gaps) {
    // Objects the loader set aside are not served; the source itself was readable.
    if (isSetAsideGap(gap)) continue;
    const denial = denialOf(gap);
    if (denial) store.denials.push(denial);
  }
  return store;
}

/**
 * The whole captured log goes to one controller pod, the one the collector reads (a running
 * one, like the leader), so that reading every running controller pod does not repeat it.
 * Without a controller pod: when pods were not captured, a running controller pod marked as
 * simulated carries the log (the collector finds it by label as on a real cluster); when they
 * were (the controller is gone), the log stays reachable as that of an unlisted pod named after
 * the controller's Deployment, so that no pod appears that the capture says does not exist.
 */
function attachControllerLogs(store: KubeStore, snapshot: ClusterSnapshot): void {
  const lines = snapshot.logs.filter((l) => !l.previous).map(logLineAsPrinted);
  const previous = snapshot.logs.filter((l) => l.previous).map(logLineAsPrinted);
  const controllers = controllersOf(snapshot);
  const deployment = controllers.find((c) => c.deployment)?.deployment;
  const pod =
    controllerLogPod(controllers, previous.length > 0) ??
    (snapshot.captured.has('pods') ? undefined : logSourcePod(snapshot, deployment, previous.length > 0));
  if (pod) {
    if (!store.get('pods', pod.metadata?.name ?? '', pod.metadata?.namespace)) store.put('pods', pod as JsonRecord);
    const [namespace, name] = [pod.metadata?.namespace ?? 'default', pod.metadata?.name ?? ''];
    store.setPodLog(namespace, name, lines, logContainer(pod));
    if (previous.length > 0) store.setPodLog(namespace, name, previous, logContainer(pod), true);
    return;
  }
  const [namespace, name] = [deployment?.metadata?.namespace ?? 'karpenter', deployment?.metadata?.name ?? 'karpenter'];
  store.setPodLog(namespace, name, lines);
  if (previous.length > 0) store.setPodLog(namespace, name, previous, undefined, true);
}

export const SIMULATED_ANNOTATION = 'karpenter-sentinel.io/simulated';

/** A running controller pod standing in for the one whose log was captured without it. */
function logSourcePod(snapshot: ClusterSnapshot, deployment: Deployment | undefined, restarted: boolean): Pod {
  const namespace = deployment?.metadata?.namespace ?? 'karpenter';
  const name = deployment?.metadata?.name ?? 'karpenter';
  const since = snapshot.logs.map((l) => l.time).find((t) => t !== undefined);
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `${name}-simulated`,
      namespace,
      labels: { [CONTROLLER_LABEL]: CONTROLLER_LABEL_VALUE, 'app.kubernetes.io/instance': name },
      annotations: { [SIMULATED_ANNOTATION]: 'stands in for the controller pod whose log was captured without the pod' },
      ...(since ? { creationTimestamp: since } : {}),
    },
    spec: { containers: [{ name: 'controller' }] },
    status: {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'True' }],
      ...(since ? { startTime: since } : {}),
      // Running, so its log is served; restarted once when a previous log was captured, so the collector reads that too.
      containerStatuses: [
        {
          name: 'controller',
          ready: true,
          restartCount: restarted ? 1 : 0,
          state: { running: since ? { startedAt: since } : {} },
          ...(restarted ? { lastState: { terminated: { exitCode: 1, reason: 'Error' } } } : {}),
        },
      ],
    },
  };
}

/** With a previous log: a pod that restarted (the collector reads only their previous logs). */
function controllerLogPod(controllers: readonly ControllerInfo[], restarted: boolean): Pod | undefined {
  const pods = controllers.flatMap((c) => c.pods).sort((a, b) => podKey(a).localeCompare(podKey(b)));
  const running = (p: Pod) => p.status?.phase === 'Running';
  const hasRestarted = (p: Pod) => (p.status?.containerStatuses ?? []).some((c) => (c.restartCount ?? 0) > 0);
  return (restarted ? pods.find((p) => running(p) && hasRestarted(p)) : undefined) ?? pods.find(running) ?? pods[0];
}

function podKey(pod: Pod): string {
  return `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
}

/** The container the collector asks for (`controller`), else the pod's only/first container. */
function logContainer(pod: Pod): string | undefined {
  const names = (pod.spec?.containers ?? []).map((c) => c.name).filter((n): n is string => typeof n === 'string');
  return names.includes('controller') ? 'controller' : names[0];
}

/**
 * `403 Forbidden: nodeclaims.karpenter.sh is forbidden: ...` (the adapter's summary),
 * `Forbidden: ...` (kubectl's `Error from server (Forbidden): ...`), a failed conversion webhook
 * (500 without a reason, as kube-apiserver answers it) or any text (403).
 */
export function denialOf(gap: Gap): AccessDenial | undefined {
  const resource = GAP_RESOURCES[gap.source];
  if (!resource) return undefined;
  const conversion = CONVERSION_FAILED.exec(gap.error);
  if (conversion) return { resource, status: 500, reason: UNKNOWN_REASON, message: conversion[0] };
  const coded = /^(\d{3})\s+([A-Za-z]+)?:?\s*(.*)$/s.exec(gap.error);
  if (coded) {
    const status = Number(coded[1]);
    return { resource, status, reason: coded[2] ?? REASONS[status] ?? 'Forbidden', message: coded[3] || gap.error };
  }
  const reasoned = /^([A-Z][A-Za-z]+): (.*)$/s.exec(gap.error);
  const status = reasoned?.[1] ? STATUS_OF_REASON[reasoned[1]] : undefined;
  if (reasoned?.[1] && reasoned[2] && status) return { resource, status, reason: reasoned[1], message: reasoned[2] };
  return { resource, status: 403, reason: 'Forbidden', message: gap.error };
}

const CONVERSION_FAILED = new RegExp(CONVERSION_WEBHOOK_FAILED.source);

const STATUS_OF_REASON: Readonly<Record<string, number>> = {
  Unauthorized: 401,
  Forbidden: 403,
  NotFound: 404,
  TooManyRequests: 429,
  InternalError: 500,
  ServiceUnavailable: 503,
  Timeout: 504,
};

const REASONS: Readonly<Record<number, string>> = Object.fromEntries(
  Object.entries(STATUS_OF_REASON).map(([reason, status]) => [status, reason]),
);
