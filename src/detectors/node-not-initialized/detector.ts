import { CAUSES_BY_FINDING } from '../../domain/codes.ts';
import type { Condition, Node, NodeClaim } from '../../domain/kube.ts';
import { ageMs, conditionOf, instanceIdFromProviderID, isoSeconds, newestFirst } from '../../domain/kube-helpers.ts';
import { manualRemediation, newFinding, type Finding } from '../../domain/finding.ts';
import { formatDuration } from '../../domain/settings.ts';
import { nodePoolOfClaim } from '../../domain/tags.ts';
import type { DetectContext, Detector } from '../detector.ts';
import { describeCondition } from '../karpenter/readiness.ts';
import { diagnose, type Cause, type Diagnosis } from './diagnose.ts';
import { explain, stepsFor, type Subject } from './initialization-fixes.ts';

type Code = 'NODE_NOT_INITIALIZED';

/** A NodeClaim whose Node registered but never initialised. */
interface Stuck {
  subject: Subject;
  registeredAt: string;
  ageMs: number;
  initialized: Condition | undefined;
  node: Node | undefined;
  diagnosis: Diagnosis;
}

const CONSEQUENCE =
  "Until it initialises, Karpenter never consolidates, expires, drifts or repairs the node (disruption says `node isn't initialized`), and the pods it was launched for may keep waiting on it while Karpenter counts it as capacity on the way.";

const MAX_LISTED = 10;

export const nodeNotInitialized: Detector<Code> = {
  code: 'NODE_NOT_INITIALIZED',
  requires: ['nodeclaims'],
  refinedBy: ['nodes', 'nodepools', 'pods', 'events'],
  detect(ctx) {
    const groups = new Map<string, Stuck[]>();
    for (const nc of ctx.snapshot.nodeClaims) {
      const stuck = stuckClaim(ctx, nc);
      if (!stuck) continue;
      const key = nodePoolOfClaim(nc) ?? '';
      // Pushed, not copied: a copy per NodeClaim is quadratic in a large pool.
      const group = groups.get(key);
      if (group) group.push(stuck);
      else groups.set(key, [stuck]);
    }
    // The longest stuck first (then by name): the same lead and order however the NodeClaims were listed.
    return [...groups.entries()].map(([pool, stuck]) => findingFor(ctx, pool || undefined, stuck.sort(longestStuckFirst)));
  },
};

function stuckClaim(ctx: DetectContext, nc: NodeClaim): Stuck | undefined {
  // Initialized settles nearly every NodeClaim of a cluster: read first.
  const initialized = conditionOf(nc, 'Initialized');
  if (initialized?.status === 'True') return undefined;
  const registered = conditionOf(nc, 'Registered');
  if (registered?.status !== 'True') return undefined;
  // Being deleted (consolidation of a sibling, a deleted NodePool, someone's kubectl delete): on its way out.
  if (nc.metadata?.deletionTimestamp) return undefined;
  const registeredAt = registered.lastTransitionTime ?? nc.metadata?.creationTimestamp;
  const age = ageMs(registeredAt, ctx.now);
  if (registeredAt === undefined || age === undefined || age < ctx.settings.initializationMs) return undefined;
  const instanceId = instanceIdFromProviderID(nc.status?.providerID);
  const nodeName = nc.status?.nodeName;
  const node =
    (nodeName ? ctx.index.nodesByName.get(nodeName) : undefined) ??
    (instanceId ? ctx.index.nodesByInstanceId.get(instanceId) : undefined);
  // Karpenter labels the Node when it initialises it: the NodeClaim's status only lags behind.
  if (node?.metadata?.labels?.['karpenter.sh/initialized'] === 'true') return undefined;
  const poolName = nodePoolOfClaim(nc);
  const pool = poolName ? ctx.index.nodePoolsByName.get(poolName) : undefined;
  const subject: Subject = {
    claim: nc.metadata?.name ?? '?',
    node: node?.metadata?.name ?? nodeName,
    instanceId,
    pool,
    cluster: ctx.snapshot.clusterName,
    karpenterNamespace: ctx.index.controllers[0]?.namespace ?? 'karpenter',
  };
  return { subject, registeredAt, ageMs: age, initialized, node, diagnosis: diagnose(ctx, nc, node, pool, initialized) };
}

function longestStuckFirst(a: Stuck, b: Stuck): number {
  return b.ageMs - a.ageMs || a.subject.claim.localeCompare(b.subject.claim);
}

const CAUSE_ORDER: readonly Cause[] = CAUSES_BY_FINDING.NODE_NOT_INITIALIZED;

/** The cause most of the pool's NodeClaims share; a tie goes to the one listed first (docs/findings.md#node_not_initialized). */
function mainCause(stuck: readonly Stuck[]): Cause {
  const count = (c: Cause) => stuck.filter((s) => s.diagnosis.cause === c).length;
  return [...CAUSE_ORDER].sort((a, b) => count(b) - count(a) || CAUSE_ORDER.indexOf(a) - CAUSE_ORDER.indexOf(b))[0] ?? 'UNKNOWN';
}

function findingFor(ctx: DetectContext, pool: string | undefined, stuck: Stuck[]): Finding<Code> {
  const cause = mainCause(stuck);
  const main = stuck.filter((s) => s.diagnosis.cause === cause);
  const first = main[0] as Stuck;
  const others = CAUSE_ORDER.filter((c) => c !== cause)
    .map((c) => stuck.filter((s) => s.diagnosis.cause === c))
    .filter((list) => list.length > 0);
  const where = pool ? `NodePool ${pool}` : 'NodeClaims without a NodePool';
  const n = stuck.length;
  const also = others.map((list) => {
    const s = list[0] as Stuck;
    return ` Also ${list.length} NodeClaim${list.length > 1 ? 's' : ''} ${s.diagnosis.cause}: ${explain(s.diagnosis, s.subject)}`;
  });
  const count =
    main.length > 1 ? ` The same holds for ${main.length - 1} more NodeClaim${main.length > 2 ? 's' : ''} of this pool.` : '';
  const detail = `${explain(first.diagnosis, first.subject)}${count}${also.join('')} ${CONSEQUENCE}`;
  const steps = [...new Set([first, ...others.map((list) => list[0] as Stuck)].flatMap((s) => stepsFor(s.diagnosis, s.subject)))];
  const since = stuck.map((s) => s.registeredAt).sort((a, b) => Date.parse(a) - Date.parse(b))[0];
  return newFinding({
    code: 'NODE_NOT_INITIALIZED',
    severity: 'warning',
    title: `${n} NodeClaim${n > 1 ? 's' : ''} of ${where} registered a Node that never initialised`,
    resource: pool ? { kind: 'NodePool', name: pool } : { kind: 'Cluster', name: ctx.snapshot.clusterName },
    since: isoSeconds(since),
    cause: { code: cause, detail },
    evidence: [...claimEvidence(stuck), ...eventEvidence(ctx, stuck)],
    remediation: manualRemediation(steps),
    counts: { objects: n, ...(pool ? { nodePool: pool } : {}) },
  });
}

function claimEvidence(stuck: readonly Stuck[]): string[] {
  const lines = stuck.slice(0, MAX_LISTED).map((s) => {
    const init = s.initialized ? describeCondition(s.initialized) : 'no Initialized condition';
    const nodeText = s.subject.node ? `node ${s.subject.node}` : 'no node name';
    const ready = s.node ? conditionOf(s.node, 'Ready') : undefined;
    const readyText = ready && ready.status !== 'True' ? `; Node ${describeCondition(ready)}` : '';
    const taints = (s.node?.spec?.taints ?? []).map((t) => `${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`);
    const taintText = taints.length > 0 ? `; Node taints ${taints.join(', ')}` : '';
    const note = 'agentNote' in s.diagnosis && s.diagnosis.agentNote ? `; ${s.diagnosis.agentNote}` : '';
    return `NodeClaim ${s.subject.claim} (${nodeText}): registered ${formatDuration(s.ageMs)} ago, ${init}${readyText}${taintText}${note}`;
  });
  if (stuck.length > MAX_LISTED) lines.push(`... and ${stuck.length - MAX_LISTED} more NodeClaims`);
  return lines;
}

/**
 * The newest Warning event on each listed NodeClaim or Node, or Karpenter's (Normal)
 * `DisruptionBlocked` `Node isn't initialized`, when events were captured.
 */
function eventEvidence(ctx: DetectContext, stuck: readonly Stuck[]): string[] {
  const lines: string[] = [];
  for (const s of stuck.slice(0, MAX_LISTED)) {
    const events = [
      ...ctx.index.eventsFor('NodeClaim', undefined, s.subject.claim),
      ...(s.subject.node ? ctx.index.eventsFor('Node', undefined, s.subject.node) : []),
    ].filter((e) => e.type === 'Warning' || /initiali[sz]ed/i.test(e.message ?? ''));
    const newest = newestFirst(events)[0];
    if (newest)
      lines.push(`event on ${newest.regarding.kind} ${newest.regarding.name}: ${newest.reason ?? ''}: ${newest.message ?? ''}`);
  }
  return lines;
}
