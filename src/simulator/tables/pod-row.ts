/**
 * The cells of `kubectl get pods` (NAME READY STATUS RESTARTS AGE, and with -o wide IP NODE
 * NOMINATED NODE READINESS GATES) worked out from a pod's status as the API server's pod printer
 * does: STATUS is the phase or status.reason, overridden by an init container's progress
 * (`Init:0/1`, `Init:CrashLoopBackOff`), then by a container's waiting or terminated reason
 * (`CrashLoopBackOff`, `ContainerCreating`, `OOMKilled`, `ExitCode:1`), and `Terminating` once
 * the pod is being deleted.
 */
import { isRecord, type JsonRecord } from '../../domain/shape.ts';
import { list, number, record, text } from './fields.ts';
import { ageOf } from './age.ts';
import type { ColumnDefinition } from './table-kind.ts';

export const POD_COLUMNS: readonly ColumnDefinition[] = [
  { name: 'Name', type: 'string', format: 'name', priority: 0 },
  { name: 'Ready', type: 'string', priority: 0 },
  { name: 'Status', type: 'string', priority: 0 },
  { name: 'Restarts', type: 'string', priority: 0 },
  { name: 'Age', type: 'string', priority: 0 },
  { name: 'IP', type: 'string', priority: 1 },
  { name: 'Node', type: 'string', priority: 1 },
  { name: 'Nominated Node', type: 'string', priority: 1 },
  { name: 'Readiness Gates', type: 'string', priority: 1 },
];

/** The reason Kubernetes gives a pod whose node stopped answering (node lifecycle controller). */
const NODE_UNREACHABLE = 'NodeLost';

export function podCells(pod: JsonRecord, now: Date): unknown[] {
  const metadata = record(pod.metadata);
  const spec = record(pod.spec);
  const status = record(pod.status);
  const phase = text(status.phase);
  let reason = text(status.reason) || phase;
  for (const condition of list(status.conditions)) {
    if (condition.type === 'PodScheduled' && condition.reason === 'SchedulingGated') reason = 'SchedulingGated';
  }
  const initSpecs = new Map(list(spec.initContainers).map((c) => [text(c.name), c]));
  const restartable = (name: string) => initSpecs.get(name)?.restartPolicy === 'Always';
  const total = list(spec.containers).length + [...initSpecs.keys()].filter(restartable).length;
  let ready = 0;
  let restarts = 0;
  let sidecarRestarts = 0;
  let lastRestart = 0;
  let sidecarLastRestart = 0;
  let initializing = false;
  const initStatuses = list(status.initContainerStatuses);
  for (const [i, container] of initStatuses.entries()) {
    const state = record(container.state);
    const count = number(container.restartCount);
    restarts += count;
    const finished = finishedAt(container);
    lastRestart = Math.max(lastRestart, finished);
    if (restartable(text(container.name))) {
      sidecarRestarts += count;
      sidecarLastRestart = Math.max(sidecarLastRestart, finished);
    }
    const terminated = isRecord(state.terminated) ? state.terminated : undefined;
    const waiting = isRecord(state.waiting) ? state.waiting : undefined;
    if (terminated && number(terminated.exitCode) === 0) continue;
    if (restartable(text(container.name)) && container.started === true) {
      if (container.ready === true) ready++;
      continue;
    }
    initializing = true;
    if (terminated) reason = `Init:${text(terminated.reason) || exitText(terminated)}`;
    else if (waiting && text(waiting.reason) !== '' && waiting.reason !== 'PodInitializing')
      reason = `Init:${text(waiting.reason)}`;
    else reason = `Init:${i}/${initSpecs.size}`;
    break;
  }
  if (!initializing || conditionTrue(status, 'Initialized')) {
    restarts = sidecarRestarts;
    lastRestart = sidecarLastRestart;
    let hasRunning = false;
    const statuses = list(status.containerStatuses);
    for (let i = statuses.length - 1; i >= 0; i--) {
      const container = statuses[i] ?? {};
      const state = record(container.state);
      restarts += number(container.restartCount);
      lastRestart = Math.max(lastRestart, finishedAt(container));
      const waiting = isRecord(state.waiting) ? state.waiting : undefined;
      const terminated = isRecord(state.terminated) ? state.terminated : undefined;
      if (waiting && text(waiting.reason) !== '') reason = text(waiting.reason);
      else if (terminated) reason = text(terminated.reason) || exitText(terminated);
      else if (container.ready === true && isRecord(state.running)) {
        hasRunning = true;
        ready++;
      }
    }
    if (reason === 'Completed' && hasRunning) reason = conditionTrue(status, 'Ready') ? 'Running' : 'NotReady';
  }
  const deleting = typeof metadata.deletionTimestamp === 'string';
  if (deleting && status.reason === NODE_UNREACHABLE) reason = 'Unknown';
  else if (deleting && phase !== 'Succeeded' && phase !== 'Failed') reason = 'Terminating';
  const restartText =
    restarts !== 0 && lastRestart > 0 ? `${restarts} (${ageOf(new Date(lastRestart).toISOString(), now)} ago)` : String(restarts);
  const podIPs = list(status.podIPs);
  const gates = list(spec.readinessGates);
  const gatesText =
    gates.length === 0 ? '<none>' : `${gates.filter((g) => conditionTrue(status, text(g.conditionType))).length}/${gates.length}`;
  return [
    text(metadata.name),
    `${ready}/${total}`,
    reason,
    restartText,
    ageOf(metadata.creationTimestamp, now),
    text(podIPs[0]?.ip) || text(status.podIP) || '<none>',
    text(spec.nodeName) || '<none>',
    text(status.nominatedNodeName) || '<none>',
    gatesText,
  ];
}

/** A terminated container without a reason: its signal, else its exit code. */
function exitText(terminated: JsonRecord): string {
  const signal = number(terminated.signal);
  return signal !== 0 ? `Signal:${signal}` : `ExitCode:${number(terminated.exitCode)}`;
}

function finishedAt(container: JsonRecord): number {
  const last = record(container.lastState);
  const terminated = record(last.terminated);
  const time = typeof terminated.finishedAt === 'string' ? Date.parse(terminated.finishedAt) : NaN;
  return Number.isNaN(time) ? 0 : time;
}

function conditionTrue(status: JsonRecord, type: string): boolean {
  return list(status.conditions).some((c) => c.type === type && c.status === 'True');
}
