import { ageMs } from '../domain/kube-helpers.ts';
import type { Instance } from '../domain/aws.ts';
import { instanceProvenance, launchEvidenceOf, type LaunchEvidence } from '../domain/provenance.ts';
import {
  ASG_TAG,
  AUTO_MODE_NODEPOOL_TAG,
  CLUSTER_TAG,
  foreignOwnerTag,
  isTaggedForCluster,
  legacyClusterTag,
  NODEGROUP_TAG,
  NODEPOOL_TAG,
} from '../domain/tags.ts';
import type { ActionPlanner } from './plan-context.ts';
import { skipped } from './plan-context.ts';

const OWNER_NAMES: Record<string, string> = {
  [NODEGROUP_TAG]: 'a managed node group',
  [ASG_TAG]: 'an Auto Scaling group',
  [AUTO_MODE_NODEPOOL_TAG]: 'EKS Auto Mode',
};

/**
 * The termination guardrail on one instance: undefined when it may go, else why not.
 * `launched`: the cluster's launch templates (undefined when not captured: then nothing is
 * proven), and the instance profiles and region that stand in for a template Karpenter deleted.
 */
export function terminationBlocker(
  instance: Instance | undefined,
  clusterName: string,
  launched: LaunchEvidence,
): string | undefined {
  if (!instance) return 'instance not found in the captured EC2 data';
  return ownershipBlocker(instance, clusterName) ?? provenanceBlocker(instance, clusterName, launched) ?? stateBlocker(instance);
}

/** The evidence half: tags anyone can write prove nothing, so Karpenter must be shown to have launched it. */
export function provenanceBlocker(instance: Instance, cluster: string, launched: LaunchEvidence): string | undefined {
  const provenance = instanceProvenance(instance, { cluster, ...launched });
  return provenance.proven ? undefined : `not proven to be launched by Karpenter: ${provenance.reason}`;
}

/** The tag half of the guardrail: is this Karpenter's instance of this cluster, and nobody else's? */
export function ownershipBlocker(instance: Instance, clusterName: string): string | undefined {
  const t = instance.tags;
  const foreign = foreignOwnerTag(t);
  if (foreign !== undefined) return `carries ${foreign}=${t[foreign]} (managed by ${OWNER_NAMES[foreign]}, not Karpenter)`;
  if (!isTaggedForCluster(t, clusterName)) {
    return `not tagged for cluster ${clusterName} (${CLUSTER_TAG} or ${legacyClusterTag(clusterName)}=owned)`;
  }
  if (t[NODEPOOL_TAG] === undefined) return `has no ${NODEPOOL_TAG} tag`;
  return undefined;
}

/** The state half: neither launching nor already going. */
export function stateBlocker(instance: Instance): string | undefined {
  if (instance.state === 'terminated' || instance.state === 'shutting-down') return `already ${instance.state}`;
  if (instance.state === 'pending') return 'still pending (launching)';
  return undefined;
}

/**
 * TERMINATE_INSTANCE of an orphan (`finding.resource.id`): only on a complete snapshot, only
 * within the tag guardrail and with proof that Karpenter launched it (src/domain/provenance.ts), at most `maxTerminationsPerRun` per run.
 */
export const terminateInstancePlanner: ActionPlanner = {
  action: 'TERMINATE_INSTANCE',
  plan(finding, ctx, state) {
    const r = finding.remediation!;
    if (ctx.actions.modes.TERMINATE_INSTANCE === 'off') return skipped(r, 'TERMINATE_INSTANCE is off');
    if (!ctx.complete) return skipped(r, 'snapshot incomplete (see gaps): nothing is terminated on partial data');
    const instance = ctx.index.instancesById.get(finding.resource.id ?? '');
    const blocker = terminationBlocker(instance, ctx.snapshot.clusterName, launchEvidenceOf(ctx.snapshot));
    if (blocker) return skipped(r, blocker);
    const age = ageMs(instance?.launchTime, ctx.now);
    if (age === undefined) return skipped(r, 'launch time unknown');
    const used = state.get('terminations') ?? 0;
    if (used >= ctx.actions.maxTerminationsPerRun) {
      return skipped(r, `per-run cap of ${ctx.actions.maxTerminationsPerRun} terminations reached`);
    }
    state.set('terminations', used + 1);
    return { ...r, status: 'planned', reason: '' };
  },
};
