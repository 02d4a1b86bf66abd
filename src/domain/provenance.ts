/**
 * Provenance: is this instance really one Karpenter launched for the cluster? Tags like
 * `eks:eks-cluster-name` and `karpenter.sh/nodepool` prove nothing: anyone with `ec2:CreateTags`
 * can put them on any instance (say, a production database). Only evidence a tag-writer cannot
 * forge on an existing instance counts: the `aws:`-prefixed system tags EC2 sets at launch (no
 * caller may write `aws:` tags) pointing at a launch template that is Karpenter's for the cluster,
 * or a NodeClaim of the cluster naming the instance. Karpenter deletes its own launch templates
 * (unused ones evicted from its cache, and with their EC2NodeClass), so when the template an
 * instance names is gone, its instance profile can stand in: being Karpenter's profile for the
 * cluster and region, which takes `iam:PassRole` and an instance-profile association to put on an
 * instance, not a tag. Detection, the TERMINATE_INSTANCE planner and executor, and the destroy-time
 * cleanup all decide with this one function.
 */
import { regionOfClusterArn, regionOfZone, type Instance, type InstanceProfile, type LaunchTemplate } from './aws.ts';
import type { CauseCodeOf } from './codes.ts';
import { isKarpenterInstanceProfile, isUnderKarpenterPath, profileOfArn } from './instance-profiles.ts';
import type { NodeClaim } from './kube.ts';
import type { ClusterSnapshot } from './snapshot.ts';
import { CLUSTER_TAG, LAUNCH_TEMPLATE_CLUSTER_TAGS, NODECLAIM_TAG, NODECLASS_TAG } from './tags.ts';

/** Set by EC2 on every instance launched from a launch template. */
export const LAUNCH_TEMPLATE_ID_TAG = 'aws:ec2launchtemplate:id';
/** Set by EC2 on every instance an EC2 Fleet launched; Karpenter launches only through CreateFleet. */
export const FLEET_ID_TAG = 'aws:ec2:fleet-id';
/** Karpenter names every launch template it creates `karpenter.k8s.aws/<hash>`. */
const KARPENTER_LAUNCH_TEMPLATE_PREFIX = 'karpenter.k8s.aws/';
/** The launch-template tag Karpenter used before v1.1 (eks:eks-cluster-name since). */
const LEGACY_LAUNCH_TEMPLATE_CLUSTER_TAG = LAUNCH_TEMPLATE_CLUSTER_TAGS[1];

/** Why provenance is not proven, as the INSTANCE_PROVENANCE_UNPROVEN cause code. */
type ProvenanceGap = CauseCodeOf<'INSTANCE_PROVENANCE_UNPROVEN'>;

/** Which evidence proved it: a NodeClaim, the launch template, or (that template gone) the instance profile. */
type ProvenanceProof = 'nodeclaim' | 'launch-template' | 'instance-profile';

export type Provenance =
  { proven: true; by: ProvenanceProof; evidence: string } | { proven: false; gap: ProvenanceGap; reason: string };

export interface ProvenanceEvidence {
  cluster: string;
  /** The cluster's launch templates as listed; undefined when they could not be (or were not) listed. */
  launchTemplates: readonly LaunchTemplate[] | undefined;
  /** The cluster's NodeClaims, when known. */
  nodeClaims?: readonly NodeClaim[];
  /**
   * Instance profiles as listed (every path); absent or undefined when they could not be (or were
   * not) listed. Only consulted when the launch template an instance names is gone.
   */
  instanceProfiles?: readonly InstanceProfile[] | undefined;
  /**
   * The cluster's region (its ARN, or the region the API calls went to). When unknown, the region of
   * the instance's own availability zone (set by EC2) stands in; neither known: no profile proof.
   */
  region?: string | undefined;
}

/** What shows how an instance was launched, besides NodeClaims: the listed templates and, for when its own is gone, profiles. */
export type LaunchEvidence = Pick<ProvenanceEvidence, 'launchTemplates' | 'instanceProfiles' | 'region'>;

/** A snapshot's launch evidence: what was captured of it, and the region of the cluster's ARN. */
export function launchEvidenceOf(snapshot: ClusterSnapshot): LaunchEvidence {
  return {
    launchTemplates: snapshot.captured.has('launchtemplates') ? snapshot.launchTemplates : undefined,
    instanceProfiles: snapshot.captured.has('instanceprofiles') ? snapshot.instanceProfiles : undefined,
    region: regionOfClusterArn(snapshot.cluster?.arn),
  };
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
function nodeClaimOfInstance(id: string, claims: readonly NodeClaim[]): NodeClaim | undefined {
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
    const gone = `launch template ${templateId} not found among the ${templates.length} captured (deleted since, or not tagged for cluster ${evidence.cluster})`;
    const profile = profileProof(instance, evidence);
    if (profile.proven) {
      return {
        proven: true,
        by: 'instance-profile',
        evidence: `launched by ${t[FLEET_ID_TAG]} from launch template ${templateId}, which is gone (Karpenter deletes its unused templates); its instance profile ${profile.evidence}`,
      };
    }
    return unproven('LAUNCH_TEMPLATE_UNKNOWN', `${gone}, and no proof by its instance profile either: ${profile.reason}`);
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

/**
 * The fallback when the launch template is gone: the instance's profile (from DescribeInstances) is
 * one Karpenter made for this cluster in this region, by its `/karpenter/<region>/<cluster>/` path
 * or, for profiles from before v1.7 at `/`, its name `<cluster>_<digits>` and Karpenter's tags.
 * Strict: profiles not listed, or the region unknown, prove nothing; an instance in another region
 * than the cluster is not the cluster's.
 */
function profileProof(
  instance: Instance,
  evidence: ProvenanceEvidence,
): { proven: true; evidence: string } | { proven: false; reason: string } {
  const arn = instance.iamInstanceProfileArn;
  const { cluster, instanceProfiles } = evidence;
  if (arn === undefined) return { proven: false, reason: 'the instance has no instance profile' };
  if (instanceProfiles === undefined)
    return { proven: false, reason: `instance profiles not captured: ${arn} cannot be checked` };
  const instanceRegion = regionOfZone(instance.availabilityZone);
  if (evidence.region !== undefined && instanceRegion !== undefined && instanceRegion !== evidence.region) {
    return { proven: false, reason: `the instance runs in ${instanceRegion}, the cluster in ${evidence.region}` };
  }
  const region = evidence.region ?? instanceRegion;
  if (region === undefined) return { proven: false, reason: `the cluster's region is unknown: ${arn} cannot be checked` };
  const profile = profileOfArn(arn, instanceProfiles);
  if (!profile)
    return { proven: false, reason: `${arn} not found among the ${instanceProfiles.length} instance profiles captured` };
  const path = profile.path ?? '/';
  if (!isKarpenterInstanceProfile(profile, cluster, region))
    return { proven: false, reason: `${arn} is not Karpenter's instance profile for cluster ${cluster} in ${region}` };
  const why = isUnderKarpenterPath(profile)
    ? `under Karpenter's path ${path}`
    : `named ${profile.name} at ${path} with Karpenter's tags for the cluster`;
  return { proven: true, evidence: `${arn} is Karpenter's for cluster ${cluster} in ${region} (${why})` };
}

/** The instance names a launch template that is not among those listed: only its profile can prove it then. */
export function needsInstanceProfileProof(instance: Instance, launchTemplates: readonly LaunchTemplate[] | undefined): boolean {
  const templateId = instance.tags[LAUNCH_TEMPLATE_ID_TAG];
  return templateId !== undefined && launchTemplates !== undefined && !launchTemplates.some((lt) => lt.id === templateId);
}

/**
 * The launch templates these instances were launched from (EC2's own tag), to be looked up by id
 * beside the cluster's tagged ones: absent after that lookup means gone, not merely untagged.
 */
export function launchTemplateIdsOf(instances: readonly Instance[]): string[] {
  const ids = instances.map((i) => i.tags[LAUNCH_TEMPLATE_ID_TAG]).filter((id): id is string => id !== undefined);
  return [...new Set(ids)].sort();
}

function unproven(gap: ProvenanceGap, reason: string): Provenance {
  return { proven: false, gap, reason };
}
