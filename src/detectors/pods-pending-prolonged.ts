import { manualRemediation, newFinding, type Finding } from '../domain/finding.ts';
import type { Pod } from '../domain/kube.ts';
import { formatDuration } from '../domain/settings.ts';
import type { ControllerInfo } from '../snapshot/snapshot-index.ts';
import type { DetectContext, Detector } from './detector.ts';
import { usesFargateScheduler } from './support/fargate.ts';
import { earliestSince, isDaemonSetPod, isUnboundPending, listCapped, pendingAtLeast, podRef } from './support/pending.ts';
import { WorkloadDiagnoser, type WorkloadCause, type WorkloadVerdict } from './support/workload-diagnosis.ts';

/**
 * PODS_PENDING_PROLONGED: workload pods Karpenter should have found a node for, grouped into one
 * finding per cause. Karpenter's own pods, DaemonSet pods (Karpenter never provisions for them) and
 * Fargate pods (Fargate, not Karpenter, runs them) are not counted.
 */
export const podsPendingProlonged: Detector<'PODS_PENDING_PROLONGED'> = {
  code: 'PODS_PENDING_PROLONGED',
  requires: ['pods'],
  refinedBy: ['deployments', 'replicasets', 'events', 'nodepools', 'ec2nodeclasses', 'logs'],
  detect(ctx) {
    const threshold = ctx.settings.workloadPendingMs;
    const pending = ctx.snapshot.pods.filter(
      (p) =>
        !ctx.index.isControllerPod(p) &&
        !isDaemonSetPod(p) &&
        !usesFargateScheduler(p) &&
        isUnboundPending(p) &&
        pendingAtLeast(p, threshold, ctx.now),
    );
    if (pending.length === 0) return [];
    if (!ctx.index.controllers.some(isAvailable)) return [finding(ctx, 'CONTROLLER_UNAVAILABLE', pending, controllerDown(ctx))];

    const diagnoser = new WorkloadDiagnoser(ctx.snapshot, ctx.index);
    const groups = new Map<WorkloadCause, { pods: Pod[]; verdicts: Set<WorkloadVerdict> }>();
    for (const pod of pending) {
      const verdict = diagnoser.diagnose(pod);
      const group = groups.get(verdict.cause) ?? { pods: [], verdicts: new Set() };
      group.pods.push(pod);
      group.verdicts.add(verdict);
      groups.set(verdict.cause, group);
    }
    return [...groups].map(([cause, g]) => finding(ctx, cause, g.pods, merge([...g.verdicts])));
  },
};

/** A Ready pod, or (when its pods were not captured, e.g. another namespace only) a Deployment reporting ready replicas. */
function isAvailable(c: ControllerInfo): boolean {
  return c.readyPods > 0 || (c.pods.length === 0 && (c.deployment?.status?.readyReplicas ?? 0) > 0);
}

const TITLES: Record<WorkloadCause, string> = {
  CONTROLLER_UNAVAILABLE: 'no Karpenter controller is running',
  NO_NODEPOOL_MATCH: 'no NodePool matches them',
  NODEPOOL_LIMIT_REACHED: 'NodePool limits reached',
  NODECLASS_NOT_READY: 'EC2NodeClass not ready',
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
        'install or restore the controller: helm upgrade --install karpenter oci://public.ecr.aws/karpenter/karpenter --namespace karpenter --create-namespace --set settings.clusterName=' +
          (ctx.snapshot.cluster?.name ?? ctx.snapshot.clusterName),
      ],
    };
  }
  return {
    cause: 'CONTROLLER_UNAVAILABLE',
    detail: `No Karpenter controller pod is Ready (${controllers.map((c) => `${c.namespace}/${c.deploymentName ?? 'karpenter'}: 0 of ${c.pods.length}`).join(', ')}), so nothing provisions nodes for pending pods.`,
    evidence: controllers.map(
      (c) =>
        `${c.namespace}/${c.deploymentName ?? 'karpenter'}: ${c.pods.length} pod(s), none Ready (${c.pods.map((p) => `${p.metadata?.name} ${p.status?.phase ?? '?'}`).join(', ') || 'no pods'})`,
    ),
    steps: [
      ...controllers.flatMap((c) => [
        `kubectl get pods -n ${c.namespace} -l app.kubernetes.io/name=karpenter -o wide`,
        `kubectl describe deployment -n ${c.namespace} ${c.deploymentName ?? 'karpenter'}`,
        `kubectl logs -n ${c.namespace} deployment/${c.deploymentName ?? 'karpenter'} --tail=100`,
      ]),
      'if the controller pods are Pending, see the KARPENTER_CONTROLLER_PENDING finding',
    ],
  };
}
