import type { KubeEvent, Pod } from '../../domain/kube.ts';
import { ageMs, conditionOf, isoSeconds, isUnboundPending } from '../../domain/kube-helpers.ts';

export { isUnboundPending };
import { latestFailedScheduling } from './scheduler-messages.ts';

/** Pending pods as both pending detectors see them. */

/** When the pod started waiting: its creation, else when it was first found unschedulable. */
function pendingSinceRaw(pod: Pod): string | undefined {
  return pod.metadata?.creationTimestamp ?? conditionOf(pod, 'PodScheduled')?.lastTransitionTime;
}

/** How long the pod has been Pending; undefined when it does not say since when. */
export function pendingAgeMs(pod: Pod, now: Date): number | undefined {
  return ageMs(pendingSinceRaw(pod), now);
}

/** Pending for at least `thresholdMs` (exactly the threshold counts). */
export function pendingAtLeast(pod: Pod, thresholdMs: number, now: Date): boolean {
  const age = pendingAgeMs(pod, now);
  return age !== undefined && age >= thresholdMs;
}

/** The earliest `since` of a set of pods, second precision. */
export function earliestSince(pods: readonly Pod[]): string | null {
  let earliest: number | undefined;
  let raw: string | undefined;
  for (const p of pods) {
    const s = pendingSinceRaw(p);
    const t = s ? Date.parse(s) : Number.NaN;
    if (!Number.isNaN(t) && (earliest === undefined || t < earliest)) {
      earliest = t;
      raw = s;
    }
  }
  return isoSeconds(raw);
}

export function podRef(pod: Pod): string {
  return `${pod.metadata?.namespace ?? 'default'}/${pod.metadata?.name ?? '?'}`;
}

export function isDaemonSetPod(pod: Pod): boolean {
  return (pod.metadata?.ownerReferences ?? []).some((o) => o.kind === 'DaemonSet');
}

/** `a, b, c and 7 more`: evidence stays short however many pods are stuck. */
export function listCapped(items: readonly string[], cap = 10): string {
  if (items.length <= cap) return items.join(', ');
  return `${items.slice(0, cap).join(', ')} and ${items.length - cap} more`;
}

/** kube-scheduler's latest word on the pod: the newest FailedScheduling event, else the PodScheduled message. */
export function schedulerMessageOf(pod: Pod, events: readonly KubeEvent[]): string | undefined {
  const event = latestFailedScheduling(events, 'kube-scheduler');
  if (event?.message) return event.message;
  const scheduled = conditionOf(pod, 'PodScheduled');
  return scheduled?.status === 'False' ? scheduled.message : undefined;
}
