/**
 * Provenance: is this instance really one Karpenter launched for the cluster? Tags like
 * `eks:eks-cluster-name` and `karpenter.sh/nodepool` prove nothing: anyone with `ec2:CreateTags`
 * can put them on any instance (say, a production database). Only evidence a tag-writer cannot
 * forge on an existing instance counts: the `aws:`-prefixed system tags EC2 sets at launch (no
 * caller may write `aws:` tags) pointing at a launch template that is Karpenter's for the cluster,
 * or a NodeClaim of the cluster naming the instance. Detection, the TERMINATE_INSTANCE planner and
 * executor, and the destroy-time cleanup all decide with this one function.
 */
import type { Instance, LaunchTemplate } from './aws.ts';
import type { CauseCodeOf } from './codes.ts';
import type { NodeClaim } from './kube.ts';
import { CLUSTER_TAG, LAUNCH_TEMPLATE_CLUSTER_TAGS, NODECLAIM_TAG, NODECLASS_TAG } from './tags.ts';

/** Set by EC2 on every instance launched from a launch template. */
export const LAUNCH_TEMPLATE_ID_TAG = 'aws:ec2launchtemplate:id';
/** Set by EC2 on every instance an EC2 Fleet launched; Karpenter launches only through CreateFleet. */
export const FLEET_ID_TAG = 'aws:ec2:fleet-id';
/** Karpenter names every launch template it creates `karpenter.k8s.aws/<hash>`. */
export const KARPENTER_LAUNCH_TEMPLATE_PREFIX = 'karpenter.k8s.aws/';
/** The launch-template tag Karpenter used before v1.1 (eks:eks-cluster-name since). */
const LEGACY_LAUNCH_TEMPLATE_CLUSTER_TAG = LAUNCH_TEMPLATE_CLUSTER_TAGS[1];

/** Why provenance is not proven, as the INSTANCE_PROVENANCE_UNPROVEN cause code. */
export type ProvenanceGap = CauseCodeOf<'INSTANCE_PROVENANCE_UNPROVEN'>;

export type Provenance =
  { proven: true; by: 'nodeclaim' | 'launch-template'; evidence: string } | { proven: false; gap: ProvenanceGap; reason: string };

export interface ProvenanceEvidence {
  cluster: string;
  /** The cluster's launch templates as listed; undefined when they could not be (or were not) listed. */
  launchTemplates: readonly LaunchTemplate[] | undefined;
  /** The cluster's NodeClaims, when known. */
  nodeClaims?: readonly NodeClaim[];
}

/** Named like Karpenter's and tagged for the cluster, by the v1.1+ tag or, on templates without it, the older one. */
export function isKarpenterLaunchTemplate(template: LaunchTemplate, cluster: string): boolean {
  if (!template.name.startsWith(KARPENTER_LAUNCH_TEMPLATE_PREFIX)) return false;
  return launchTemplateCluster(template) === cluster;
}

function launchTemplateCluster(template: LaunchTemplate): string | undefined {
  return template.tags[CLUSTER_TAG] ?? template.tags[LEGACY_LAUNCH_TEMPLATE_CLUSTER_TAG];
}

/** The NodeClaim whose providerID (`aws:///<zone>/<id>`) names the instance. */
export function nodeClaimOfInstance(id: string, claims: readonly NodeClaim[]): NodeClaim | undefined {
  return claims.find((c) => c.status?.providerID?.endsWith(`/${id}`));
}

/**
 * Proven with the evidence that proves it, or not proven with a reason a human can check. Tags
 * only say who the instance is for; this says whether Karpenter launched it. Callers still apply
 * the tag rules (cluster, NodePool, no foreign owner) as well.
 */
export function instanceProvenance(instance: Instance, evidence: ProvenanceEvidence): Provenance {
  const claim = nodeClaimOfInstance(instance.id, evidence.nodeClaims ?? []);
  if (claim) {
    return {
      proven: true,
      by: 'nodeclaim',
      evidence: `NodeClaim ${claim.metadata?.name} has providerID ${claim.status?.providerID}`,
    };
  }
  const t = instance.tags;
  const templateId = t[LAUNCH_TEMPLATE_ID_TAG];
  if (templateId === undefined) {
    return unproven('NOT_LAUNCHED_FROM_TEMPLATE', `no ${LAUNCH_TEMPLATE_ID_TAG} tag: not launched from a launch template`);
  }
  if (t[FLEET_ID_TAG] === undefined) {
    return unproven(
      'NOT_LAUNCHED_BY_FLEET',
      `no ${FLEET_ID_TAG} tag: not launched by an EC2 Fleet (Karpenter launches through CreateFleet)`,
    );
  }
  const missing = [NODECLAIM_TAG, NODECLASS_TAG].find((k) => t[k] === undefined);
  if (missing !== undefined)
    return unproven('KARPENTER_TAGS_MISSING', `no ${missing} tag (Karpenter tags every instance it launches with it)`);
  const templates = evidence.launchTemplates;
  if (templates === undefined) {
    return unproven('LAUNCH_TEMPLATE_UNKNOWN', `launch templates not captured: ${templateId} cannot be checked`);
  }
  const template = templates.find((lt) => lt.id === templateId);
  if (!template) {
    return unproven(
      'LAUNCH_TEMPLATE_UNKNOWN',
      `launch template ${templateId} not found among the ${templates.length} captured (deleted since, or not tagged for cluster ${evidence.cluster})`,
    );
  }
  if (!template.name.startsWith(KARPENTER_LAUNCH_TEMPLATE_PREFIX)) {
    return unproven('LAUNCH_TEMPLATE_NOT_KARPENTERS', `launch template ${templateId} is not Karpenter's (name ${template.name})`);
  }
  if (!isKarpenterLaunchTemplate(template, evidence.cluster)) {
    const owner = launchTemplateCluster(template);
    return unproven(
      'LAUNCH_TEMPLATE_NOT_KARPENTERS',
      `launch template ${templateId} (${template.name}) is ${owner === undefined ? 'tagged for no cluster' : `tagged for cluster ${owner}`}, not ${evidence.cluster}`,
    );
  }
  return {
    proven: true,
    by: 'launch-template',
    evidence: `launched by ${t[FLEET_ID_TAG]} from Karpenter's launch template ${templateId} (${template.name}) of cluster ${evidence.cluster}`,
  };
}

function unproven(gap: ProvenanceGap, reason: string): Provenance {
  return { proven: false, gap, reason };
}
