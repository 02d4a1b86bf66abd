/**
 * What the destroy-time cleanup may touch, as pure predicates. Each errs on the side of leaving a
 * resource alone: a wrong "yes" deletes someone else's instance, profile or template.
 */
import { isAutoModeRef } from '../detectors/support/auto-mode.ts';
import type { Instance, InstanceProfile, LaunchTemplate } from '../domain/aws.ts';
import type { NodeClaim, NodePool } from '../domain/kube.ts';
import { instanceProvenance } from '../domain/provenance.ts';
import { foreignOwnerTag, isTaggedForCluster, NODECLASS_TAG, NODEPOOL_TAG, nodePoolOfClaim } from '../domain/tags.ts';

/** The one launch-template rule lives with the provenance rule that depends on it. */
export { isKarpenterLaunchTemplate } from '../domain/provenance.ts';

/** States after TerminateInstances: nothing more to do but wait (shutting-down) or nothing at all. */
const ENDED_STATES: readonly string[] = ['shutting-down', 'terminated'];
/** Karpenter tags its instance profiles with the region they serve (IAM itself is global). */
const REGION_TAG = 'topology.kubernetes.io/region';

export function hasEnded(instance: Pick<Instance, 'state'>): boolean {
  return ENDED_STATES.includes(instance.state);
}

/**
 * Karpenter launched it for this cluster (and one of `nodePools`, when given), and no other owner
 * manages it: the strict cluster tag rule, so a legacy `owned` tag cannot outvote an
 * `eks:eks-cluster-name` naming another cluster. Any state.
 */
export function isClusterKarpenterInstance(instance: Instance, cluster: string, nodePools?: readonly string[]): boolean {
  const pool = instance.tags[NODEPOOL_TAG];
  if (pool === undefined || !isTaggedForCluster(instance.tags, cluster) || foreignOwnerTag(instance.tags)) return false;
  return nodePools === undefined || nodePools.includes(pool);
}

/**
 * Tagged as Karpenter's for the cluster (and one of `nodePools`), not already ending, and proven
 * launched by Karpenter from one of the cluster's `launchTemplates` (src/domain/provenance.ts):
 * 'terminate'. Tagged so but not proven: the reason, and it is listed, never terminated.
 * Anything else: undefined, not the cleanup's business.
 */
export function cleanupVerdict(
  instance: Instance,
  cluster: string,
  launchTemplates: readonly LaunchTemplate[] | undefined,
  nodePools?: readonly string[],
): { terminate: true } | { terminate: false; notProven: string } | undefined {
  if (!isClusterKarpenterInstance(instance, cluster, nodePools) || hasEnded(instance)) return undefined;
  const provenance = instanceProvenance(instance, { cluster, launchTemplates });
  return provenance.proven ? { terminate: true } : { terminate: false, notProven: provenance.reason };
}

/** What the cleanup terminates: any age, any state but one already ending, only with proof Karpenter launched it. */
export function isCleanupCandidate(
  instance: Instance,
  cluster: string,
  launchTemplates: readonly LaunchTemplate[] | undefined,
  nodePools?: readonly string[],
): boolean {
  return cleanupVerdict(instance, cluster, launchTemplates, nodePools)?.terminate === true;
}

/**
 * Since v1.3 Karpenter keeps its profiles under `/karpenter/<region>/<cluster>/`; before, at `/`
 * named `<cluster>_<number>` and known only by their tags. A name alone proves nothing (anyone may
 * call a profile `demo_1`), and a profile under another region's or cluster's path is never ours.
 */
export function isKarpenterInstanceProfile(profile: InstanceProfile, cluster: string, region: string): boolean {
  const path = profile.path ?? '/';
  if (path.startsWith('/karpenter/')) return path.startsWith(`/karpenter/${region}/${cluster}/`);
  const profileRegion = profile.tags[REGION_TAG];
  return (
    profile.tags[NODECLASS_TAG] !== undefined &&
    isTaggedForCluster(profile.tags, cluster) &&
    (profileRegion === undefined || profileRegion === region)
  );
}

export interface NodePoolSelection {
  /** Selected and not yet being deleted. */
  toDelete: string[];
  /** Selected and already being deleted (an earlier run): waited for, never deleted twice. */
  deleting: string[];
  /** EKS Auto Mode NodePools left alone because none was named. */
  autoMode: string[];
  /** Every NodePool that stays (not named, or Auto Mode's): their NodeClaims are not waited for. */
  kept: string[];
}

/** All NodePools, or the named ones; Auto Mode's only when named (AWS owns and recreates them). */
export function selectNodePools(pools: readonly NodePool[], named?: readonly string[]): NodePoolSelection {
  const selection: NodePoolSelection = { toDelete: [], deleting: [], autoMode: [], kept: [] };
  for (const pool of pools) {
    const name = pool.metadata?.name;
    if (!name) continue;
    if (named !== undefined && !named.includes(name)) selection.kept.push(name);
    else if (named === undefined && isAutoModeRef(pool.spec?.template?.spec?.nodeClassRef)) {
      selection.autoMode.push(name);
      selection.kept.push(name);
    } else if (pool.metadata?.deletionTimestamp) selection.deleting.push(name);
    else selection.toDelete.push(name);
  }
  for (const list of Object.values(selection)) list.sort();
  return selection;
}

/**
 * A NodeClaim whose NodePool is going: a named one (present or not), or with every NodePool
 * selected, any but a kept one's, including those of NodePools an earlier run already deleted.
 */
export function isNodeClaimOfGoingPool(claim: NodeClaim, selection: NodePoolSelection, named?: readonly string[]): boolean {
  const pool = nodePoolOfClaim(claim);
  if (pool === undefined) return false;
  if (named !== undefined) return named.includes(pool);
  return !selection.kept.includes(pool) && !isAutoModeRef(claim.spec?.nodeClassRef);
}
