import type { Finding } from '../../domain/finding.ts';
import { manualRemediation, newFinding } from '../../domain/finding.ts';
import type { NodePool } from '../../domain/kube.ts';
import { toIsoSeconds } from '../../domain/kube-helpers.ts';
import { formatDuration } from '../../domain/settings.ts';
import { NODEPOOL_LABEL } from '../../domain/tags.ts';
import type { DetectContext, Detector } from '../detector.ts';
import { allowedDisruptions, budgetLimitsReason } from '../karpenter/disruption-budgets.ts';
import {
  consolidationDisruptions,
  consolidationLaunches,
  replacements,
  type ConsolidationReason,
  type Disruption,
} from './disruptions.ts';
import {
  budgetStep,
  budgetsText,
  causeDetail,
  consolidateAfterOf,
  consolidateAfterStep,
  consolidationPolicyOf,
  eventsStep,
  isConsolidateAfterShort,
  type ChurnCause,
} from './fixes.ts';

const HOUR_MS = 3_600_000;
const REASONS: readonly ConsolidationReason[] = ['Underutilized', 'Empty'];

/**
 * CONSOLIDATION_CHURN: a NodePool whose nodes Karpenter consolidated (`Underutilized`, `Empty`) at
 * least `settings.churnPerHour` times in the hour before `now`, counted per node from its
 * `DisruptionTerminating` events (disruptions.ts). One finding per NodePool. Causes, first that
 * applies: a `consolidateAfter` under 5 minutes (absent is `0s` in v1), no budget that limits the
 * churning reasons below the default 10%, else unknown. Nothing is automated: the steps are the
 * events to look at and the NodePool patches.
 */
export const consolidationChurn: Detector<'CONSOLIDATION_CHURN'> = {
  code: 'CONSOLIDATION_CHURN',
  // Events only: a capture of NodePools without events (or events without NodePools) is complete
  // for everything else, so neither may open a gap. Without NodePools, disruptions are attributed
  // by the Node/NodeClaim label only and the cause is UNKNOWN (the evidence says why).
  requires: ['events'],
  refinedBy: ['nodepools', 'nodeclaims', 'nodes'],
  detect(ctx) {
    const to = ctx.now.getTime();
    const from = to - HOUR_MS;
    const { events, nodeClaims, nodePools } = ctx.snapshot;
    const disruptions = consolidationDisruptions(events, ctx.index, nodePools, from, to);
    const byPool = new Map<string, Disruption[]>();
    for (const d of disruptions) {
      if (d.nodePool === undefined) continue;
      const list = byPool.get(d.nodePool);
      if (list) list.push(d);
      else byPool.set(d.nodePool, [d]);
    }
    const launches = consolidationLaunches(events, nodeClaims, nodePools, from, to);
    const findings: Finding<'CONSOLIDATION_CHURN'>[] = [];
    for (const [pool, list] of [...byPool].sort(([a], [b]) => a.localeCompare(b))) {
      if (list.length < ctx.settings.churnPerHour) continue;
      findings.push(findingFor(ctx, pool, list, launches));
    }
    return findings;
  },
};

/**
 * How many nodes the NodePool has, as Karpenter's budgets count them, when the capture says: its
 * Nodes, else its NodeClaims, else its `status.resources.nodes`. None (a pool that just churned)
 * counts as unknown: percentages of 0 nodes say nothing about the budgets.
 */
function nodeCountOf(ctx: DetectContext, pool: string, np: NodePool | undefined): number | undefined {
  const live = (o: { metadata?: { deletionTimestamp?: string; labels?: Record<string, string> } }) =>
    o.metadata?.labels?.[NODEPOOL_LABEL] === pool && !o.metadata.deletionTimestamp;
  const status = np?.status?.resources?.nodes;
  const count = ctx.snapshot.captured.has('nodes')
    ? ctx.snapshot.nodes.filter(live).length
    : ctx.snapshot.captured.has('nodeclaims')
      ? ctx.snapshot.nodeClaims.filter(live).length
      : status !== undefined && /^\d+$/.test(status)
        ? Number(status)
        : 0;
  return count > 0 ? count : undefined;
}

function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

function countBy<T>(items: readonly T[], key: (t: T) => string): [string, number][] {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

function evidenceOf(
  ctx: DetectContext,
  pool: string,
  np: NodePool | undefined,
  list: readonly Disruption[],
  launches: ReturnType<typeof consolidationLaunches>,
  nodeCount: number | undefined,
): string[] {
  const reasons = countBy(list, (d) => d.reason)
    .map(([r, n]) => `${r} ×${n}`)
    .join(', ');
  const evidence = [
    `${list.length} consolidation disruptions in the last hour (${reasons}); the threshold is ${ctx.settings.churnPerHour}`,
  ];
  const wordings = countBy(list, (d) => d.message).map(([m]) => m);
  evidence.push(`DisruptionTerminating events: ${wordings.map((w) => `"${w}"`).join(', ')}`);
  const byLabel = list.filter((d) => d.attributedBy === 'label').length;
  const byName = list.length - byLabel;
  evidence.push(
    `NodePool ${pool} from ` +
      [
        byLabel > 0 ? `the karpenter.sh/nodepool label of the Node or NodeClaim (${byLabel})` : '',
        byName > 0 ? `the NodeClaim's name, ${pool}-xxxxx (${byName}: the objects are gone)` : '',
      ]
        .filter(Boolean)
        .join(' and '),
  );
  const lifetimes = list.flatMap((d) => (d.createdAt !== undefined && d.createdAt <= d.at ? [d.at - d.createdAt] : []));
  const typical = median(lifetimes);
  if (typical !== undefined) {
    evidence.push(
      `the disrupted nodes had lived ${formatDuration(typical)} (median of ${lifetimes.length} whose Node or NodeClaim is still captured)`,
    );
  }
  const pairs = replacements(list, launches);
  if (pairs.length > 0) {
    const same = pairs.filter((p) => p.from === p.to).length;
    evidence.push(
      `instance types: ${countBy(pairs, (p) => `${p.from} replaced by ${p.to}`)
        .map(([text, n]) => `${text} ×${n}`)
        .join(', ')}` + (same > 0 ? ` (the same type in ${same} of ${pairs.length})` : ''),
    );
  }
  if (!np) {
    evidence.push(`NodePool ${pool} is not in the capture: its disruption settings are unknown`);
    return evidence;
  }
  const policy = consolidationPolicyOf(np);
  const after = consolidateAfterOf(np);
  evidence.push(
    `consolidationPolicy: ${policy.text}${policy.defaulted ? ' (not set: the default)' : ''}, ` +
      `consolidateAfter: ${after.text}${after.defaulted ? ' (not set: the v1 default)' : ''}`,
  );
  evidence.push(budgetsText(np));
  const allowed = allowedDisruptions(np, 'Underutilized', nodeCount ?? 0, ctx.now);
  if (nodeCount !== undefined) {
    const cap = Number.isFinite(allowed.allowed) ? `${allowed.allowed}` : 'any number';
    evidence.push(
      `now Karpenter lets ${cap} of its ${nodeCount} nodes be disrupting at once for Underutilized` +
        (allowed.limiting ? ` (${allowed.limiting.text})` : ''),
    );
  }
  for (const invalid of allowed.invalid) {
    evidence.push(`budgets[${invalid.index}]: ${invalid.error}; Karpenter then allows no disruption of this NodePool`);
  }
  return evidence;
}

function findingFor(
  ctx: DetectContext,
  pool: string,
  list: readonly Disruption[],
  launches: ReturnType<typeof consolidationLaunches>,
): Finding<'CONSOLIDATION_CHURN'> {
  const np = ctx.index.nodePoolsByName.get(pool);
  const nodeCount = nodeCountOf(ctx, pool, np);
  const after = consolidateAfterOf(np);
  const churned = REASONS.filter((r) => list.some((d) => d.reason === r));
  const unlimited = np ? churned.filter((r) => !budgetLimitsReason(np, r, nodeCount, ctx.now)) : [];
  const short = np !== undefined && isConsolidateAfterShort(after);
  const cause: ChurnCause = short ? 'CONSOLIDATE_AFTER_TOO_SHORT' : unlimited.length > 0 ? 'NO_DISRUPTION_BUDGET' : 'UNKNOWN';
  const steps = [eventsStep(pool)];
  if (short) steps.push(consolidateAfterStep(pool));
  if (unlimited.length > 0) steps.push(budgetStep(pool, np, unlimited));
  const first = list[0]?.at ?? ctx.now.getTime();
  return newFinding({
    code: 'CONSOLIDATION_CHURN',
    severity: 'warning',
    title: `NodePool ${pool}: Karpenter consolidated ${list.length} of its nodes in the last hour`,
    resource: { kind: 'NodePool', name: pool },
    since: toIsoSeconds(new Date(first)),
    cause: { code: cause, detail: causeDetail(cause, pool, after, unlimited, np !== undefined) },
    evidence: evidenceOf(ctx, pool, np, list, launches, nodeCount),
    remediation: manualRemediation(steps),
    counts: { objects: list.length, nodePool: pool },
  });
}
