/**
 * What on the blocked NodeClaims' nodes keeps Karpenter from draining them, from the shared
 * eviction-blockers module (Karpenter's rules), named the way this finding words them (`ns/name`).
 */
import type { Pod, PodDisruptionBudget } from '../../domain/kube.ts';
import { evictionBlockers, pdbRef, type MultiplePdbs, type PdbBlock } from '../karpenter/eviction-blockers.ts';

interface PdbHold {
  namespace: string;
  name: string;
  /** `ns/name` of the pods on these nodes it holds. */
  pods: string[];
  pdb: PodDisruptionBudget;
  /** The same, as objects, for the shared PDB steps. */
  block: PdbBlock;
}

export interface PodBlockers {
  /** PDBs that allow no disruption now, with the pods on these nodes they hold. */
  zeroPdbs: PdbHold[];
  /** Pods selected by more than one PDB (the eviction API refuses them), with those PDBs (`ns/name`). */
  multiple: { pod: string; pdbs: string[]; found: MultiplePdbs }[];
  /** Pods annotated `karpenter.sh/do-not-disrupt` (`"true"`, or a duration not yet run out). */
  doNotDisrupt: { pod: string; value: string }[];
}

const podRef = (p: Pod) => `${p.metadata?.namespace ?? 'default'}/${p.metadata?.name ?? '?'}`;

export function podBlockers(pods: readonly Pod[], pdbs: readonly PodDisruptionBudget[], now: Date): PodBlockers {
  const found = evictionBlockers(pods, pdbs, now);
  return {
    zeroPdbs: found.pdbBlocked.map((b) => ({
      namespace: b.pdb.metadata?.namespace ?? 'default',
      name: b.pdb.metadata?.name ?? '?',
      pods: b.pods.map(podRef),
      pdb: b.pdb,
      block: b,
    })),
    multiple: found.multiplePdbs.map((m) => ({ pod: podRef(m.pod), pdbs: m.pdbs.map(pdbRef).sort(), found: m })),
    doNotDisrupt: found.doNotDisrupt.map((d) => ({ pod: podRef(d.pod), value: d.value })),
  };
}
