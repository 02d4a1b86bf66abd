/**
 * Whether pods on the blocked NodeClaims' nodes hold them back: a PDB allowing no disruption, a pod
 * under several PDBs, a do-not-disrupt pod, in that order. The objects decide when captured; the
 * DisruptionBlocked events stand in only for what was not captured (pods, or PDBs), because an
 * event may be stale while the objects are the truth. A drifted NodeClaim with its own
 * terminationGracePeriod is left out: Karpenter replaces it despite such pods.
 */
import type { Pod } from '../../domain/kube.ts';
import type { DetectContext } from '../detector.ts';
import type { BlockedClaim } from './blocked-claims.ts';
import type { BlockedMessage, EventCause } from './blocked-events.ts';
import type { Explained } from './explanation.ts';
import { allPdbsStep, blockingPdbSteps, multiplePdbSteps, namedPdbSteps, ownerNote } from '../karpenter/pdb-steps.ts';
import { podAnnotationSteps } from './fixes.ts';
import { podBlockers, type PodBlockers } from './pod-blockers.ts';

function claimHasTerminationGracePeriod(c: BlockedClaim): boolean {
  return c.claim.spec?.terminationGracePeriod !== undefined;
}

function podsOf(ctx: DetectContext, claims: BlockedClaim[]): Pod[] {
  return claims.flatMap((c) => (c.nodeName ? (ctx.index.podsByNode.get(c.nodeName) ?? []) : []));
}

function list(items: readonly string[], max = 5): string {
  return `${items.slice(0, max).join(', ')}${items.length > max ? ` and ${items.length - max} more` : ''}`;
}

export function podCause(
  ctx: DetectContext,
  claims: BlockedClaim[],
  claimEvents: BlockedMessage[],
  evidence: string[],
  expiredNote: string,
): Explained | undefined {
  // A drifted NodeClaim with its own terminationGracePeriod is replaced despite pods that block
  // eviction (Karpenter's eventual disruption): only the others can be held by their pods.
  const held = claims.filter((c) => !(c.drifted && claimHasTerminationGracePeriod(c)));
  if (held.length === 0) return undefined;
  const s = ctx.snapshot;
  const fromObjects: PodBlockers | undefined = s.captured.has('pods')
    ? podBlockers(podsOf(ctx, held), s.captured.has('pdbs') ? s.pdbs : [], ctx.now)
    : undefined;
  if (!s.captured.has('pods'))
    evidence.push(
      'the pods on these nodes were not captured: PDB and do-not-disrupt causes come from the DisruptionBlocked events',
    );
  else if (!s.captured.has('pdbs'))
    evidence.push('PodDisruptionBudgets were not captured: PDB causes come from the DisruptionBlocked events');
  const fromEvent = (cause: EventCause) => claimEvents.find((m) => m.cause === cause);
  const pdbKnown = s.captured.has('pods') && s.captured.has('pdbs');

  const zero = fromObjects?.zeroPdbs ?? [];
  if (zero.length > 0) {
    const names = zero.map((h) => `${h.namespace}/${h.name} (holding ${list(h.pods, 3)})`);
    return {
      cause: 'PDB_BLOCKS_EVICTION',
      detail:
        `PodDisruptionBudget${zero.length === 1 ? '' : 's'} ${list(names, 3)} allow${zero.length === 1 ? 's' : ''} 0 disruptions, ` +
        `so Karpenter cannot evict ${zero.length === 1 ? 'its' : 'their'} pods from these nodes and does not start replacing them. ` +
        (ownerNote(zero.map((h) => h.pdb)) || ' Scale the workload up or let the PDB allow one pod down.') +
        expiredNote,
      steps: blockingPdbSteps(zero.map((h) => h.block)),
    };
  }
  const pdbEvent = pdbKnown ? undefined : fromEvent('PDB_BLOCKS_EVICTION');
  if (pdbEvent) {
    return {
      cause: 'PDB_BLOCKS_EVICTION',
      detail:
        `Karpenter reports "${pdbEvent.message}" on ${list(pdbEvent.objects, 3)}` +
        (pdbEvent.named
          ? `: PodDisruptionBudget ${pdbEvent.named} allows no eviction.`
          : ` (Karpenter v1.5+ does not name the PDB: \`kubectl get pdb -A\` shows those with ALLOWED DISRUPTIONS 0).`) +
        expiredNote,
      steps: pdbEvent.named ? namedPdbSteps(pdbEvent.named) : [allPdbsStep()],
    };
  }
  const multiple = fromObjects?.multiple ?? [];
  if (multiple.length > 0) {
    return {
      cause: 'MULTIPLE_PDBS',
      detail:
        `${list(
          multiple.map((m) => `pod ${m.pod} is selected by ${m.pdbs.join(' and ')}`),
          3,
        )}: the eviction API refuses a pod ` +
        `under more than one PodDisruptionBudget, so Karpenter cannot drain the node. Give each pod one PDB.` +
        ownerNote([...new Set(multiple.flatMap((m) => m.found.pdbs))]) +
        expiredNote,
      steps: multiplePdbSteps(multiple.map((m) => m.found)),
    };
  }
  const multipleEvent = pdbKnown ? undefined : fromEvent('MULTIPLE_PDBS');
  if (multipleEvent) {
    return {
      cause: 'MULTIPLE_PDBS',
      detail: `Karpenter reports "${multipleEvent.message}" on ${list(multipleEvent.objects, 3)}: a pod there is selected by more than one PodDisruptionBudget, which the eviction API refuses.${expiredNote}`,
      steps: [allPdbsStep()],
    };
  }
  const dnd = fromObjects?.doNotDisrupt ?? [];
  if (dnd.length > 0) {
    return {
      cause: 'DO_NOT_DISRUPT_POD',
      detail:
        `${list(
          dnd.map((d) => `pod ${d.pod} (karpenter.sh/do-not-disrupt: "${d.value}")`),
          3,
        )} ${dnd.length === 1 ? 'runs' : 'run'} on these nodes: ` +
        `Karpenter does not disrupt a node while such a pod runs there. Remove the annotation, or time-box it with a duration.${expiredNote}`,
      steps: podAnnotationSteps(dnd.map((d) => d.pod)),
    };
  }
  const dndEvent = s.captured.has('pods') ? undefined : fromEvent('DO_NOT_DISRUPT_POD');
  if (dndEvent) {
    return {
      cause: 'DO_NOT_DISRUPT_POD',
      detail:
        `Karpenter reports "${dndEvent.message}" on ${list(dndEvent.objects, 3)}` +
        (dndEvent.named ? `: pod ${dndEvent.named} opts out of disruption.` : ': a pod on the node opts out of disruption.') +
        expiredNote,
      steps: dndEvent.named ? podAnnotationSteps([dndEvent.named]) : [],
    };
  }
  return undefined;
}
