/**
 * What the destroy-time cleanup may touch, as pure predicates. Each errs on the side of leaving a
 * resource alone: a wrong "yes" deletes someone else's instance, profile or template.
 */
import { isAutoModeRef } from '../domain/auto-mode.ts';
import type { Instance } from '../domain/aws.ts';
import type { NodeClaim, NodePool } from '../domain/kube.ts';
import { instanceProvenance, type LaunchEvidence } from '../domain/provenance.ts';
import { foreignOwnerTag, isTaggedForCluster, NODEPOOL_TAG, nodePoolOfClaim } from '../domain/tags.ts';

/** States after TerminateInstances: nothing more to do but wait (shutting-down) or nothing at all. */
const ENDED_STATES: readonly string[] = ['shutting-down', 'terminated'];

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
 * launched by Karpenter by the `launched` evidence (src/domain/provenance.ts: its launch template,
 * or when that is gone, its instance profile):
 * 'terminate'. Tagged so but not proven: the reason, and it is listed, never terminated.
 * Anything else: undefined, not the cleanup's business.
 */
export function cleanupVerdict(
  instance: Instance,
  cluster: string,
  launched: LaunchEvidence,
  nodePools?: readonly string[],
): { terminate: true } | { terminate: false; notProven: string } | undefined {
  if (!isClusterKarpenterInstance(instance, cluster, nodePools) || hasEnded(instance)) return undefined;
  const provenance = instanceProvenance(instance, { cluster, ...launched });
  return provenance.proven ? { terminate: true } : { terminate: false, notProven: provenance.reason };
}

/** What the cleanup terminates: any age, any state but one already ending, only with proof Karpenter launched it. */
export function isCleanupCandidate(
  instance: Instance,
  cluster: string,
  launched: LaunchEvidence,
  nodePools?: readonly string[],
): boolean {
  return cleanupVerdict(instance, cluster, launched, nodePools)?.terminate === true;
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
