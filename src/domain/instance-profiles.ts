/**
 * Which IAM instance profiles Karpenter made for a cluster in a region. IAM is global, so the
 * region counts as much as the cluster. Cleanup deletes by this rule, and provenance trusts an
 * instance whose launch template is gone by it (src/domain/provenance.ts).
 */
import type { InstanceProfile } from './aws.ts';
import type { EC2NodeClass } from './kube.ts';
import { isTaggedForCluster, NODECLASS_TAG } from './tags.ts';

/** Karpenter tags its instance profiles with the region they serve. */
const PROFILE_REGION_TAG = 'topology.kubernetes.io/region';
/** Since v1.7 Karpenter keeps its profiles under `/karpenter/<region>/<cluster>/`. */
const KARPENTER_PATH_PREFIX = '/karpenter/';
const PROFILE_ARN = /^arn:[a-z-]+:iam::\d{12}:instance-profile(\/(?:[^/\s]+\/)*)([^/\s]+)$/;

/**
 * Karpenter's profile for the cluster in the region, strictly (docs/cleanup.md, step 4): under
 * `/karpenter/<region>/<cluster>/` (v1.7+: only IAM callers can put a profile there), or, before
 * v1.7, at `/`, named `<cluster>_<digits>` and tagged with `karpenter.k8s.aws/ec2nodeclass`, for
 * the cluster and (when it carries the tag) for this region. Tags or a name alone prove nothing:
 * anyone may tag a profile at `/team/payments-api/`, or call one `demo_1`. Cleanup deletes by this
 * rule and provenance trusts an instance's profile by it, so both always agree.
 */
export function isKarpenterInstanceProfile(profile: InstanceProfile, cluster: string, region: string): boolean {
  const path = profile.path ?? '/';
  if (isUnderKarpenterPath(profile)) return path.startsWith(`${KARPENTER_PATH_PREFIX}${region}/${cluster}/`);
  if (path !== '/' || !hasLegacyKarpenterName(profile, cluster)) return false;
  const profileRegion = profile.tags[PROFILE_REGION_TAG];
  return (
    profile.tags[NODECLASS_TAG] !== undefined &&
    isTaggedForCluster(profile.tags, cluster) &&
    (profileRegion === undefined || profileRegion === region)
  );
}

/** Under Karpenter's v1.7+ path: only IAM callers can put a profile there. */
export function isUnderKarpenterPath(profile: InstanceProfile): boolean {
  return (profile.path ?? '/').startsWith(KARPENTER_PATH_PREFIX);
}

/** Named the way Karpenter before v1.7 named its profiles: `<cluster>_<digits>`. */
export function hasLegacyKarpenterName(profile: InstanceProfile, cluster: string): boolean {
  const rest = profile.name.startsWith(`${cluster}_`) ? profile.name.slice(cluster.length + 1) : '';
  return /^\d+$/.test(rest);
}

/** `arn:aws:iam::1:instance-profile/some/path/Name` → `{ path: '/some/path/', name: 'Name' }`. */
function parseInstanceProfileArn(arn: string): { path: string; name: string } | undefined {
  const m = PROFILE_ARN.exec(arn.trim());
  return m ? { path: m[1] as string, name: m[2] as string } : undefined;
}

/** The listed profile an instance's `IamInstanceProfile.Arn` names (same name and path, and ARN when listed with one). */
export function profileOfArn(arn: string, profiles: readonly InstanceProfile[]): InstanceProfile | undefined {
  const parsed = parseInstanceProfileArn(arn);
  if (!parsed) return undefined;
  return profiles.find(
    (p) => p.name === parsed.name && (p.path ?? '/') === parsed.path && (p.arn === undefined || p.arn === arn.trim()),
  );
}

/**
 * Why no EC2NodeClass accounts for this profile, or undefined when one does: its status names the
 * profile, or its `spec.role` (a name, or an ARN) is the profile's role. A profile without a role
 * has none to mismatch. The path and name say a profile could be Karpenter's; this says the
 * cluster's own Karpenter made it for a role it uses (docs/cleanup.md, step 4).
 */
export function whyNoNodeClassNames(profile: InstanceProfile, nodeClasses: readonly EC2NodeClass[]): string | undefined {
  if (nodeClasses.some((nc) => nc.status?.instanceProfile === profile.name)) return undefined;
  const roles = new Set(
    nodeClasses.flatMap((nc) => (nc.spec?.role ? [nc.spec.role.slice(nc.spec.role.lastIndexOf('/') + 1)] : [])),
  );
  const foreign = profile.roles.map((r) => r.name).filter((name) => !roles.has(name));
  if (foreign.length === 0) return undefined;
  const named = roles.size > 0 ? `they name ${[...roles].sort().join(', ')}` : 'none names a role';
  const of = nodeClasses.length === 1 ? 'the 1 EC2NodeClass' : `the ${nodeClasses.length} EC2NodeClasses`;
  return `its role ${foreign.join(', ')} is not the role of any EC2NodeClass, and no EC2NodeClass status names it (${of}: ${named})`;
}
