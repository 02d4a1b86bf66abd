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
import { nodeAnnotationSteps, unknownSteps } from './fixes.ts';
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
