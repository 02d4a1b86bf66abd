/**
 * `GET .../pods/{name}/log` as the API server and the kubelet answer it: the container's lines
 * (the last `tailLines`, at most `limitBytes`), an empty body for a pod no node runs yet, and a
 * 400 for a container that never started, in the kubelet's words. A capture may hold lines for
 * a pod whose status says it never started; they are not served, so a simulated scan finds no
 * evidence a live one could not read.
 */
import { isRecord, type JsonRecord } from '../domain/shape.ts';
import type { KubeStore } from './kube-store.ts';
import { badRequest, notFound } from './status.ts';
import { list, record, text } from './tables/fields.ts';

/** kubelet's waiting reasons for a container it has not created yet (pkg/kubelet/kubelet_pods.go). */
const CONTAINER_CREATING = 'ContainerCreating';
const POD_INITIALIZING = 'PodInitializing';

/** The kubelet's own wording for the commonest waiting reasons (validateContainerLogStatus). */
const WAITING_WORDS: Readonly<Record<string, string>> = {
  ErrImagePull: "image can't be pulled",
  ImagePullBackOff: 'trying and failing to pull image',
};

export function podLog(store: KubeStore, namespace: string, name: string, query: URLSearchParams): string {
  const pod = store.get('pods', name, namespace);
  if (!pod && !store.hasPodLog(namespace, name)) throw notFound('pods', name);
  const container = query.get('container') ?? undefined;
  const containers = pod ? containerNames(pod.object) : [];
  if (container !== undefined && containers.length > 0 && !containers.includes(container)) {
    throw badRequest(`container ${container} is not valid for pod ${name}`);
  }
  if (container === undefined && containers.length > 1) {
    throw badRequest(`a container name must be specified for pod ${name}, choose one of: [${containers.join(' ')}]`);
  }
  const chosen = container ?? containers[0];
  const previous = query.get('previous') === 'true';
  if (pod && !previous && chosen !== undefined) {
    const refusal = notStartedRefusal(pod.object, chosen, name);
    if (refusal === 'unscheduled') return '';
    if (refusal !== undefined) throw badRequest(refusal);
  }
  let lines: readonly string[] | undefined = store.podLog(namespace, name, chosen, previous);
  if (previous) {
    // The kubelet answers from that container's last termination (validateContainerLogStatus): none, no
    // previous log, whatever the capture holds. A terminated one whose log was not captured reads empty.
    const status = pod && chosen !== undefined ? containerStatusOf(pod.object, chosen) : undefined;
    const terminated = status !== undefined && isRecord(record(status.lastState).terminated);
    if ((status !== undefined && !terminated) || (status === undefined && lines === undefined)) {
      throw badRequest(`previous terminated container "${chosen ?? ''}" in pod "${name}" not found`);
    }
  }
  lines ??= [];
  const tail = nonNegativeInteger(query, 'tailLines');
  if (tail !== undefined) lines = tail === 0 ? [] : lines.slice(-tail);
  const text = lines.map((l) => `${l}\n`).join('');
  const limitBytes = nonNegativeInteger(query, 'limitBytes');
  return limitBytes === undefined ? text : Buffer.from(text).subarray(0, limitBytes).toString('utf8');
}

/**
 * Why a container has no log to read, as the kubelet says it; `unscheduled` when no node runs the
 * pod (the API server then answers with an empty log); undefined when it ran. A pod whose status
 * does not list the container is judged by its phase: scheduled and Pending means the kubelet has
 * not created it (ContainerCreating, or PodInitializing behind init containers); any other phase
 * means it ran (captures often leave container statuses out).
 */
function notStartedRefusal(pod: JsonRecord, container: string, podName: string): string | 'unscheduled' | undefined {
  const spec = record(pod.spec);
  const status = record(pod.status);
  const found = containerStatusOf(pod, container);
  const prefix = `container ${JSON.stringify(container)} in pod ${JSON.stringify(podName)}`;
  if (found) {
    const state = record(found.state);
    if (state.running || state.terminated || record(found.lastState).terminated) return undefined;
    if (isRecord(state.waiting)) {
      const reason = text(state.waiting.reason);
      return `${prefix} is waiting to start: ${WAITING_WORDS[reason] ?? reason}`;
    }
    return `${prefix} is waiting to start - no logs yet`;
  }
  if (text(spec.nodeName) === '') return 'unscheduled';
  if (status.phase !== 'Pending') return undefined;
  return `${prefix} is waiting to start: ${list(spec.initContainers).length > 0 ? POD_INITIALIZING : CONTAINER_CREATING}`;
}

/** The status the pod reports for one of its containers (or init containers); undefined when it lists none. */
function containerStatusOf(pod: JsonRecord, container: string): JsonRecord | undefined {
  const status = record(pod.status);
  return [...list(status.containerStatuses), ...list(status.initContainerStatuses)].find((c) => c.name === container);
}

function nonNegativeInteger(query: URLSearchParams, name: string): number | undefined {
  const text = query.get(name);
  if (text === null) return undefined;
  if (!/^\d+$/.test(text)) throw badRequest(`${name}: Invalid value: "${text}": must be a non-negative integer`);
  return Number(text);
}

function containerNames(pod: JsonRecord): string[] {
  return list(record(pod.spec).containers).flatMap((c) => (typeof c.name === 'string' ? [c.name] : []));
}
