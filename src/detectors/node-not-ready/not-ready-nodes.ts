/**
 * Which Karpenter nodes went NotReady after they were working (docs/findings.md#node_not_ready):
 * a Node whose NodeClaim is `Initialized=True` (or that carries Karpenter's
 * `karpenter.sh/initialized=true` label, set when it initialised it), whose `Ready` is False or
 * Unknown since at least `settings.notReadyMs` (Ready's lastTransitionTime). The boundaries:
 * - never initialised: NODE_NOT_INITIALIZED's;
 * - being deleted (a deletion timestamp on the Node or its NodeClaim) or tainted
 *   `karpenter.sh/disrupted`: Karpenter is terminating it, NODE_TERMINATION_STUCK's.
 */
import type { Condition, Node, NodeClaim } from '../../domain/kube.ts';
import { ageMs, conditionOf, instanceIdFromProviderID } from '../../domain/kube-helpers.ts';
import { nodePoolOfClaim, NODEPOOL_LABEL } from '../../domain/tags.ts';
import type { DetectContext } from '../detector.ts';
import { isDisruptedTaint } from '../karpenter/eviction-blockers.ts';

const INITIALIZED_LABEL = 'karpenter.sh/initialized';

export interface NotReadyNode {
  node: Node;
  name: string;
  claim: NodeClaim | undefined;
  /** The NodePool (the NodeClaim's, else the Node's label); undefined for a standalone NodeClaim. */
  pool: string | undefined;
  ready: Condition;
  /** Ready's lastTransitionTime. */
  since: string;
  ageMs: number;
  instanceId: string | undefined;
}

export function notReadyNodes(ctx: DetectContext): NotReadyNode[] {
  const found: NotReadyNode[] = [];
  for (const node of ctx.snapshot.nodes) {
    const candidate = notReadyNode(ctx, node);
    if (candidate) found.push(candidate);
  }
  return found;
}

function notReadyNode(ctx: DetectContext, node: Node): NotReadyNode | undefined {
  const name = node.metadata?.name;
  const ready = conditionOf(node, 'Ready');
  if (!name || !ready || ready.status === 'True') return undefined;
  const instanceId = instanceIdFromProviderID(node.spec?.providerID);
  const claim =
    ctx.index.nodeClaimsByNodeName.get(name) ?? (instanceId ? ctx.index.nodeClaimsByInstanceId.get(instanceId) : undefined);
  const labels = node.metadata?.labels ?? {};
  // Karpenter's: a NodeClaim, else its NodePool label (NodeClaims not captured).
  if (!claim && labels[NODEPOOL_LABEL] === undefined) return undefined;
  const initialized = conditionOf(claim, 'Initialized')?.status === 'True' || labels[INITIALIZED_LABEL] === 'true';
  if (!initialized) return undefined;
  if (node.metadata?.deletionTimestamp || claim?.metadata?.deletionTimestamp) return undefined;
  if ((node.spec?.taints ?? []).some(isDisruptedTaint)) return undefined;
  const since = ready.lastTransitionTime;
  const age = ageMs(since, ctx.now);
  if (since === undefined || age === undefined || age < ctx.settings.notReadyMs) return undefined;
  const pool = (claim ? nodePoolOfClaim(claim) : undefined) ?? labels[NODEPOOL_LABEL];
  return { node, name, claim, pool, ready, since, ageMs: age, instanceId };
}
