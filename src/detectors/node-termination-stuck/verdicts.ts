/**
 * The words of each NODE_TERMINATION_STUCK cause: one builder per blocker, the title fragment, the
 * detail and the steps, proven either from the objects (PDBs, do-not-disrupt pods,
 * VolumeAttachments) or from one of Karpenter's events when those objects were not captured. Which
 * builder applies is diagnosis.ts's decision; kept apart so the order of causes reads on one page.
 */
import type { CauseCodeOf } from '../../domain/codes.ts';
import { commandStep } from '../../domain/finding.ts';
import type { VolumeAttachment } from '../../domain/kube.ts';
import { describePdb, pdbRef, type EvictionBlockers } from '../karpenter/eviction-blockers.ts';
import { ownerNote, pdbInspectStep } from '../karpenter/pdb-steps.ts';
import { listCapped, podRef } from '../scheduling/pending.ts';
import type { EventBlocker } from './termination-events.ts';
import {
  closingSteps,
  doNotDisruptSteps,
  multiplePdbSteps,
  pdbSteps,
  podsOnNodeStep,
  unknownSteps,
  volumeSteps,
  type StepTarget,
} from './termination-steps.ts';

type Cause = CauseCodeOf<'NODE_TERMINATION_STUCK'>;

export interface Verdict {
  cause: Cause;
  /** What blocks, for the title. */
  what: string;
  detail: string;
  evidence: string[];
  steps: string[];
}

/** Blockers besides the one the cause names, for the evidence. */
export function otherBlockers(b: EvictionBlockers): string[] {
  return [
    ...b.pdbBlocked.map((x) => `${describePdb(x.pdb)} selects ${listCapped(x.pods.map(podRef), 5)} on the node`),
    ...b.multiplePdbs.map((x) => `pod ${podRef(x.pod)} is selected by ${x.pdbs.length} PDBs: ${x.pdbs.map(pdbRef).join(', ')}`),
    ...b.doNotDisrupt.map(
      (x) => `pod ${podRef(x.pod)} is annotated karpenter.sh/do-not-disrupt: "${x.value}"${x.until ? ` (until ${x.until})` : ''}`,
    ),
  ];
}

export function blockerVerdict(b: EvictionBlockers, target: StepTarget, evidence: string[]): Verdict | undefined {
  const first = b.pdbBlocked[0];
  if (first) {
    const names = b.pdbBlocked.map((x) => pdbRef(x.pdb));
    return {
      cause: 'PDB_BLOCKS_EVICTION',
      what: `PDB ${listCapped(names, 3)} allows no disruption`,
      detail: `${b.pdbBlocked.map((x) => `${describePdb(x.pdb)} selects ${listCapped(x.pods.map(podRef), 5)} on this node`).join('; ')}. With disruptionsAllowed 0 the eviction API refuses each eviction (HTTP 429, "Failed to drain node, evicting pod violates a PDB"), and Karpenter retries forever unless a terminationGracePeriod ends it.${ownerNote(b.pdbBlocked.map((x) => x.pdb))}`,
      evidence,
      steps: pdbSteps(b.pdbBlocked, target),
    };
  }
  const multiple = b.multiplePdbs[0];
  if (multiple) {
    return {
      cause: 'MULTIPLE_PDBS',
      what: `pod ${podRef(multiple.pod)} is selected by ${multiple.pdbs.length} PDBs`,
      detail: `${b.multiplePdbs.map((x) => `Pod ${podRef(x.pod)} is selected by ${x.pdbs.map(pdbRef).join(' and ')}`).join('; ')}. The eviction API refuses a pod more than one PodDisruptionBudget selects, whatever they allow ("eviction does not support multiple PDBs").${ownerNote([...new Set(b.multiplePdbs.flatMap((x) => x.pdbs))])}`,
      evidence,
      steps: multiplePdbSteps(b.multiplePdbs, target),
    };
  }
  const dnd = b.doNotDisrupt[0];
  if (dnd) {
    return {
      cause: 'DO_NOT_DISRUPT_POD',
      what: `pod ${podRef(dnd.pod)} is annotated karpenter.sh/do-not-disrupt`,
      detail: `${b.doNotDisrupt.map((x) => `Pod ${podRef(x.pod)} is annotated karpenter.sh/do-not-disrupt: "${x.value}"${x.until ? ` (active until ${x.until})` : ''}`).join('; ')}. Karpenter never evicts such a pod and its drain waits until the pod ends or the annotation goes.`,
      evidence,
      steps: doNotDisruptSteps(b.doNotDisrupt, target),
    };
  }
  return undefined;
}

export function volumeVerdict(attachments: readonly VolumeAttachment[], target: StepTarget, evidence: string[]): Verdict {
  const describe = (va: VolumeAttachment) =>
    `${va.metadata?.name ?? '?'} (PV ${va.spec?.source?.persistentVolumeName ?? '?'}, ${va.spec?.attacher ?? '?'}, attached ${va.status?.attached ?? '?'}${va.status?.detachError?.message ? `, detachError: ${va.status.detachError.message}` : ''})`;
  return {
    cause: 'VOLUME_DETACH_PENDING',
    what: `${attachments.length} VolumeAttachment(s) not detached`,
    detail: `No pod is left for the drain, but ${attachments.length} VolumeAttachment(s) still bind volumes to the node: ${listCapped(attachments.map(describe), 5)}. Karpenter waits for them to be deleted before it terminates the instance ("Awaiting deletion of bound volumeattachments"), so the CSI driver's detach is what hangs.`,
    evidence,
    steps: volumeSteps(attachments, target),
  };
}

/** The cause from one of Karpenter's events, when the objects that would prove it were not captured. */
export function eventVerdict(b: EventBlocker, target: StepTarget, evidence: string[], why: string): Verdict {
  const basis = `From Karpenter's events (${why}).`;
  const inspect = target.nodeName ? [podsOnNodeStep(target.nodeName)] : [];
  switch (b.kind) {
    case 'pdb':
      return {
        cause: 'PDB_BLOCKS_EVICTION',
        what: b.pdb ? `PDB ${b.pdb} allows no disruption` : 'a PDB allows no disruption',
        detail: `${basis} ${b.pdb ? `PDB ${b.pdb} prevents the evictions` : `An eviction${b.pod ? ` of pod ${b.pod}` : ''} violates a PodDisruptionBudget (the event does not name it)`}: with disruptionsAllowed 0 the eviction API refuses it, and Karpenter retries forever unless a terminationGracePeriod ends it.`,
        evidence,
        steps: [
          ...inspect,
          ...(b.pdb && b.pdb.includes('/')
            ? [pdbInspect(b.pdb)]
            : [commandStep('the budgets: the one blocking shows ALLOWED DISRUPTIONS 0', 'kubectl get pdb -A -o wide')]),
          ...closingSteps(target),
        ],
      };
    case 'multiple-pdbs':
      return {
        cause: 'MULTIPLE_PDBS',
        what: 'a pod is selected by several PDBs',
        detail: `${basis} The eviction API refuses a pod${b.pod ? ` (${b.pod})` : ''} that more than one PodDisruptionBudget selects ("eviction does not support multiple PDBs").`,
        evidence,
        steps: [...inspect, 'kubectl get pdb -A -o wide', ...closingSteps(target)],
      };
    case 'do-not-disrupt':
      return {
        cause: 'DO_NOT_DISRUPT_POD',
        what: `${b.pod ? `pod ${b.pod}` : 'a pod'} is annotated karpenter.sh/do-not-disrupt`,
        detail: `${basis} ${b.pod ? `Pod ${b.pod}` : 'A pod on the node'} is annotated karpenter.sh/do-not-disrupt; Karpenter never evicts it and the drain waits for it.`,
        evidence,
        steps: [...inspect, ...closingSteps(target)],
      };
    case 'volumes':
      return {
        cause: 'VOLUME_DETACH_PENDING',
        what: 'VolumeAttachments not detached',
        detail: `${basis} Karpenter awaits the deletion of the VolumeAttachments bound to the node (${b.attachments}) before it terminates the instance.`,
        evidence,
        steps: [
          target.nodeName
            ? `kubectl get volumeattachments -o custom-columns=NAME:.metadata.name,NODE:.spec.nodeName,PV:.spec.source.persistentVolumeName,ATTACHED:.status.attached`
            : 'kubectl get volumeattachments',
          ...closingSteps(target),
        ],
      };
    case 'waiting':
      return unknownVerdict(
        target,
        evidence,
        `${basis} ${b.pods} pod(s) are waiting to be evicted, and no event says what blocks them.`,
      );
  }
}

function pdbInspect(ref: string): string {
  const [ns = 'default', name = '?'] = ref.split('/');
  return pdbInspectStep(ns, name, 'the budget the event names (and its ownerReferences: an operator reverts a patch of its PDB)');
}

export function unknownVerdict(target: StepTarget, evidence: string[], detail: string): Verdict {
  return { cause: 'UNKNOWN', what: 'cause unknown', detail, evidence, steps: unknownSteps(target, false) };
}
