import type { NodePool } from '../../domain/kube.ts';
import type { ClusterSnapshot } from '../../domain/snapshot.ts';

const CAPACITY_TYPE = 'karpenter.sh/capacity-type';
/** The tags Karpenter puts on what it launches (v1 and v0.32+; before: the Provisioner's); a node group's Spot carries neither. */
const KARPENTER_OWNER_TAGS = ['karpenter.sh/nodepool', 'karpenter.sh/provisioner-name'];

/**
 * Whether the cluster runs or may launch Spot capacity, the case where an unset interruption queue
 * matters (docs/findings.md#interruption_handling_off): Nodes or NodeClaims labelled
 * `karpenter.sh/capacity-type: spot`, Karpenter's EC2 instances (tagged `karpenter.sh/nodepool` or
 * `karpenter.sh/provisioner-name`) with `InstanceLifecycle: spot` — interruption handling acts only on
 * instances Karpenter owns, so a managed node group's Spot does not count — or NodePools
 * whose requirements allow `spot` (`In` listing it, or `Exists`). A NodePool that does not name the
 * capacity type is not counted: Karpenter launches on-demand then.
 */
export interface SpotUse {
  /** Spot Nodes and NodeClaims (one per machine: a NodeClaim and its Node count once). */
  machines: number;
  /** NodePools whose requirements allow spot. */
  pools: string[];
  /** What says so, one line each. */
  evidence: string[];
}

export function spotUse(snapshot: ClusterSnapshot): SpotUse {
  const spot = (labels: Readonly<Record<string, string>> | undefined) => labels?.[CAPACITY_TYPE] === 'spot';
  const claims = snapshot.nodeClaims.filter((c) => spot(c.metadata?.labels));
  const claimedNodes = new Set(claims.map((c) => c.status?.nodeName).filter((n) => n !== undefined));
  const nodes = snapshot.nodes.filter((n) => spot(n.metadata?.labels) && !claimedNodes.has(n.metadata?.name ?? ''));
  const instances = snapshot.instances.filter(
    (i) => i.lifecycle === 'spot' && i.state === 'running' && KARPENTER_OWNER_TAGS.some((t) => i.tags[t] !== undefined),
  );
  const machines = claims.length + nodes.length;
  const pools = snapshot.nodePools
    .filter(allowsSpot)
    .map((p) => p.metadata?.name ?? '?')
    .sort();
  const evidence = [
    ...(machines > 0 ? [`${machines} Spot node(s) or NodeClaim(s) (${CAPACITY_TYPE}: spot)`] : []),
    ...(machines === 0 && instances.length > 0
      ? [`${instances.length} running Spot instance(s) Karpenter launched (InstanceLifecycle spot)`]
      : []),
    ...(pools.length > 0 ? [`NodePool(s) allowing Spot: ${pools.join(', ')}`] : []),
  ];
  return { machines: machines > 0 ? machines : instances.length, pools, evidence };
}

export function spotInUse(use: SpotUse): boolean {
  return use.machines > 0 || use.pools.length > 0;
}

function allowsSpot(pool: NodePool): boolean {
  return (pool.spec?.template?.spec?.requirements ?? []).some(
    (r) => r.key === CAPACITY_TYPE && ((r.operator === 'In' && (r.values ?? []).includes('spot')) || r.operator === 'Exists'),
  );
}
