/**
 * The commands NODE_TERMINATION_STUCK (a node being drained) and DISRUPTION_BLOCKED (a node
 * Karpenter wants to replace) both print beside the PDB steps (pdb-steps.ts): the NodePool's
 * terminationGracePeriod, and the do-not-disrupt annotation removed. Each finding words its own
 * `# why`; the commands are built here once, every value from the cluster quoted.
 */
import { shellJson, shellQuote } from '../../domain/shell.ts';
import { DO_NOT_DISRUPT_ANNOTATION } from './eviction-blockers.ts';

/**
 * `kubectl patch nodepool POOL ... terminationGracePeriod: 24h`: after it, Karpenter deletes the
 * pods a drain still waits for, PDBs and do-not-disrupt notwithstanding. `typeFlag` is how the
 * finding has always spelt kubectl's `--type` (both spellings are kubectl's; the printed text of
 * each finding stays as its tests and examples hold it).
 */
export function terminationGracePeriodPatch(pool: string, typeFlag: '--type merge' | '--type=merge'): string {
  const patch = shellJson({ spec: { template: { spec: { terminationGracePeriod: '24h' } } } });
  return `kubectl patch nodepool ${shellQuote(pool)} ${typeFlag} -p ${patch}`;
}

/** `kubectl annotate pod -n NS NAME karpenter.sh/do-not-disrupt-` (a Node or NodeClaim: no namespace). */
export function removeDoNotDisrupt(kind: 'pod' | 'node' | 'nodeclaim', name: string, namespace?: string): string {
  const ns = namespace === undefined ? '' : ` -n ${shellQuote(namespace)}`;
  return `kubectl annotate ${kind}${ns} ${shellQuote(name)} ${DO_NOT_DISRUPT_ANNOTATION}-`;
}
