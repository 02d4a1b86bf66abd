/**
 * Why a NodePool's drifted or expired NodeClaims are not replaced, the first cause that applies: a
 * disruption budget (budget-cause.ts), a pod on their nodes (pod-cause.ts), the Node or NodeClaim
 * annotated do-not-disrupt, else UNKNOWN with what was ruled out. A NodePool-wide block comes
 * before a per-node one because it holds every drifted NodeClaim at once, whatever runs on them.
 */
import type { NodePool } from '../../domain/kube.ts';
import type { DetectContext } from '../detector.ts';
import { nodeDoNotDisrupt, type BlockedClaim } from './blocked-claims.ts';
import type { BlockedMessage } from './blocked-events.ts';
import { budgetCause } from './budget-cause.ts';
import { expiryNote, type Explained } from './explanation.ts';
import { nodeAnnotationSteps, uninitializedSteps, unknownSteps } from './fixes.ts';
import { conditionOf } from '../../domain/kube-helpers.ts';
import { describeCondition } from '../karpenter/readiness.ts';
import { podCause } from './pod-cause.ts';

export function explain(
  ctx: DetectContext,
  pool: string,
  np: NodePool | undefined,
  claims: BlockedClaim[],
  poolEvents: BlockedMessage[],
  claimEvents: BlockedMessage[],
  evidence: string[],
): Explained {
  const budget = budgetCause(ctx, pool, np, claims, poolEvents, evidence);
  if (budget) return budget;
  const expiredNote = expiryNote(claims);
  const uninitialized = uninitializedCause(claims, claimEvents, expiredNote);
  if (uninitialized) return uninitialized;
  const pods = podCause(ctx, claims, claimEvents, evidence, expiredNote);
  if (pods) return pods;
  const annotated = claims.flatMap(nodeDoNotDisrupt);
  // The Node's own annotation, when Nodes were captured, is the truth; an event only stands in for it.
  const nodeEvent = ctx.snapshot.captured.has('nodes') ? undefined : claimEvents.find((m) => m.cause === 'DO_NOT_DISRUPT_NODE');
  if (annotated.length > 0 || nodeEvent) {
    const named = annotated.map((o) => `${o.kind} ${o.name}`);
    return {
      cause: 'DO_NOT_DISRUPT_NODE',
      detail:
        (annotated.length > 0
          ? `${named.slice(0, 5).join(', ')}${named.length > 5 ? ` and ${named.length - 5} more` : ''} ${named.length === 1 ? 'is' : 'are'} annotated karpenter.sh/do-not-disrupt: "true"`
          : `Karpenter reports "${nodeEvent?.message}" on ${nodeEvent?.objects.join(', ')}`) +
        `: Karpenter does not disrupt such a node for drift (nor consolidation), however long it waits. Remove the annotation when the node may go.${expiredNote}`,
      steps: nodeAnnotationSteps(
        annotated.length > 0
          ? annotated
          : claims.filter((c) => c.nodeName).map((c) => ({ kind: 'Node' as const, name: c.nodeName ?? '' })),
      ),
    };
  }
  const other = claimEvents.find((m) => m.cause === undefined);
  const checked = [
    np && claims.some((c) => c.drifted) ? 'the budgets allow Drifted now' : '',
    ctx.snapshot.captured.has('pods')
      ? ctx.snapshot.captured.has('pdbs')
        ? 'no pod on these nodes is held by a PDB or annotated do-not-disrupt'
        : 'no pod on these nodes is annotated do-not-disrupt'
      : '',
    'no Node or NodeClaim is annotated do-not-disrupt',
  ].filter(Boolean);
  return {
    cause: 'UNKNOWN',
    detail:
      `Nothing captured explains why Karpenter has not replaced them (${checked.join('; ')}).` +
      (other ? ` Karpenter says "${other.message}" (×${other.count}).` : '') +
      ` Karpenter replaces drifted ` +
      `nodes only when their pods can schedule elsewhere (DisruptionBlocked "Not all pods would schedule"), and not ` +
      `while a node is uninitialized, nominated for a pending pod, or the controller is down.${expiredNote}`,
    steps: unknownSteps(
      claims.map((c) => c.name),
      ctx.index.controllers[0]?.namespace,
    ),
  };
}

/**
 * Karpenter disrupts no node that has not initialised (`Node isn't initialized`), whatever its drift
 * or expiry: the NodeClaims' own Initialized condition (when registered) or that event says so.
 */
function uninitializedCause(claims: BlockedClaim[], claimEvents: BlockedMessage[], expiredNote: string): Explained | undefined {
  const stuck = claims.filter((c) => {
    const registered = conditionOf(c.claim, 'Registered');
    const initialized = conditionOf(c.claim, 'Initialized');
    return registered?.status === 'True' && initialized !== undefined && initialized.status !== 'True';
  });
  const event = claimEvents.find((m) => m.cause === 'NODE_NOT_INITIALIZED');
  if (stuck.length === 0 && !event) return undefined;
  const named = stuck.map((c) => {
    const initialized = conditionOf(c.claim, 'Initialized');
    return `NodeClaim ${c.name} (${initialized ? describeCondition(initialized) : 'not initialized'})`;
  });
  return {
    cause: 'NODE_NOT_INITIALIZED',
    detail:
      (named.length
        ? `${named.slice(0, 3).join(', ')}${named.length > 3 ? ` and ${named.length - 3} more` : ''} never initialised`
        : `Karpenter reports "${event?.message}" (×${event?.count}) on ${event?.objects.slice(0, 3).join(', ')}`) +
      `: Karpenter does not disrupt a node before it initialises, for drift, expiry or consolidation alike. Fix what keeps it uninitialised (a startup taint, an unregistered resource: see NODE_NOT_INITIALIZED), then replace the stuck nodes.${expiredNote}`,
    steps: uninitializedSteps((stuck.length ? stuck : claims).map((c) => ({ name: c.name, nodeName: c.nodeName }))),
  };
}
