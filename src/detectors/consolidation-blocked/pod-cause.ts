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
import { idleNodeName } from './idle-nodes.ts';

const podRef = (p: Pod) => `${p.metadata?.namespace ?? 'default'}/${p.metadata?.name ?? '?'}`;

export function podCause(ctx: DetectContext, e: PoolEvidence): Explained | undefined {
  const s = ctx.snapshot;
  const pods = e.nodes.flatMap((n) => n.workloadPods ?? []);
  const found = s.captured.has('pods') ? evictionBlockers(pods, s.captured.has('pdbs') ? s.pdbs : [], ctx.now) : undefined;
  // A node whose pods were not read (beyond a live scan's cap, or not captured) is not judged from
  // its pods: Karpenter's event about it stands in, and nothing is said of pods not seen.
  const unread = e.nodes.filter((n) => n.workloadPods === undefined).map(idleNodeName);
  const podsRead = s.captured.has('pods') && unread.length === 0;
  const pdbKnown = podsRead && s.captured.has('pdbs');
  const notRead =
    unread.length > 0 && s.captured.has('pods')
      ? ` The pods of ${list(unread, 3)} were not read, so Karpenter's event stands in for them.`
      : '';
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
  if (pdbEvent && !allowsDisruption(ctx, pdbEvent.named)) {
    return {
      cause: 'PDB_BLOCKS_EVICTION',
      detail:
        `Karpenter says "${pdbEvent.message}" on ${list(pdbEvent.objects, 3)}` +
        (pdbEvent.named
          ? `: PodDisruptionBudget ${pdbEvent.named} allows no eviction, so these nodes are not consolidated.`
          : ': a PodDisruptionBudget allows no eviction (`kubectl get pdb -A` shows those with ALLOWED DISRUPTIONS 0).') +
        notRead,
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
      detail: `Karpenter says "${multipleEvent.message}" on ${list(multipleEvent.objects, 3)}: a pod there is selected by more than one PodDisruptionBudget, which the eviction API refuses.${notRead}`,
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
  const dndEvent = podsRead ? undefined : said('DO_NOT_DISRUPT_POD');
  if (dndEvent) {
    return {
      cause: 'DO_NOT_DISRUPT_POD',
      detail:
        `Karpenter says "${dndEvent.message}" on ${list(dndEvent.objects, 3)}` +
        (dndEvent.named ? `: pod ${dndEvent.named} opts out of disruption.` : ': a pod on the node opts out of disruption.') +
        notRead,
      steps: dndEvent.named ? podAnnotationSteps([dndEvent.named]) : [],
    };
  }
  return undefined;
}

/** The PDB the event names is captured and now allows a disruption: the event is stale, not the cause. */
function allowsDisruption(ctx: DetectContext, named: string | undefined): boolean {
  if (!named || !ctx.snapshot.captured.has('pdbs')) return false;
  const pdb = ctx.snapshot.pdbs.find((p) => pdbRef(p) === named);
  return (pdb?.status?.disruptionsAllowed ?? 0) > 0;
}
