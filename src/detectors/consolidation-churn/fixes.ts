/**
 * CONSOLIDATION_CHURN's causes, their words and the steps a human pastes: the events that show the
 * churn, and the NodePool merge patches (a longer `consolidateAfter`, a budget for the churning
 * reasons). Budgets are a list, which a JSON merge patch replaces whole: the patch prints the full
 * new list, the NodePool's own budgets (or Karpenter's default) kept.
 */
import type { CauseCodeOf } from '../../domain/codes.ts';
import { commandStep } from '../../domain/finding.ts';
import type { DisruptionBudget, NodePool } from '../../domain/kube.ts';
import { formatDuration } from '../../domain/settings.ts';
import { shellJson, shellQuote } from '../../domain/shell.ts';
import { parseGoDuration } from '../../domain/kube-helpers.ts';
import { DEFAULT_BUDGET, describeBudget } from '../karpenter/disruption-budgets.ts';
import type { ConsolidationReason } from './disruptions.ts';

export type ChurnCause = CauseCodeOf<'CONSOLIDATION_CHURN'>;

/** Under this, consolidation acts on nodes that were busy moments ago. */
const SHORT_CONSOLIDATE_AFTER_MS = 5 * 60_000;
/** What the patch proposes. */
const SUGGESTED_CONSOLIDATE_AFTER = '10m';

export interface ConsolidateAfter {
  /** As written, or `0s` when absent (the v1 default). */
  text: string;
  defaulted: boolean;
  /** Undefined for `Never` or an unreadable value. */
  ms: number | undefined;
}

export function consolidateAfterOf(np: NodePool | undefined): ConsolidateAfter {
  const written = np?.spec?.disruption?.consolidateAfter;
  if (written === undefined) return { text: '0s', defaulted: true, ms: 0 };
  return { text: written, defaulted: false, ms: written === 'Never' ? undefined : parseGoDuration(written) };
}

export function consolidationPolicyOf(np: NodePool | undefined): { text: string; defaulted: boolean } {
  const written = np?.spec?.disruption?.consolidationPolicy;
  return written === undefined ? { text: 'WhenEmptyOrUnderutilized', defaulted: true } : { text: written, defaulted: false };
}

export function isConsolidateAfterShort(after: ConsolidateAfter): boolean {
  return after.ms !== undefined && after.ms < SHORT_CONSOLIDATE_AFTER_MS;
}

const OPTIONS =
  'Other ways to calm it: `consolidationPolicy: WhenEmpty` (only empty nodes are consolidated), ' +
  '`consolidationPolicy: Balanced` (Karpenter v1.14+: a move must save enough for the pods it disrupts), ' +
  'and the pod annotation `karpenter.sh/do-not-disrupt: "true"` on restart-sensitive pods (their nodes are not consolidated).';

const BUDGET_SEMANTICS =
  'A budget caps how many of the NodePool’s nodes may be disrupting at once, not how many per hour; ' +
  'the most restrictive active budget wins.';

export function causeDetail(
  cause: ChurnCause,
  pool: string,
  after: ConsolidateAfter,
  unlimited: readonly ConsolidationReason[],
  captured: boolean,
): string {
  switch (cause) {
    case 'CONSOLIDATE_AFTER_TOO_SHORT':
      return (
        `NodePool ${pool} has consolidateAfter ${after.text}${after.defaulted ? ' (not set: the v1 default)' : ''}: ` +
        `Karpenter consolidates a node as soon as its pods have not changed for that long, so nodes freed by ` +
        `a rollout or a short dip are removed and then needed again. ${formatDuration(SHORT_CONSOLIDATE_AFTER_MS)} or more ` +
        `(e.g. ${SUGGESTED_CONSOLIDATE_AFTER}) lets the load settle first.` +
        (unlimited.length > 0 ? ` No disruption budget limits ${unlimited.join(' or ')} below the default 10% either.` : '') +
        ` ${OPTIONS}`
      );
    case 'NO_DISRUPTION_BUDGET':
      return (
        `NodePool ${pool} has no disruption budget that limits ${unlimited.join(' or ')} below Karpenter's default ` +
        `10% of its nodes at once. A budget such as {nodes: "1", reasons: [${unlimited.join(', ')}]} makes ` +
        `consolidation replace one node at a time. ${BUDGET_SEMANTICS} ${OPTIONS}`
      );
    case 'UNKNOWN':
      if (!captured) {
        return (
          `NodePool ${pool} is not in the capture, so its consolidateAfter and budgets are unknown: ` +
          `capture \`kubectl get nodepools -o yaml\` with the events. ${OPTIONS}`
        );
      }
      return (
        `NodePool ${pool} waits ${after.text} before consolidating and a budget limits it, yet its nodes keep being ` +
        `consolidated: look at what the replaced nodes ran (pods that come and go, pending pods that bring nodes ` +
        `back) and at the instance types Karpenter picks. ${OPTIONS}`
      );
  }
}

export function eventsStep(pool: string): string {
  return commandStep(
    `Karpenter's consolidation of NodePool ${pool}'s NodeClaims, newest last`,
    'kubectl get events -A --field-selector reason=DisruptionTerminating,involvedObject.kind=NodeClaim ' +
      '--sort-by=.lastTimestamp -o custom-columns=LAST:.lastTimestamp,NODECLAIM:.involvedObject.name,MESSAGE:.message ' +
      `| grep -F -e ${shellQuote(`${pool}-`)}`,
  );
}

export function consolidateAfterStep(pool: string): string {
  return commandStep(
    `Let NodePool ${pool}'s load settle ${SUGGESTED_CONSOLIDATE_AFTER} before Karpenter consolidates a node`,
    `kubectl patch nodepool ${shellQuote(pool)} --type=merge -p ${shellJson({
      spec: { disruption: { consolidateAfter: SUGGESTED_CONSOLIDATE_AFTER } },
    })}`,
  );
}

/** The NodePool's budgets with one more: one node at a time for `reasons`. */
function budgetsWithLimit(np: NodePool | undefined, reasons: readonly ConsolidationReason[]): DisruptionBudget[] {
  const own = np?.spec?.disruption?.budgets;
  const kept = own === undefined ? [{ ...DEFAULT_BUDGET }] : own.map((b) => ({ ...b }));
  return [...kept, { nodes: '1', reasons: [...reasons] }];
}

export function budgetStep(pool: string, np: NodePool | undefined, reasons: readonly ConsolidationReason[]): string {
  const own = np?.spec?.disruption?.budgets;
  const kept =
    own === undefined
      ? "keeping Karpenter's default 10% for the other reasons"
      : `keeping its ${own.length} budget${own.length === 1 ? '' : 's'} (a merge patch replaces the whole list)`;
  return commandStep(
    `Consolidate NodePool ${pool}'s nodes one at a time (${reasons.join(', ')}), ${kept}`,
    `kubectl patch nodepool ${shellQuote(pool)} --type=merge -p ${shellJson({
      spec: { disruption: { budgets: budgetsWithLimit(np, reasons) } },
    })}`,
  );
}

export function budgetsText(np: NodePool | undefined): string {
  const own = np?.spec?.disruption?.budgets;
  if (own === undefined) return 'budgets: not set (Karpenter’s default nodes: "10%" for every reason)';
  if (own.length === 0) return 'budgets: [] (no limit)';
  return `budgets: ${own.map((b, i) => describeBudget(b, i)).join('; ')}`;
}
