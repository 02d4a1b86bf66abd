import { commandStep, manualRemediation, newFinding, type Finding } from '../../domain/finding.ts';
import type { Pod } from '../../domain/kube.ts';
import { formatDuration } from '../../domain/settings.ts';
import type { ControllerInfo } from '../../domain/snapshot-index.ts';
import type { DetectContext, Detector } from '../detector.ts';
import { awsRunsKarpenter } from '../../domain/auto-mode.ts';
import { controllerAbsenceKnown } from '../karpenter/controller-presence.ts';
import { earliestSince, isUnboundPending, listCapped, pendingAgeMs, podRef } from '../scheduling/pending.ts';
import { WorkloadDiagnoser, type WorkloadCause, type WorkloadVerdict } from './workload-diagnosis.ts';
import { nominatedTo, pendingThreshold, waitsForKarpenter } from './workload-pending.ts';
import { shellQuote } from '../../domain/shell.ts';

/**
 * PODS_PENDING_PROLONGED: workload pods Karpenter should have found a node for, grouped into one
 * finding per cause. Karpenter's own pods and pods that do not wait on Karpenter (see
 * workload-pending.ts: DaemonSet, Fargate, static and volume-bound pods) are not counted;
 * scheduling-gated pods are not pending for capacity at all, and nominated pods get the
 * registration threshold on top. Under EKS Auto Mode AWS runs Karpenter, so the absence of a
 * controller pod is no cause.
 */
export const podsPendingProlonged: Detector<'PODS_PENDING_PROLONGED'> = {
  code: 'PODS_PENDING_PROLONGED',
  requires: ['pods'],
  refinedBy: ['deployments', 'replicasets', 'events', 'nodepools', 'ec2nodeclasses', 'nodeclaims', 'cluster', 'logs'],
  detect(ctx) {
    const nominated = new Map<Pod, string>();
    // Not Pending for the shorter of the two thresholds: not stuck, whatever its events say.
    const shortest = Math.min(pendingThreshold(ctx.settings, undefined), pendingThreshold(ctx.settings, ''));
    // Bound pods (nearly all of a cluster's) are never Pending unbound: only the others are read.
    const pending = ctx.index.unboundPods.filter((p) => {
      if (!isUnboundPending(p) || ctx.index.isControllerPod(p)) return false;
      const age = pendingAgeMs(p, ctx.now);
      if (age === undefined || age < shortest) return false;
      const events = ctx.index.eventsFor('Pod', p.metadata?.namespace, p.metadata?.name);
      if (!waitsForKarpenter(p, events)) return false;
      const to = nominatedTo(p, events);
      if (age < pendingThreshold(ctx.settings, to)) return false;
      if (to !== undefined) nominated.set(p, to);
      return true;
    });
    if (pending.length === 0) return [];
    const absenceKnown = controllerAbsenceKnown(ctx.snapshot, ctx.index);
    if (!ctx.index.controllers.some(isAvailable) && !awsRunsKarpenter(ctx.snapshot) && absenceKnown) {
      const down = controllerDown(ctx);
      return [
        finding(ctx, 'CONTROLLER_UNAVAILABLE', pending, {
          ...down,
          evidence: [...down.evidence, ...nominatedLine(pending, nominated)],
        }),
      ];
    }

    const diagnoser = new WorkloadDiagnoser(ctx.snapshot, ctx.index);
    const groups = new Map<WorkloadCause, { pods: Pod[]; verdicts: Set<WorkloadVerdict> }>();
    for (const pod of pending) {
      const verdict = diagnoser.diagnose(pod);
      const group = groups.get(verdict.cause) ?? { pods: [], verdicts: new Set() };
      group.pods.push(pod);
      group.verdicts.add(verdict);
      groups.set(verdict.cause, group);
    }
    return [...groups].map(([cause, g]) => {
      const verdict = merge([...g.verdicts]);
      const partial = absenceKnown
        ? []
        : [
            'no Karpenter controller and no kube-system pod in the capture: capture all namespaces (kubectl get pods -A) to check the controller',
          ];
      return finding(ctx, cause, g.pods, {
        ...verdict,
        evidence: [...verdict.evidence, ...nominatedLine(g.pods, nominated), ...partial],
      });
    });
  },
};

function nominatedLine(pods: readonly Pod[], nominated: ReadonlyMap<Pod, string>): string[] {
  const lines = pods.flatMap((p) => {
    const to = nominated.get(p);
    return to === undefined ? [] : [`${podRef(p)} nominated to ${to}`];
  });
  return lines.length ? [`nominated, yet still Pending past the registration threshold: ${listCapped(lines, 5)}`] : [];
}

/** A Ready pod, or (when its pods were not captured, e.g. another namespace only) a Deployment reporting ready replicas. */
function isAvailable(c: ControllerInfo): boolean {
  return c.readyPods > 0 || (c.pods.length === 0 && (c.deployment?.status?.readyReplicas ?? 0) > 0);
}

const TITLES: Record<WorkloadCause, string> = {
  CONTROLLER_UNAVAILABLE: 'no Karpenter controller is running',
  NO_NODEPOOL_MATCH: 'no NodePool matches them',
  NODEPOOL_LIMIT_REACHED: 'NodePool limits reached',
  NODECLASS_NOT_READY: 'EC2NodeClass not ready',
  NO_INSTANCE_TYPE_FITS: 'no instance type the NodePool allows fits them',
  TOPOLOGY_UNSATISFIABLE: 'no NodePool reaches the zone they need',
  UNKNOWN: 'cause unknown',
};

function finding(
  ctx: DetectContext,
  cause: WorkloadCause,
  pods: Pod[],
  verdict: WorkloadVerdict,
): Finding<'PODS_PENDING_PROLONGED'> {
  const clusterName = ctx.snapshot.clusterName;
  return newFinding({
    code: 'PODS_PENDING_PROLONGED',
    severity: 'warning',
    title: `${pods.length} pod(s) Pending over ${formatDuration(ctx.settings.workloadPendingMs)}: ${TITLES[cause]}`,
    resource: { kind: 'Cluster', name: clusterName },
    discriminator: cause,
    since: earliestSince(pods),
    cause: { code: cause, detail: verdict.detail },
    evidence: [`Pending: ${listCapped(pods.map(podRef))}`, ...verdict.evidence],
    remediation: manualRemediation(verdict.steps),
  });
}

/** Pods with different constraints can share a cause; their facts and steps are united, each said once. */
function merge(verdicts: WorkloadVerdict[]): WorkloadVerdict {
  const first = verdicts[0] as WorkloadVerdict;
  if (verdicts.length === 1) return first;
  const unique = (lists: string[][], cap: number) => [...new Set(lists.flat())].slice(0, cap);
  return {
    cause: first.cause,
    detail: unique([verdicts.map((v) => v.detail)], 3).join(' '),
    evidence: unique(
      verdicts.map((v) => v.evidence),
      12,
    ),
    steps: unique(
      verdicts.map((v) => v.steps),
      12,
    ),
  };
}

function controllerDown(ctx: DetectContext): WorkloadVerdict {
  const controllers = ctx.index.controllers;
  if (controllers.length === 0) {
    return {
      cause: 'CONTROLLER_UNAVAILABLE',
      detail:
        'No Karpenter controller pod (label app.kubernetes.io/name=karpenter) exists in any namespace, so nothing provisions nodes for pending pods.',
      evidence: ['no pod labelled app.kubernetes.io/name=karpenter in the capture'],
      steps: [
        'kubectl get deployments -A -l app.kubernetes.io/name=karpenter',
        commandStep(
          'install or restore the controller',
          'helm upgrade --install karpenter oci://public.ecr.aws/karpenter/karpenter --namespace karpenter --create-namespace --set settings.clusterName=' +
            (ctx.snapshot.cluster?.name ?? ctx.snapshot.clusterName),
        ),
      ],
    };
  }
  // Scaled to 0 is often deliberate (maintenance, a migration): say so rather than guess at a failure.
  const scaledDown = controllers.filter((c) => c.deployment?.spec?.replicas === 0 && c.pods.length === 0);
  const name = (c: ControllerInfo) => `${c.namespace}/${c.deploymentName ?? 'karpenter'}`;
  const state = (c: ControllerInfo) =>
    scaledDown.includes(c) ? `${name(c)}: scaled to 0 replicas` : `${name(c)}: 0 of ${c.pods.length} Ready`;
  return {
    cause: 'CONTROLLER_UNAVAILABLE',
    detail: `No Karpenter controller pod is Ready (${controllers.map(state).join(', ')}), so nothing provisions nodes for pending pods.${scaledDown.length ? ' If the Deployment was scaled down on purpose, these pods wait until it is scaled back up.' : ''}`,
    evidence: controllers.map((c) =>
      scaledDown.includes(c)
        ? `Deployment ${name(c)} has spec.replicas 0`
        : `${name(c)}: ${c.pods.length} pod(s), none Ready (${c.pods.map((p) => `${p.metadata?.name} ${p.status?.phase ?? '?'}`).join(', ') || 'no pods'})`,
    ),
    steps: [
      ...controllers.flatMap((c) =>
        scaledDown.includes(c)
          ? [
              `kubectl scale deployment -n ${shellQuote(c.namespace)} ${shellQuote(c.deploymentName ?? 'karpenter')} --replicas=2   # the Helm chart's default; if Helm or GitOps owns it, set replicas there`,
            ]
          : [
              `kubectl get pods -n ${shellQuote(c.namespace)} -l app.kubernetes.io/name=karpenter -o wide`,
              `kubectl describe deployment -n ${shellQuote(c.namespace)} ${shellQuote(c.deploymentName ?? 'karpenter')}`,
              `kubectl logs -n ${shellQuote(c.namespace)} ${shellQuote(`deployment/${c.deploymentName ?? 'karpenter'}`)} --tail=100`,
            ],
      ),
      ...(scaledDown.length < controllers.length
        ? ['if the controller pods are Pending, see the KARPENTER_CONTROLLER_PENDING finding']
        : []),
    ],
  };
}
