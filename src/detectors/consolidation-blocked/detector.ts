/**
 * CONSOLIDATION_BLOCKED's Detector and the finding it assembles for each NodePool: the title (how
 * many idle nodes, for how long, at what cost), the evidence in reading order (how each node was
 * judged, Karpenter's own texts, the cause's lines, one line per node), the steps (the checks
 * first, then the cause's). Which nodes (idle-nodes.ts) and why (explain.ts) are decided apart.
 */
import { costOf, type FindingCost, type PricedInstance } from '../../domain/cost.ts';
import { manualRemediation, newFinding, type Finding } from '../../domain/finding.ts';
import { toIsoSeconds } from '../../domain/kube-helpers.ts';
import { formatDuration } from '../../domain/settings.ts';
import type { DetectContext, Detector } from '../detector.ts';
import { explain } from './explain.ts';
import { list, type PoolEvidence } from './explanation.ts';
import { describeStep, eventsStep, nodesStep } from './fixes.ts';
import { billed, pricedClaim } from '../karpenter/priced-instances.ts';
import { idleNodesByPool, idleNodeName, type IdleNode } from './idle-nodes.ts';
import { describeMessage, nodeMessages, poolBudgetMessages } from './karpenter-events.ts';

type Code = 'CONSOLIDATION_BLOCKED';

/**
 * CONSOLIDATION_BLOCKED: Karpenter nodes it could consolidate but has not for at least
 * `settings.consolidationBlockedMs` (docs/findings.md#consolidation_blocked). One finding per
 * NodePool; info, a warning once their cost reaches `settings.wastePerDay` USD a day. Nothing is automated.
 */
export const consolidationBlocked: Detector<Code> = {
  code: 'CONSOLIDATION_BLOCKED',
  // NodeClaims, or (Provisioner era, NodeClaims not captured) Nodes with Karpenter's events about them.
  requires: [],
  anyOf: ['nodeclaims', 'nodes'],
  // Pods judge idle nodes where the condition is absent and name the blocking pods; the rest refine causes.
  refinedBy: ['nodepools', 'nodes', 'pods', 'pdbs', 'events', 'deployments'],
  detect(ctx) {
    const byPool = idleNodesByPool(ctx.index, ctx.now, ctx.settings.consolidationBlockedMs);
    return [...byPool].sort(([a], [b]) => a.localeCompare(b)).map(([pool, nodes]) => findingFor(ctx, pool, nodes));
  },
};

const MAX_LISTED = 10;

function iso(ms: number): string {
  return toIsoSeconds(new Date(ms));
}

function findingFor(ctx: DetectContext, pool: string, nodes: IdleNode[]): Finding<Code> {
  const events = ctx.snapshot.captured.has('events');
  const e: PoolEvidence = {
    pool,
    np: ctx.index.nodePoolsByName.get(pool),
    nodes,
    nodeMessages: events ? nodeMessages(ctx.index, nodes) : [],
    poolMessages: events ? poolBudgetMessages(ctx.index, pool) : [],
  };
  const explained = explain(ctx, e);
  const oldest = nodes[0];
  const busy = nodes.filter((n) => n.busy);
  // Priced as every finding prices instances: EC2's own type and zone when captured, else shape-checked
  // labels. Once per node: the cost, the waste and the per-node lines all read it.
  const priced = nodes.map((n) => pricedClaim(ctx.index, n.claim, n.node));
  const cost = withUpperBound(
    withBusyNote(costOf(ctx.prices, billed(priced)), busy.length),
    nodes.filter((n) => !n.busy),
  );
  // Only what idle nodes cost is waste: busy ones do not make the finding a warning.
  const waste = busy.length > 0 ? costOf(ctx.prices, billed(priced.filter((_, i) => !nodes[i]?.busy))) : cost;
  const warning = waste !== undefined && waste.perDayUsd >= ctx.settings.wastePerDay;
  const evidence = [
    ...judgedEvidence(ctx, pool, nodes),
    ...e.poolMessages.map(describeMessage),
    ...e.nodeMessages.slice(0, MAX_LISTED).map(describeMessage),
    ...perNodeEvidence(ctx, nodes, priced),
  ];
  const first = nodes.some((n) => n.claim) ? nodesStep(pool) : describeStep(oldest);
  const steps = [first, ...(events ? [eventsStep()] : []), ...explained.steps];
  return newFinding({
    code: 'CONSOLIDATION_BLOCKED',
    severity: warning ? 'warning' : 'info',
    title:
      `${nodes.length} node${nodes.length === 1 ? '' : 's'} of NodePool ${pool} Karpenter could consolidate but does not` +
      (oldest ? ` (the oldest for ${formatDuration(ctx.now.getTime() - oldest.since)})` : '') +
      (cost ? `, $${cost.perDayUsd.toFixed(2)} a day` : ''),
    resource: { kind: 'NodePool', name: pool },
    since: oldest ? iso(oldest.since) : null,
    cause: { code: explained.cause, detail: explained.detail + busyNote(busy) },
    evidence,
    remediation: manualRemediation([...new Set(steps)]),
    counts: { objects: nodes.length, nodePool: pool },
    ...(cost ? { cost } : {}),
  });
}

/** The basis says when busy nodes are in the sum: what they cost is not provable waste. */
function withBusyNote(cost: FindingCost | undefined, busy: number): FindingCost | undefined {
  if (!cost || busy === 0) return cost;
  return {
    ...cost,
    basis: `${cost.basis}; ${busy} of these nodes ${busy === 1 ? 'is' : 'are'} busy: what ${busy === 1 ? 'it costs' : 'they cost'}, not provable waste`,
  };
}

function busyNote(busy: readonly IdleNode[]): string {
  if (busy.length === 0) return '';
  const names = busy.map(idleNodeName);
  const one = busy.length === 1;
  return (
    ` ${list(names, 3)} ${one ? 'is' : 'are'} busy (${one ? 'its' : 'their'} pods request half or more of ${one ? 'its' : 'their'} CPU or memory): ` +
    `Karpenter's own event about ${one ? 'it' : 'them'}, not idleness, puts ${one ? 'it' : 'them'} here, so ${one ? 'its' : 'their'} cost is what ${one ? 'it costs' : 'they cost'}, not provable waste.`
  );
}

/**
 * The whole price of a node still running pods is not all saved by consolidating it: its pods need
 * room elsewhere. The basis says so (the one place this finding words what its cost stands for).
 */
function withUpperBound(cost: FindingCost | undefined, nodes: readonly IdleNode[]): FindingCost | undefined {
  if (!cost) return undefined;
  const busy = nodes.filter((n) => n.workloadPods === undefined || n.workloadPods.length > 0).length;
  if (busy === 0) return cost;
  return {
    ...cost,
    basis:
      `${cost.basis}; an upper bound: ${busy} of these nodes ${busy === 1 ? 'runs' : 'run'} pods (or their pods were not read), ` +
      'which still need room on other or smaller nodes',
  };
}

function judgedEvidence(ctx: DetectContext, pool: string, nodes: IdleNode[]): string[] {
  const evidence: string[] = [];
  const consolidatable = nodes.filter((n) => n.basis === 'consolidatable').length;
  if (consolidatable > 0)
    evidence.push(
      `${consolidatable} NodeClaim${consolidatable === 1 ? ' is' : 's are'} Consolidatable=True (Karpenter's own verdict)`,
    );
  const busy = nodes.filter((n) => n.busy).length;
  if (busy > 0)
    evidence.push(
      `${busy} of them ${busy === 1 ? 'requests' : 'request'} half or more of ${busy === 1 ? 'its' : 'their'} CPU or memory (busy), ` +
        `but Karpenter's own Unconsolidatable or DisruptionBlocked about ${busy === 1 ? 'it says what keeps it' : 'them says what keeps them'}`,
    );
  const told = nodes.filter((n) => n.basis === 'event').length;
  if (told > 0)
    evidence.push(
      `${told} node${told === 1 ? ' has' : 's have'} no NodeClaim in the capture (Provisioner era, or NodeClaims not captured), ` +
        'is older than the threshold and Karpenter named it in Unconsolidatable or DisruptionBlocked',
    );
  const idle = nodes.length - consolidatable - told;
  if (idle > 0)
    evidence.push(
      `${idle} node${idle === 1 ? ' has' : 's have'} no Consolidatable condition (consolidation off, or Karpenter before v1) and ` +
        'run no pods but DaemonSet ones, or request under half their CPU and memory',
    );
  if (!ctx.snapshot.captured.has('nodepools'))
    evidence.push('NodePools were not captured: consolidateAfter, the policy and the budgets were not checked');
  else if (!ctx.index.nodePoolsByName.get(pool))
    evidence.push(`NodePool ${pool} is not in the capture: its disruption settings are unknown`);
  return evidence;
}

/** One line per node (the first ten): since when, its type, its pods. `priced[i]` is `nodes[i]`'s instance. */
function perNodeEvidence(ctx: DetectContext, nodes: IdleNode[], prices: readonly (PricedInstance | undefined)[]): string[] {
  const lines = nodes.slice(0, MAX_LISTED).map((n, i) => {
    // The same shape-checked values the cost uses: a forged label prints nothing.
    const priced = prices[i];
    const type = [priced?.instanceType, priced?.capacityType].filter(Boolean).join(' ');
    const pods =
      n.workloadPods === undefined
        ? ''
        : `, ${n.workloadPods.length} pod${n.workloadPods.length === 1 ? '' : 's'} besides DaemonSets`;
    const what = { consolidatable: 'Consolidatable since', idle: 'idle since', event: "Karpenter's first word about it at" }[
      n.basis
    ];
    const node = n.nodeName ? `Node ${n.nodeName}${type ? ` (${type})` : ''}` : '';
    const object = n.claimName ? `NodeClaim ${n.claimName}${node ? ` (${node})` : ''}` : node;
    return `${object}: ${what} ${iso(n.since)}, ${formatDuration(ctx.now.getTime() - n.since)} ago${pods}`;
  });
  if (nodes.length > MAX_LISTED) lines.push(`... and ${nodes.length - MAX_LISTED} more nodes`);
  return lines;
}
