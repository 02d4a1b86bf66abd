import type { FargateProfile } from '../../domain/aws.ts';
import type { Deployment, Pod } from '../../domain/kube.ts';
import type { ClusterSnapshot } from '../../domain/snapshot.ts';
import type { SnapshotIndex } from '../../domain/snapshot-index.ts';
import { describeSelector, isActive, profilesSelecting, usesFargateScheduler, whyNotSelected } from '../scheduling/fargate.ts';
import { podRef, schedulerMessageOf } from '../scheduling/pending.ts';
import { latestFailedScheduling, parseSchedulerMessage, type SchedulerMessage } from '../scheduling/scheduler-messages.ts';
import { evaluateNode, type NodeFit } from '../scheduling/scheduling.ts';
import { fromNodes, fromSchedulerMessage, isUsable } from './controller-nodes.ts';
import type { ControllerCause, ControllerDiagnosis } from './controller-diagnosis-types.ts';

export type { ControllerCause, ControllerDiagnosis } from './controller-diagnosis-types.ts';

/**
 * Why one Karpenter controller pod is still Pending. Fargate first (a profile decides before any
 * node does), then the nodes as they are now, with kube-scheduler's last message as evidence and
 * as the only witness when nodes were not captured.
 */

/** Most specific and most fixable first: when replicas disagree, the finding reports the first. */
export const CAUSE_PRECEDENCE: readonly ControllerCause[] = [
  'FARGATE_SCHEDULER_RACE',
  'FARGATE_PROFILE_NOT_ACTIVE',
  'NO_FARGATE_PROFILE_MATCH',
  'STALE_SCHEDULING',
  'ANTI_AFFINITY_TOO_FEW_NODES',
  'UNTOLERATED_TAINT',
  'NODE_SELECTOR_MISMATCH',
  'UNKNOWN',
];

export interface ControllerEnv {
  snapshot: ClusterSnapshot;
  index: SnapshotIndex;
  namespace: string;
  deploymentName: string;
  deployment: Deployment | undefined;
  /** Every captured controller pod: the replicas required anti-affinity is checked against. */
  controllerPods: readonly Pod[];
  checkResources: boolean;
}

export function diagnoseControllerPod(pod: Pod, env: ControllerEnv): ControllerDiagnosis {
  const { snapshot, index } = env;
  const events = index.eventsFor('Pod', pod.metadata?.namespace, pod.metadata?.name);
  const schedulerText = schedulerMessageOf(pod, events);
  const scheduler = parseSchedulerMessage(schedulerText);
  const evidence: string[] = [];
  if (schedulerText) evidence.push(`kube-scheduler: ${schedulerText.trim()}`);
  const fargateEvent = latestFailedScheduling(events, 'fargate-scheduler');
  if (fargateEvent?.message) evidence.push(`fargate-scheduler: ${fargateEvent.message}`);

  const nodesCaptured = snapshot.captured.has('nodes');
  const fits = nodesCaptured
    ? snapshot.nodes.map((n) =>
        evaluateNode(pod, n, {
          podsByNode: index.podsByNode,
          nodesByName: index.nodesByName,
          antiAffinityPeers: env.controllerPods,
          checkResources: env.checkResources,
        }),
      )
    : [];
  const base = { pod, evidence, fits, scheduler, selectingProfiles: [] as FargateProfile[] };
  const verdict = (cause: ControllerCause, detail: string, extra: Partial<ControllerDiagnosis> = {}): ControllerDiagnosis => ({
    ...base,
    cause,
    detail,
    ...extra,
    evidence: [...evidence, ...(extra.evidence ?? [])],
  });

  const ref = podRef(pod);
  const scheduledBy = pod.spec?.schedulerName ?? 'default-scheduler';
  const onFargateScheduler = usesFargateScheduler(pod);
  const fitting = fits.filter((f) => f.failures.length === 0);

  if (snapshot.captured.has('fargateprofiles')) {
    const profiles = snapshot.fargateProfiles;
    const selecting = profilesSelecting(pod, profiles);
    const active = selecting.filter(isActive);
    for (const p of selecting)
      evidence.push(
        `Fargate profile ${p.name} (${p.status ?? 'status unknown'}) selects ${ref}: ${p.selectors.map(describeSelector).join('; ')}`,
      );
    if (active[0] && !onFargateScheduler) {
      evidence.push(
        `${ref} has schedulerName ${scheduledBy}; pods admitted while profile ${active[0].name} is ACTIVE get fargate-scheduler`,
      );
      return verdict(
        'FARGATE_SCHEDULER_RACE',
        `ACTIVE Fargate profile ${active[0].name} selects ${ref}, but the pod has schedulerName ${scheduledBy}: it was created before the profile was active, so the Fargate webhook never assigned fargate-scheduler. New pods from a restart will get it.`,
        { selectingProfiles: selecting },
      );
    }
    if (selecting[0] && !active[0]) {
      const states = selecting.map((p) => `${p.name} is ${p.status ?? 'in an unknown state'}`).join(', ');
      return verdict(
        'FARGATE_PROFILE_NOT_ACTIVE',
        `The Fargate profile that selects ${ref} is not ACTIVE (${states}); Fargate takes no pods from it.`,
        {
          selectingProfiles: selecting,
        },
      );
    }
    if (active[0] && onFargateScheduler) {
      return verdict(
        'UNKNOWN',
        `${ref} is assigned to fargate-scheduler by ACTIVE profile ${active[0].name} but no Fargate node came up: check that the profile's subnets are private with a route to a NAT gateway (Fargate pods get no public IP) and the fargate-scheduler events.`,
        { unknownKind: 'fargate-stuck', selectingProfiles: selecting },
      );
    }
    const ns = pod.metadata?.namespace ?? 'default';
    if (
      onFargateScheduler ||
      (profiles.length > 0 && fitting.length === 0 && (meantForFargate(pod, profiles) || !fits.some(isUsable)))
    ) {
      for (const p of profiles) evidence.push(`Fargate profile ${p.name}: ${whyNotSelected(p, ns, pod.metadata?.labels ?? {})}`);
      if (profiles.length === 0) evidence.push(`no Fargate profile exists, yet ${ref} has schedulerName fargate-scheduler`);
      return verdict(
        'NO_FARGATE_PROFILE_MATCH',
        `No Fargate profile selects ${ref} (namespace ${ns}) and no node can run it${onFargateScheduler ? ' (it is bound to fargate-scheduler)' : ''}.`,
        { selectingProfiles: [] },
      );
    }
  } else if (onFargateScheduler) {
    return verdict(
      'UNKNOWN',
      `${ref} uses fargate-scheduler but no Fargate node came up; Fargate profiles were not captured. Check the profile's status and that its subnets are private with a NAT route.`,
      { unknownKind: 'fargate-stuck' },
    );
  }

  const unmodelled = fitting.length > 0 ? stillRejectedFor(scheduler, env.checkResources) : [];
  if (unmodelled.length > 0 && !schedulerPredates(latestFailedScheduling(events, 'kube-scheduler')?.lastTime, fitting)) {
    const reasons = unmodelled.map((r) => r.text).join('; ');
    const nodes = fitting
      .slice(0, 3)
      .map((f) => f.name)
      .join(', ');
    return verdict(
      'UNKNOWN',
      `kube-scheduler still rejects ${ref} for reasons this check does not model (${reasons}), though node ${nodes} passes nodeSelector, affinity, taints and anti-affinity: a restart would meet the same answer, fix what the scheduler names.`,
      { unknownKind: unmodelled.every((r) => r.capacity) ? 'insufficient-resources' : 'unexplained' },
    );
  }
  return nodesCaptured
    ? fromNodes(pod, fits, fitting, env.checkResources, verdict)
    : fromSchedulerMessage(scheduler, verdict, ref);
}

/** Scheduler reasons the node model here cannot check (capacity only counts when every pod on the nodes was captured). */
const MODELLED: ReadonlySet<string> = new Set(['taint', 'node-selector', 'anti-affinity', 'node-condition']);

function stillRejectedFor(message: SchedulerMessage, checkedResources: boolean): { text: string; capacity: boolean }[] {
  return message.reasons.flatMap((r) => {
    const capacity = r.kind === 'insufficient' || r.kind === 'too-many-pods';
    return MODELLED.has(r.kind) || (capacity && checkedResources) ? [] : [{ text: `${r.count} ${r.text}`, capacity }];
  });
}

/**
 * A FailedScheduling event older than a node that fits now: the scheduler has not looked since
 * that node came (the stale decision a restart clears). Without an event time the message counts
 * as current.
 */
function schedulerPredates(eventTime: string | undefined, fitting: readonly NodeFit[]): boolean {
  const said = Date.parse(eventTime ?? '');
  if (Number.isNaN(said)) return false;
  return fitting.some((f) => Date.parse(f.node.metadata?.creationTimestamp ?? '') > said);
}

/**
 * Some profile aims at the controller (its namespace, or one of its labels such as
 * app.kubernetes.io/name=karpenter) without selecting it: Fargate was the plan. A cluster whose
 * profiles only serve other pods (CoreDNS) and that has usable nodes meant them for Karpenter.
 */
function meantForFargate(pod: Pod, profiles: readonly FargateProfile[]): boolean {
  const ns = pod.metadata?.namespace ?? 'default';
  const labels = pod.metadata?.labels ?? {};
  return profiles.some((p) =>
    p.selectors.some((s) => s.namespace === ns || Object.entries(s.labels ?? {}).some(([k, v]) => labels[k] === v)),
  );
}
