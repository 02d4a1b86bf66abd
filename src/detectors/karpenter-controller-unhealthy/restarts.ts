import type { ContainerStatus, Pod } from '../../domain/kube.ts';
import { isoSeconds } from '../../domain/kube-helpers.ts';

/**
 * When a scheduled controller pod counts as failing (docs/findings.md, KARPENTER_CONTROLLER_UNHEALTHY):
 * - a container waits in `CrashLoopBackOff`;
 * - its last run was `OOMKilled`, at most RESTART_WINDOW_MS ago (or at an unknown time): an OOM
 *   kill a week ago followed by a week of running is history, not a failure;
 * - it restarted at least RESTARTS_AT_LEAST times, the last restart at most RESTART_WINDOW_MS ago.
 *   The API keeps a count of restarts but only the time of the last one, so "3 restarts within the
 *   hour" is read as "3 restarts in all, the latest within the hour".
 */
const RESTART_WINDOW_MS = 60 * 60_000;
const RESTARTS_AT_LEAST = 3;

interface Termination {
  reason?: string;
  message?: string;
  exitCode?: number;
  finishedAt?: string;
}

export interface PodFailure {
  pod: Pod;
  /** The failing container's name, when the status names it. */
  container: string | undefined;
  crashLooping: boolean;
  oomKilled: boolean;
  restarts: number;
  /** The container's latest termination (its current state if terminated, else its last state). */
  termination: Termination | undefined;
}

/** How a scheduled controller pod fails, or undefined when it does not (or is not scheduled). */
export function podFailure(pod: Pod, now: Date): PodFailure | undefined {
  if (!pod.spec?.nodeName) return undefined; // Pending: KARPENTER_CONTROLLER_PENDING's
  const statuses = pod.status?.containerStatuses ?? [];
  // The chart's container is `controller`: judged first, so its failure is the one reported.
  const ordered = [...statuses.filter((s) => s.name === 'controller'), ...statuses.filter((s) => s.name !== 'controller')];
  for (const status of ordered) {
    const failure = containerFailure(pod, status, now);
    if (failure) return failure;
  }
  return undefined;
}

function containerFailure(pod: Pod, status: ContainerStatus, now: Date): PodFailure | undefined {
  const termination = status.state?.terminated ?? status.lastState?.terminated;
  const restarts = status.restartCount ?? 0;
  const ended = Date.parse(termination?.finishedAt ?? '');
  const timeKnown = !Number.isNaN(ended);
  const recent = timeKnown && now.getTime() - ended <= RESTART_WINDOW_MS;
  const crashLooping = status.state?.waiting?.reason === 'CrashLoopBackOff';
  const oomKilled = termination?.reason === 'OOMKilled' && (recent || !timeKnown);
  const restartLoop = restarts >= RESTARTS_AT_LEAST && recent;
  if (!crashLooping && !oomKilled && !restartLoop) return undefined;
  return { pod, container: status.name, crashLooping, oomKilled, restarts, termination };
}

/** `CrashLoopBackOff, 14 restarts, last terminated OOMKilled (exit code 137) at 2026-01-01T00:57:03Z`. */
export function failureText(f: PodFailure): string {
  const parts: string[] = [];
  if (f.crashLooping) parts.push('CrashLoopBackOff');
  parts.push(`${f.restarts} restart${f.restarts === 1 ? '' : 's'}`);
  const t = f.termination;
  if (t) {
    const code = t.exitCode !== undefined ? ` (exit code ${t.exitCode})` : '';
    const at = isoSeconds(t.finishedAt);
    parts.push(`last terminated ${t.reason ?? 'with no reason given'}${code}${at ? ` at ${at}` : ''}`);
  }
  return parts.join(', ');
}

/**
 * The finding's `since`: the earliest of the failing pods' last terminations. Earlier restarts
 * left no time in the pod's status, so this is the latest moment the failure is known to have begun.
 */
export function earliestTermination(failures: readonly PodFailure[]): string | null {
  let earliest: number | undefined;
  let raw: string | undefined;
  for (const f of failures) {
    const t = Date.parse(f.termination?.finishedAt ?? '');
    if (!Number.isNaN(t) && (earliest === undefined || t < earliest)) {
      earliest = t;
      raw = f.termination?.finishedAt;
    }
  }
  return isoSeconds(raw);
}
