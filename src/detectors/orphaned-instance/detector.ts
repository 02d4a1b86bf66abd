import type { Instance } from '../../domain/aws.ts';
import type { CauseCodeOf } from '../../domain/codes.ts';
import type { Finding } from '../../domain/finding.ts';
import { newFinding, proposedAction } from '../../domain/finding.ts';
import { isoSeconds } from '../../domain/kube-helpers.ts';
import { formatDuration } from '../../domain/settings.ts';
import { CLUSTER_TAG, legacyClusterTag, NODECLAIM_TAG, NODECLASS_TAG, NODEPOOL_TAG } from '../../domain/tags.ts';
import type { DetectContext, Detector } from '../detector.ts';
import { awsRunsKarpenter } from '../../domain/auto-mode.ts';
import { controllerReadiness } from '../karpenter/controller-presence.ts';
import { regionFlag, regionOf } from '../aws-iam/iam-arn.ts';
import { orphanCandidates } from '../karpenter/orphan-candidates.ts';
import { shellQuote } from '../../domain/shell.ts';
import { costOf } from '../../domain/cost.ts';
import { billed, pricedInstance } from '../karpenter/priced-instances.ts';

type Cause = CauseCodeOf<'ORPHANED_INSTANCE'>;

/**
 * ORPHANED_INSTANCE: an EC2 instance Karpenter launched for this cluster that no NodeClaim points
 * to, past the grace period (see orphanCandidates). Stopped instances count: their volumes still
 * cost. Only instances whose provenance is proven (src/domain/provenance.ts) are orphans: the
 * rest are INSTANCE_PROVENANCE_UNPROVEN and never terminated. The engine runs this only when
 * NodeClaims were captured (no NodeClaims, no orphans: see Detector); without launch templates
 * nothing is proven, so every candidate is reported as unproven instead. The terminate planner
 * re-checks the tag guardrail and the provenance before anything is proposed.
 */
export const orphanedInstance: Detector<'ORPHANED_INSTANCE'> = {
  code: 'ORPHANED_INSTANCE',
  requires: ['instances', 'nodeclaims'],
  refinedBy: ['pods', 'deployments', 'nodepools', 'cluster', 'launchtemplates', 'instanceprofiles'],
  detect(ctx) {
    const cluster = ctx.snapshot.clusterName;
    const grace = ctx.settings.orphanGraceMs;
    let cause: { code: Cause; detail: string; evidence: string } | undefined;
    const findings: Finding<'ORPHANED_INSTANCE'>[] = [];
    for (const { instance, ageMs: age, provenance } of orphanCandidates(ctx)) {
      if (!provenance.proven) continue;
      const t = instance.tags;
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
            `provenance (${provenance.by}): ${provenance.evidence}`,
            `no NodeClaim has providerID ending in ${instance.id} (${ctx.snapshot.nodeClaims.length} NodeClaims captured)`,
            cause.evidence,
          ],
          remediation: proposedAction('TERMINATE_INSTANCE', [terminateCommand(instance, ctx)]),
          counts: { objects: 1, ...(t[NODEPOOL_TAG] ? { nodePool: t[NODEPOOL_TAG] } : {}) },
          // The instance itself, while it runs (docs/cost.md): a stopped one bills only its volumes.
          cost: costOf(ctx.prices, billed([pricedInstance(instance)])),
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
  const r = controllerReadiness(ctx.snapshot, ctx.index);
  if (!r) return undefined;
  if (r.source === 'pods') {
    const scaledDown = r.scaledToZero.map((c) => `${c.namespace}/${c.deploymentName}`);
    if (r.pods.length === 0 && scaledDown.length > 0)
      return { ready: false, what: `Deployment ${scaledDown.join(', ')} is scaled to 0 replicas` };
    if (r.pods.length === 0) return { ready: false, what: 'no pod labelled app.kubernetes.io/name=karpenter exists' };
    const namespaces = [...new Set(ctx.index.controllers.map((c) => c.namespace))].join(', ');
    return { ready: r.ready, what: `${r.readyPods}/${r.pods.length} pods Ready in ${namespaces}` };
  }
  if (r.deployments.length === 0) return { ready: false, what: 'no Deployment labelled app.kubernetes.io/name=karpenter exists' };
  return {
    ready: r.ready,
    what: `Deployment ${r.deployments.map((c) => `${c.namespace}/${c.deploymentName}`).join(', ')} has ${r.readyReplicas} ready replicas`,
  };
}

/** Region from the cluster ARN so the command runs as printed. */
function terminateCommand(instance: Instance, ctx: DetectContext): string {
  return `aws ec2 terminate-instances --instance-ids ${shellQuote(instance.id)}${regionFlag(regionOf({ clusterArn: ctx.snapshot.cluster?.arn }))}`;
}
