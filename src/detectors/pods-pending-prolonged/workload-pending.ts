import type { KubeEvent, Pod } from '../../domain/kube.ts';
import type { DetectionSettings } from '../../domain/settings.ts';
import { usesFargateScheduler } from '../scheduling/fargate.ts';
import { isDaemonSetPod, schedulerMessageOf } from '../scheduling/pending.ts';
import { schedulingSource } from '../scheduling/scheduler-messages.ts';

/**
 * Which Pending workload pods are waiting on Karpenter, and since when they count as stuck.
 * Not waiting on Karpenter: DaemonSet pods (Karpenter never provisions for them), Fargate pods,
 * static (mirror) pods, and pods kube-scheduler does not even try to place because a
 * PersistentVolumeClaim is unbound or missing (the storage provisioner's problem; Karpenter waits
 * for the claim too).
 */

const MIRROR_ANNOTATION = 'kubernetes.io/config.mirror';
const VOLUME_WAIT = /unbound immediate PersistentVolumeClaims|persistentvolumeclaim "[^"]*" (?:not found|is being deleted)/i;

export function waitsForKarpenter(pod: Pod, events: readonly KubeEvent[]): boolean {
  if (isDaemonSetPod(pod) || usesFargateScheduler(pod)) return false;
  if (pod.metadata?.annotations?.[MIRROR_ANNOTATION] !== undefined) return false;
  if ((pod.metadata?.ownerReferences ?? []).some((o) => o.kind === 'Node')) return false;
  return !VOLUME_WAIT.test(schedulerMessageOf(pod, events) ?? '');
}

/**
 * Capacity is already on its way to a nominated pod: kube-scheduler set `nominatedNodeName`
 * (preemption victims are leaving) or Karpenter published `Nominated` (a NodeClaim it launched
 * will take the pod). Such a pod is stuck only once the node could have registered too.
 */
export function nominatedTo(pod: Pod, events: readonly KubeEvent[]): string | undefined {
  if (pod.status?.nominatedNodeName) return pod.status.nominatedNodeName;
  const karpenter = events.find((e) => e.reason === 'Nominated' && schedulingSource(e) === 'karpenter');
  return karpenter ? (karpenter.message ?? 'a NodeClaim').replace(/^Pod should schedule on:?\s*/i, '') : undefined;
}

/** How long a pod may stay Pending before it counts: the workload threshold, plus registration time when nominated. */
export function pendingThreshold(settings: DetectionSettings, nominated: string | undefined): number {
  return nominated === undefined ? settings.workloadPendingMs : settings.workloadPendingMs + settings.registrationMs;
}
