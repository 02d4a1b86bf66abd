import type { Instance } from '../../domain/aws.ts';
import { ageMs } from '../../domain/kube-helpers.ts';
import { instanceProvenance, launchEvidenceOf, type Provenance } from '../../domain/provenance.ts';
import { foreignOwnerTag, isTaggedForCluster, NODECLAIM_TAG, NODEPOOL_TAG, nodePoolOfClaim } from '../../domain/tags.ts';
import type { DetectContext } from '../detector.ts';
import { isAutoModeRef } from '../../domain/auto-mode.ts';

/**
 * States that are on their way (pending) or gone (shutting-down, terminated): not orphans.
 * `stopping` and `stopped` count: Karpenter never stops its instances, and its own garbage
 * collection would terminate them too.
 */
const IGNORED_STATES = new Set(['pending', 'shutting-down', 'terminated']);

export interface OrphanCandidate {
  instance: Instance;
  /** Since launch, past the grace period. */
  ageMs: number;
  /** Whether Karpenter launched it: only proven candidates are orphans (and may be terminated). */
  provenance: Provenance;
}

/**
 * Instances tagged as Karpenter's for this cluster (cluster tag and `karpenter.sh/nodepool`, never
 * another owner's) that no NodeClaim points to, past the grace period; each with its provenance.
 * Tags anyone can write, so ORPHANED_INSTANCE takes the proven ones and
 * INSTANCE_PROVENANCE_UNPROVEN reports the rest. An instance whose own NodeClaim exists but has
 * no providerID yet is still being bound, not orphaned.
 */
export function orphanCandidates(ctx: DetectContext): OrphanCandidate[] {
  const cluster = ctx.snapshot.clusterName;
  const unbound = ctx.snapshot.nodeClaims.filter((c) => !c.status?.providerID);
  const claimNames = new Set(unbound.map((c) => c.metadata?.name));
  const poolsWithUnbound = new Set(unbound.map(nodePoolOfClaim));
  const launched = launchEvidenceOf(ctx.snapshot);
  const candidates: OrphanCandidate[] = [];
  for (const instance of ctx.snapshot.instances) {
    // First the test that settles nearly every instance of a healthy cluster: its NodeClaim exists.
    if (ctx.index.nodeClaimsByInstanceId.has(instance.id)) continue;
    const t = instance.tags;
    if (!isTaggedForCluster(t, cluster) || t[NODEPOOL_TAG] === undefined) continue;
    if (foreignOwnerTag(t) !== undefined) continue;
    // A NodePool of EKS Auto Mode: AWS launched it and garbage-collects it, and may not let anyone else terminate it.
    if (isAutoModeRef(ctx.index.nodePoolsByName.get(t[NODEPOOL_TAG])?.spec?.template?.spec?.nodeClassRef)) continue;
    if (IGNORED_STATES.has(instance.state)) continue;
    const age = ageMs(instance.launchTime, ctx.now);
    if (age === undefined || age < ctx.settings.orphanGraceMs) continue;
    if (t[NODECLAIM_TAG] !== undefined && claimNames.has(t[NODECLAIM_TAG])) continue;
    // Without a karpenter.sh/nodeclaim tag to tell, a NodeClaim of its NodePool still being bound may be its own.
    if (t[NODECLAIM_TAG] === undefined && poolsWithUnbound.has(t[NODEPOOL_TAG])) continue;
    candidates.push({ instance, ageMs: age, provenance: instanceProvenance(instance, { cluster, ...launched }) });
  }
  return candidates;
}
