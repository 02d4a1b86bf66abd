import { newFinding, type Finding } from '../../domain/finding.ts';
import type { Pod } from '../../domain/kube.ts';
import { formatDuration } from '../../domain/settings.ts';
import type { ControllerInfo } from '../../domain/snapshot-index.ts';
import type { DetectContext, Detector } from '../detector.ts';
import { CAUSE_PRECEDENCE, diagnoseControllerPod, type ControllerEnv } from './controller-diagnosis.ts';
import { controllerRemediation } from './controller-steps.ts';
import { deploymentNameFromPod } from '../karpenter/controller-deployment.ts';
import { earliestSince, isUnboundPending, listCapped, pendingAtLeast, podRef } from '../scheduling/pending.ts';

/**
 * KARPENTER_CONTROLLER_PENDING: Karpenter cannot provision the node it needs itself, so a Pending
 * controller never heals. One finding per controller Deployment; critical when no replica is Ready.
 */
export const controllerPending: Detector<'KARPENTER_CONTROLLER_PENDING'> = {
  code: 'KARPENTER_CONTROLLER_PENDING',
  requires: ['pods'],
  refinedBy: ['deployments', 'replicasets', 'nodes', 'events', 'fargateprofiles', 'cluster'],
  detect(ctx) {
    const controllerPods = ctx.index.controllers.flatMap((c) => c.pods);
    const checkResources = captureIsClusterWide(ctx, controllerPods);
    return ctx.index.controllers.flatMap((info) => {
      const finding = controllerFinding(ctx, info, controllerPods, checkResources);
      return finding ? [finding] : [];
    });
  },
};

function controllerFinding(
  ctx: DetectContext,
  info: ControllerInfo,
  controllerPods: Pod[],
  checkResources: boolean,
): Finding<'KARPENTER_CONTROLLER_PENDING'> | undefined {
  const pending = info.pods.filter((p) => isUnboundPending(p) && pendingAtLeast(p, ctx.settings.controllerPendingMs, ctx.now));
  if (pending.length === 0) return undefined;
  const deploymentName = info.deploymentName ?? deploymentNameFromPod(pending[0]);
  const env: ControllerEnv = {
    snapshot: ctx.snapshot,
    index: ctx.index,
    namespace: info.namespace,
    deploymentName,
    deployment: info.deployment,
    controllerPods,
    checkResources,
  };
  const diagnoses = pending.map((p) => diagnoseControllerPod(p, env));
  const chosen = diagnoses.reduce((best, d) =>
    CAUSE_PRECEDENCE.indexOf(d.cause) < CAUSE_PRECEDENCE.indexOf(best.cause) ? d : best,
  );
  const total = info.deployment?.spec?.replicas ?? info.pods.length;
  const noneReady = info.readyPods === 0;
  const clusterName = ctx.snapshot.cluster?.name ?? ctx.snapshot.clusterName;
  return newFinding({
    code: 'KARPENTER_CONTROLLER_PENDING',
    severity: noneReady ? 'critical' : 'warning',
    title: `Karpenter controller ${info.namespace}/${deploymentName}: ${pending.length} pod(s) Pending over ${formatDuration(ctx.settings.controllerPendingMs)}, ${info.readyPods} of ${total} ready`,
    resource: { kind: 'Deployment', namespace: info.namespace, name: deploymentName },
    since: earliestSince(pending),
    cause: { code: chosen.cause, detail: chosen.detail },
    evidence: [
      `Pending: ${listCapped(pending.map(podRef))}`,
      `${info.readyPods} of ${total} replica(s) Ready`,
      ...chosen.evidence,
    ],
    remediation: controllerRemediation(chosen, env, clusterName),
  });
}

/**
 * Free capacity can only be judged when every pod on a node was captured. A capture holding pods
 * of other namespaces than the controller's is taken as `kubectl get pods -A`.
 */
function captureIsClusterWide(ctx: DetectContext, controllerPods: Pod[]): boolean {
  const controllerNamespaces = new Set(controllerPods.map((p) => p.metadata?.namespace));
  return ctx.snapshot.pods.some((p) => !controllerNamespaces.has(p.metadata?.namespace));
}
