/**
 * Whether pods on the idle nodes hold them: a PDB allowing no disruption, a pod under several PDBs,
 * a do-not-disrupt pod, in that order (Karpenter's own candidate checks, karpenter/eviction-blockers.ts).
 * Such a node gets `DisruptionBlocked`, never `Unconsolidatable`, and its text does not say
 * "consolidation". The captured pods and PDBs decide; the events stand in only for what was not
 * captured, since an event may be stale while the objects are the truth.
 */
import type { Pod } from '../../domain/kube.ts';
import type { DetectContext } from '../detector.ts';
import { evictionBlockers, pdbRef } from '../karpenter/eviction-blockers.ts';
import { allPdbsStep, blockingPdbSteps, multiplePdbSteps, namedPdbSteps, ownerNote } from '../karpenter/pdb-steps.ts';
import { list, type Explained, type PoolEvidence } from './explanation.ts';
import { podAnnotationSteps } from './fixes.ts';

const podRef = (p: Pod) => `${p.metadata?.namespace ?? 'default'}/${p.metadata?.name ?? '?'}`;

export function podCause(ctx: DetectContext, e: PoolEvidence): Explained | undefined {
  const s = ctx.snapshot;
  const pods = e.nodes.flatMap((n) => n.workloadPods ?? []);
  const found = s.captured.has('pods') ? evictionBlockers(pods, s.captured.has('pdbs') ? s.pdbs : [], ctx.now) : undefined;
  const pdbKnown = s.captured.has('pods') && s.captured.has('pdbs');
  // DisruptionBlocked from v0.32; before, the same texts came as Unconsolidatable (`pdb ns/name prevents pod evictions`).
  const said = (cause: string) => e.nodeMessages.find((m) => m.cause === cause);

  const zero = found?.pdbBlocked ?? [];
  if (zero.length > 0) {
    const names = zero.map((b) => `${pdbRef(b.pdb)} (holding ${list(b.pods.map(podRef), 3)})`);
    const event = said('PDB_BLOCKS_EVICTION');
    return {
      cause: 'PDB_BLOCKS_EVICTION',
      detail:
        `PodDisruptionBudget${zero.length === 1 ? '' : 's'} ${list(names, 3)} allow${zero.length === 1 ? 's' : ''} 0 disruptions, ` +
        `so Karpenter cannot evict ${zero.length === 1 ? 'its' : 'their'} pods and never consolidates these nodes.` +
        (event ? ` Karpenter says "${event.message}" (×${event.count}).` : '') +
        (ownerNote(zero.map((b) => b.pdb)) || ' Scale the workload up or let the PDB allow one pod down.'),
      steps: blockingPdbSteps(zero),
    };
  }
  const pdbEvent = pdbKnown ? undefined : said('PDB_BLOCKS_EVICTION');
  if (pdbEvent) {
    return {
      cause: 'PDB_BLOCKS_EVICTION',
      detail:
        `Karpenter says "${pdbEvent.message}" on ${list(pdbEvent.objects, 3)}` +
        (pdbEvent.named
          ? `: PodDisruptionBudget ${pdbEvent.named} allows no eviction, so these nodes are not consolidated.`
          : ': a PodDisruptionBudget allows no eviction (`kubectl get pdb -A` shows those with ALLOWED DISRUPTIONS 0).'),
      steps: pdbEvent.named ? namedPdbSteps(pdbEvent.named) : [allPdbsStep()],
    };
  }
  const multiple = found?.multiplePdbs ?? [];
  if (multiple.length > 0) {
    return {
      cause: 'MULTIPLE_PDBS',
      detail:
        `${list(
          multiple.map((m) => `pod ${podRef(m.pod)} is selected by ${m.pdbs.map(pdbRef).sort().join(' and ')}`),
          3,
        )}: the eviction API refuses a pod under more than one PodDisruptionBudget, so Karpenter never consolidates its node. Give each pod one PDB.` +
        ownerNote([...new Set(multiple.flatMap((m) => m.pdbs))]),
      steps: multiplePdbSteps(multiple),
    };
  }
  const multipleEvent = pdbKnown ? undefined : said('MULTIPLE_PDBS');
  if (multipleEvent) {
    return {
      cause: 'MULTIPLE_PDBS',
      detail: `Karpenter says "${multipleEvent.message}" on ${list(multipleEvent.objects, 3)}: a pod there is selected by more than one PodDisruptionBudget, which the eviction API refuses.`,
      steps: [allPdbsStep()],
    };
  }
  const dnd = found?.doNotDisrupt ?? [];
  if (dnd.length > 0) {
    return {
      cause: 'DO_NOT_DISRUPT_POD',
      detail: `${list(
        dnd.map((d) => `pod ${podRef(d.pod)} (karpenter.sh/do-not-disrupt: "${d.value}")`),
        3,
      )} ${dnd.length === 1 ? 'runs' : 'run'} on these nodes: Karpenter never consolidates a node while such a pod runs there.`,
      steps: podAnnotationSteps(dnd.map((d) => podRef(d.pod))),
    };
  }
  const dndEvent = s.captured.has('pods') ? undefined : said('DO_NOT_DISRUPT_POD');
  if (dndEvent) {
    return {
      cause: 'DO_NOT_DISRUPT_POD',
      detail:
        `Karpenter says "${dndEvent.message}" on ${list(dndEvent.objects, 3)}` +
        (dndEvent.named ? `: pod ${dndEvent.named} opts out of disruption.` : ': a pod on the node opts out of disruption.'),
      steps: dndEvent.named ? podAnnotationSteps([dndEvent.named]) : [],
    };
  }
  return undefined;
}
