/**
 * The commands NODE_TERMINATION_STUCK (a node being drained), DISRUPTION_BLOCKED (a node
 * Karpenter wants to replace) and CONSOLIDATION_BLOCKED (a node it could remove) print beside the PDB steps (pdb-steps.ts): the NodePool's
 * terminationGracePeriod, the budgets let through one node, and the do-not-disrupt annotation removed. Each finding words its own
 * `# why`; the commands are built here once, every value from the cluster quoted.
 */
import type { DisruptionBudget, NodePool } from '../../domain/kube.ts';
import { shellJson, shellQuote } from '../../domain/shell.ts';
import { DEFAULT_BUDGET, budgetCap, type DisruptionReason } from './disruption-budgets.ts';
import { DO_NOT_DISRUPT_ANNOTATION } from './eviction-blockers.ts';

const REASONS: readonly DisruptionReason[] = ['Underutilized', 'Empty', 'Drifted'];

/** A `karpenter.sh/v1beta1` NodePool (Karpenter v0.32–v0.37), whose budgets take no `reasons`. */
export function isV1beta1(np: NodePool | undefined): boolean {
  return (np?.apiVersion ?? '').endsWith('/v1beta1');
}

/**
 * The NodePool's budgets with `reason` let through one node at a time (DISRUPTION_BLOCKED for
 * Drifted, CONSOLIDATION_BLOCKED for Underutilized or Empty): every budget that caps `reason` at 0
 * no longer applies to it (it keeps gating the other reasons), and a budget
 * `{nodes: "1", reasons: [reason]}` is added unless an unscheduled one for `reason` alone is kept.
 * Printed whole: a JSON merge patch replaces the whole list. A v1beta1 NodePool's: see below.
 */
export function budgetsAllowing(np: NodePool | undefined, reason: DisruptionReason, nodeCount: number): DisruptionBudget[] {
  const own = np?.spec?.disruption?.budgets ?? [{ ...DEFAULT_BUDGET }];
  if (isV1beta1(np)) {
    // v1beta1 budgets have no `reasons` (from v1.0): each caps every reason, so those capping at 0
    // go and an unscheduled `{nodes: "1"}` is added unless one is kept.
    const open = own.filter((b) => budgetCap(b.nodes, nodeCount) !== 0).map((b) => ({ ...b }));
    return open.some((b) => b.schedule === undefined) ? open : [...open, { nodes: '1' }];
  }
  const kept: DisruptionBudget[] = [];
  for (const b of own) {
    const applies = b.reasons === undefined || b.reasons.includes(reason);
    if (!applies || budgetCap(b.nodes, nodeCount) !== 0) {
      kept.push({ ...b });
      continue;
    }
    const reasons = (b.reasons ?? REASONS).filter((r) => r !== reason);
    if (reasons.length > 0) kept.push({ ...b, reasons });
  }
  const alone = kept.some((b) => b.reasons?.length === 1 && b.reasons[0] === reason && b.schedule === undefined);
  return alone ? kept : [...kept, { nodes: '1', reasons: [reason] }];
}

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
