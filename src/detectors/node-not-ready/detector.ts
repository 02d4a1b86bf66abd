/**
 * NODE_NOT_READY (docs/findings.md#node_not_ready): Karpenter nodes that initialised and then went
 * NotReady for at least `settings.notReadyMs`, one finding per NodePool. Which nodes
 * (not-ready-nodes.ts), why (cause.ts), whether Karpenter's node repair will replace them
 * (repair.ts) and the steps (steps.ts) are decided apart; this file assembles the finding: the
 * main cause, the repair verdict, the pods stuck Terminating on the nodes, what they cost.
 * Critical when at least 20% of the pool's nodes are NotReady, or Karpenter's 20% rule blocks repair.
 */
import { CAUSES_BY_FINDING } from '../../domain/codes.ts';
import { costOf } from '../../domain/cost.ts';
import { manualRemediation, newFinding, type Finding } from '../../domain/finding.ts';
import type { Node, Pod } from '../../domain/kube.ts';
import { isNodeNotReady, isoSeconds } from '../../domain/kube-helpers.ts';
import { formatDuration } from '../../domain/settings.ts';
import { NODEPOOL_LABEL } from '../../domain/tags.ts';
import { regionOf } from '../aws-iam/iam-arn.ts';
import type { DetectContext, Detector } from '../detector.ts';
import { billed, pricedClaim } from '../karpenter/priced-instances.ts';
import { diagnose, type Cause } from './cause.ts';
import { notReadyNodes, type NotReadyNode } from './not-ready-nodes.ts';
import { repairControllerOf, repairVerdict, type RepairController } from './repair.ts';
import { describeNode, explainCause, explainRepair, repairEvidence, type Diagnosed } from './explain.ts';
import { causeChecks, likelySharedCause, repairSteps, replaceSteps, sharedCauseCheck, type StepContext } from './steps.ts';

type Code = 'NODE_NOT_READY';

const CAUSE_ORDER: readonly Cause[] = CAUSES_BY_FINDING.NODE_NOT_READY;
const MAX_LISTED = 10;

export const nodeNotReady: Detector<Code> = {
  code: 'NODE_NOT_READY',
  requires: ['nodes'],
  refinedBy: ['nodeclaims', 'pods', 'events', 'deployments', 'instances'],
  detect(ctx) {
    const groups = new Map<string, Diagnosed[]>();
    for (const n of notReadyNodes(ctx)) {
      const key = n.pool ?? '';
      const diagnosed = { ...n, diagnosis: diagnose(ctx, n.node, n.ready) };
      // Pushed, not copied: a copy per node is quadratic in a large pool.
      const group = groups.get(key);
      if (group) group.push(diagnosed);
      else groups.set(key, [diagnosed]);
    }
    if (groups.size === 0) return [];
    const byPool = nodesByPool(ctx.snapshot.nodes);
    const controller = repairControllerOf(ctx);
    return [...groups.entries()].map(([pool, nodes]) =>
      findingFor(
        ctx,
        controller,
        byPool,
        pool || undefined,
        nodes.sort((a, b) => b.ageMs - a.ageMs || a.name.localeCompare(b.name)),
      ),
    );
  },
};

/** The cause most of the pool's nodes share; a tie goes to the one listed first. */
function mainCause(nodes: readonly Diagnosed[]): Cause {
  const count = (c: Cause) => nodes.filter((n) => n.diagnosis.cause === c).length;
  return [...CAUSE_ORDER].sort((a, b) => count(b) - count(a) || CAUSE_ORDER.indexOf(a) - CAUSE_ORDER.indexOf(b))[0] ?? 'UNKNOWN';
}

/** Pods on the node with a deletion timestamp: what the node lifecycle controller's eviction left Terminating. */
function stuckPods(ctx: DetectContext, nodes: readonly Diagnosed[]): Map<string, Pod[]> {
  return new Map(
    nodes.map((n) => [
      n.name,
      (ctx.index.podsByNode.get(n.name) ?? []).filter((p) => p.metadata?.deletionTimestamp !== undefined),
    ]),
  );
}

/** The zone its labels name: for the region of the steps' AWS commands. */
function labelledZone(n: NotReadyNode): string | undefined {
  return n.node.metadata?.labels?.['topology.kubernetes.io/zone'] ?? n.claim?.metadata?.labels?.['topology.kubernetes.io/zone'];
}

/** Every Node by its `karpenter.sh/nodepool` label, as Karpenter counts a pool's nodes: built once per scan. */
function nodesByPool(nodes: readonly Node[]): Map<string, Node[]> {
  const byPool = new Map<string, Node[]>();
  for (const node of nodes) {
    const pool = node.metadata?.labels?.[NODEPOOL_LABEL];
    if (pool === undefined) continue;
    const list = byPool.get(pool);
    if (list) list.push(node);
    else byPool.set(pool, [node]);
  }
  return byPool;
}

function findingFor(
  ctx: DetectContext,
  controller: RepairController,
  byPool: ReadonlyMap<string, Node[]>,
  pool: string | undefined,
  nodes: Diagnosed[],
): Finding<Code> {
  const cause = mainCause(nodes);
  const main = nodes.filter((n) => n.diagnosis.cause === cause);
  const first = main[0] as Diagnosed;
  const others = CAUSE_ORDER.filter((c) => c !== cause)
    .map((c) => nodes.filter((n) => n.diagnosis.cause === c))
    .filter((list) => list.length > 0);
  const poolNodes = pool ? (byPool.get(pool) ?? []) : [];
  const verdict = repairVerdict(ctx, controller, pool ? poolNodes : ctx.snapshot.nodes, pool, nodes);
  const stuck = stuckPods(ctx, nodes);
  const notReadyInPool = poolNodes.filter(isNodeNotReady).length;
  const share = poolNodes.length > 0 ? notReadyInPool / poolNodes.length : 0;
  const critical = share >= 0.2 || verdict.kind === 'blocked';
  const zone = labelledZone(first);
  const stepContext: StepContext = {
    pool,
    region: regionOf({ clusterArn: ctx.snapshot.cluster?.arn, zone }),
    controller: controller.info,
    podsCaptured: ctx.snapshot.captured.has('pods'),
    now: ctx.now,
  };
  const where = pool ? `NodePool ${pool}` : 'NodeClaims without a NodePool';
  const n = nodes.length;
  const also = others.map(
    (list) =>
      ` Also ${list.length} node${list.length > 1 ? 's' : ''} ${(list[0] as Diagnosed).diagnosis.cause}: ${explainCause(ctx, list[0] as Diagnosed)}`,
  );
  const shareText =
    poolNodes.length > 0
      ? ` ${notReadyInPool} of the pool's ${poolNodes.length} nodes ${notReadyInPool === 1 ? 'is' : 'are'} NotReady.`
      : '';
  const stuckCount = [...stuck.values()].reduce((sum, pods) => sum + pods.length, 0);
  const stuckText =
    stuckCount > 0
      ? ` ${stuckCount} pod${stuckCount > 1 ? 's are' : ' is'} stuck Terminating on them (named in the evidence): they go once the node does.`
      : '';
  const detail = `${explainCause(ctx, first)}${also.join('')}${shareText} ${explainRepair(verdict)}${stuckText}`;
  const shared = likelySharedCause(nodes, verdict.kind === 'blocked');
  const steps = [
    ...new Set([
      ...(shared ? [sharedCauseCheck(stepContext)] : []),
      ...[first, ...others.map((list) => list[0] as Diagnosed)].flatMap((d) => causeChecks(d, d.diagnosis, stepContext)),
      ...repairSteps(verdict, stepContext),
      ...replaceSteps(nodes, stuck, stepContext, shared),
    ]),
  ];
  // What EC2 bills, as the other findings price it: the captured instance first, labels only of EC2's shape.
  const cost = costOf(ctx.prices, billed(nodes.map((d) => pricedClaim(ctx.index, d.claim, d.node))));
  return newFinding({
    code: 'NODE_NOT_READY',
    severity: critical ? 'critical' : 'warning',
    title: `${n} node${n > 1 ? 's' : ''} of ${where} NotReady for ${formatDuration(first.ageMs)} after ${n > 1 ? 'they' : 'it'} initialised`,
    resource: pool ? { kind: 'NodePool', name: pool } : { kind: 'Cluster', name: ctx.snapshot.clusterName },
    since: isoSeconds(nodes.map((d) => d.since).sort((a, b) => Date.parse(a) - Date.parse(b))[0]),
    cause: { code: cause, detail },
    evidence: [
      ...nodes.slice(0, MAX_LISTED).map((d) => describeNode(ctx, d)),
      ...(n > MAX_LISTED ? [`... and ${n - MAX_LISTED} more NotReady nodes`] : []),
      ...stuckEvidence(stuck),
      ...repairEvidence(verdict),
    ],
    remediation: manualRemediation(steps),
    counts: { objects: n, ...(pool ? { nodePool: pool } : {}) },
    ...(cost ? { cost } : {}),
  });
}

function stuckEvidence(stuck: ReadonlyMap<string, Pod[]>): string[] {
  return [...stuck.entries()].flatMap(([node, pods]) => {
    if (pods.length === 0) return [];
    const names = pods
      .slice(0, MAX_LISTED)
      .map(
        (p) =>
          `${p.metadata?.namespace ?? 'default'}/${p.metadata?.name ?? '?'} (deletionTimestamp ${p.metadata?.deletionTimestamp ?? '?'})`,
      );
    const more = pods.length > MAX_LISTED ? `, ... and ${pods.length - MAX_LISTED} more` : '';
    return [`pods stuck Terminating on node ${node}: ${names.join(', ')}${more}`];
  });
}
