import type { Instance } from '../domain/aws.ts';
import type { CauseCodeOf } from '../domain/codes.ts';
import type { Finding } from '../domain/finding.ts';
import { newFinding, proposedAction } from '../domain/finding.ts';
import { ageMs, isoSeconds } from '../domain/kube-helpers.ts';
import { formatDuration } from '../domain/settings.ts';
import {
  CLUSTER_TAG,
  isTaggedForCluster,
  legacyClusterTag,
  NODECLAIM_TAG,
  NODECLASS_TAG,
  foreignOwnerTag,
  NODEPOOL_TAG,
  nodePoolOfClaim,
} from '../domain/tags.ts';
import type { DetectContext, Detector } from './detector.ts';
import { awsRunsKarpenter, isAutoModeRef } from './support/auto-mode.ts';
import { controllerAbsenceKnown } from './support/controller-presence.ts';
import { regionFlag, regionOf } from './support/iam-arn.ts';
import { shellQuote } from '../domain/shell.ts';

/**
 * States that are on their way (pending) or gone (shutting-down, terminated): not orphans.
 * `stopping` and `stopped` count: Karpenter never stops its instances, and its own garbage
 * collection would terminate them too.
 */
const IGNORED_STATES = new Set(['pending', 'shutting-down', 'terminated']);

type Cause = CauseCodeOf<'ORPHANED_INSTANCE'>;

/**
 * ORPHANED_INSTANCE: an EC2 instance Karpenter launched for this cluster (cluster tag and
 * `karpenter.sh/nodepool`, never a managed node group's) that no NodeClaim points to, past the
 * grace period. Stopped instances count: their volumes still cost. An instance whose own
 * NodeClaim exists but has no providerID yet is still being bound, not orphaned. The engine
 * runs this only when NodeClaims were captured (no NodeClaims, no orphans: see Detector), and
 * the terminate planner re-checks the tag guardrail before anything is proposed.
 */
export const orphanedInstance: Detector<'ORPHANED_INSTANCE'> = {
  code: 'ORPHANED_INSTANCE',
  requires: ['instances', 'nodeclaims'],
  refinedBy: ['pods', 'deployments', 'nodepools', 'cluster'],
  detect(ctx) {
    const cluster = ctx.snapshot.clusterName;
    const grace = ctx.settings.orphanGraceMs;
    const unbound = ctx.snapshot.nodeClaims.filter((c) => !c.status?.providerID);
    const claimNames = new Set(unbound.map((c) => c.metadata?.name));
    const poolsWithUnbound = new Set(unbound.map(nodePoolOfClaim));
    let cause: { code: Cause; detail: string; evidence: string } | undefined;
    const findings: Finding<'ORPHANED_INSTANCE'>[] = [];
    for (const instance of ctx.snapshot.instances) {
      const t = instance.tags;
      if (!isTaggedForCluster(t, cluster) || t[NODEPOOL_TAG] === undefined) continue;
      if (foreignOwnerTag(t) !== undefined) continue;
      // A NodePool of EKS Auto Mode: AWS launched it and garbage-collects it, and may not let anyone else terminate it.
      if (isAutoModeRef(ctx.index.nodePoolsByName.get(t[NODEPOOL_TAG])?.spec?.template?.spec?.nodeClassRef)) continue;
      if (IGNORED_STATES.has(instance.state)) continue;
      const age = ageMs(instance.launchTime, ctx.now);
      if (age === undefined || age < grace) continue;
      if (ctx.index.nodeClaimsByInstanceId.has(instance.id)) continue;
      if (t[NODECLAIM_TAG] !== undefined && claimNames.has(t[NODECLAIM_TAG])) continue;
      // Without a karpenter.sh/nodeclaim tag to tell, a NodeClaim of its NodePool still being bound may be its own.
      if (t[NODECLAIM_TAG] === undefined && poolsWithUnbound.has(t[NODEPOOL_TAG])) continue;
      cause ??= orphanCause(ctx);
      findings.push(
        newFinding({
          code: 'ORPHANED_INSTANCE',
          severity: 'warning',
          title: `Instance ${instance.id} (NodePool ${t[NODEPOOL_TAG]}) is ${instance.state} with no NodeClaim`,
          resource: { kind: 'Instance', id: instance.id },
          since: isoSeconds(instance.launchTime),
          cause: { code: cause.code, detail: cause.detail },
          evidence: [
            `${[instance.id, instance.instanceType, instance.state].filter(Boolean).join(' ')}, launched ${instance.launchTime} (${formatDuration(age)} ago, grace ${formatDuration(grace)})`,
            `tags: ${tagSummary(instance, cluster)}`,
            `no NodeClaim has providerID ending in ${instance.id} (${ctx.snapshot.nodeClaims.length} NodeClaims captured)`,
            cause.evidence,
          ],
          remediation: proposedAction('TERMINATE_INSTANCE', [terminateCommand(instance, ctx)]),
        }),
      );
    }
    return findings;
  },
};

function tagSummary(instance: Instance, cluster: string): string {
  const keys = [CLUSTER_TAG, legacyClusterTag(cluster), NODEPOOL_TAG, NODECLAIM_TAG, NODECLASS_TAG];
  return keys
    .filter((k) => instance.tags[k] !== undefined)
    .map((k) => `${k}=${instance.tags[k]}`)
    .join(', ');
}

/** Why nobody cleaned up: the same for every orphan of one snapshot. */
function orphanCause(ctx: DetectContext): { code: Cause; detail: string; evidence: string } {
  const s = ctx.snapshot;
  if (s.cluster?.gone || s.cluster?.status === 'DELETING') {
    const state = s.cluster.gone ? 'does not exist any more' : 'is DELETING';
    return {
      code: 'CLUSTER_GONE',
      detail: `EKS cluster ${s.clusterName} ${state}; Karpenter went with it and nothing will terminate the instances it launched.`,
      evidence: `aws eks describe-cluster: cluster ${s.clusterName} ${s.cluster.gone ? 'not found' : 'status DELETING'}`,
    };
  }
  const controller = controllerState(ctx);
  if (controller && !controller.ready && awsRunsKarpenter(s)) {
    return {
      code: 'NO_NODECLAIM',
      detail:
        "EKS Auto Mode runs Karpenter for this cluster outside it, but it manages only the instances it launched itself (tagged eks:kubernetes-node-pool-name). This instance carries karpenter.sh/nodepool, a self-managed Karpenter's tag, and no self-managed controller runs to claim or clean it up: likely left from before the move to Auto Mode.",
      evidence: `Karpenter controller: EKS Auto Mode (AWS-managed); self-managed: ${controller.what}`,
    };
  }
  if (controller && !controller.ready) {
    return {
      code: 'CONTROLLER_UNAVAILABLE',
      detail: `No Karpenter controller is running (${controller.what}), so nothing reconciles or garbage-collects Karpenter's instances; typical after a terraform destroy removed the controller before its nodes.`,
      evidence: `Karpenter controller: ${controller.what}`,
    };
  }
  return {
    code: 'NO_NODECLAIM',
    detail:
      'The instance leaked: no NodeClaim claims it although the Karpenter controller ' +
      (controller ? 'is running' : 'state is unknown (pods not captured)') +
      "; Karpenter's garbage collection normally terminates such instances, so check its settings.clusterName matches the instance's cluster tag.",
    evidence: controller ? `Karpenter controller: ${controller.what}` : 'Karpenter controller: not captured',
  };
}

/** Undefined when neither pods nor deployments were captured, or they cover only other namespaces. */
function controllerState(ctx: DetectContext): { ready: boolean; what: string } | undefined {
  const controllers = ctx.index.controllers;
  if (!controllerAbsenceKnown(ctx.snapshot, ctx.index)) return undefined;
  if (ctx.snapshot.captured.has('pods')) {
    const pods = controllers.flatMap((c) => c.pods);
    const ready = controllers.reduce((n, c) => n + c.readyPods, 0);
    const scaledDown = controllers
      .filter((c) => c.deployment?.spec?.replicas === 0)
      .map((c) => `${c.namespace}/${c.deploymentName}`);
    if (pods.length === 0 && scaledDown.length > 0)
      return { ready: false, what: `Deployment ${scaledDown.join(', ')} is scaled to 0 replicas` };
    if (pods.length === 0) return { ready: false, what: 'no pod labelled app.kubernetes.io/name=karpenter exists' };
    return {
      ready: ready > 0,
      what: `${ready}/${pods.length} pods Ready in ${[...new Set(controllers.map((c) => c.namespace))].join(', ')}`,
    };
  }
  if (ctx.snapshot.captured.has('deployments')) {
    const deployments = controllers.filter((c) => c.deployment);
    const ready = deployments.reduce((n, c) => n + (c.deployment?.status?.readyReplicas ?? 0), 0);
    if (deployments.length === 0) return { ready: false, what: 'no Deployment labelled app.kubernetes.io/name=karpenter exists' };
    return {
      ready: ready > 0,
      what: `Deployment ${deployments.map((c) => `${c.namespace}/${c.deploymentName}`).join(', ')} has ${ready} ready replicas`,
    };
  }
  return undefined;
}

/** Region from the cluster ARN so the command runs as printed. */
function terminateCommand(instance: Instance, ctx: DetectContext): string {
  return `aws ec2 terminate-instances --instance-ids ${shellQuote(instance.id)}${regionFlag(regionOf({ clusterArn: ctx.snapshot.cluster?.arn }))}`;
}
