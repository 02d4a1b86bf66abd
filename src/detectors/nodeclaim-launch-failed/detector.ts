import { conditionOf, isoSeconds } from '../../domain/kube-helpers.ts';
import { manualRemediation, newFinding, type Finding } from '../../domain/finding.ts';
import type { NodeClaim } from '../../domain/kube.ts';
import type { DetectContext, Detector } from '../detector.ts';
import {
  classifyCloudError,
  isCloudLaunchFailure,
  isLaunchFailureCondition,
  LAUNCH_FAILURE_EVENT_REASONS,
  logText,
  objectNameField,
  stringField,
  trimError,
} from '../cloud-errors/cloud-errors.ts';
import { CAUSE_TITLE, explainLaunchFailure, type LaunchCause } from './launch-failure-fixes.ts';
import { nodePoolOfClaim } from '../../domain/tags.ts';
import { newestLogTime, stoppedRecurring } from '../karpenter/log-recency.ts';
import { conditionText } from '../karpenter/readiness.ts';

type Code = 'NODECLAIM_LAUNCH_FAILED';

/** One report of a failed launch, from a NodeClaim condition, an event, a log line or a NodePool. */
interface Occurrence {
  pool: string | undefined;
  nodeClaim: string | undefined;
  cause: LaunchCause;
  code: string | undefined;
  text: string;
  origin: string;
  time: string | undefined;
  /** From a controller log line (the only source that can describe the past rather than the present). */
  fromLog?: boolean;
}

/**
 * Sources: `Launched` not True with a cloud error, Karpenter's launch-failure events on NodeClaims,
 * controller log lines (`launching nodeclaim, creating instance, ...`), and a NodePool's
 * `NodeRegistrationHealthy=False` when Karpenter copied a launch failure into it (the NodeClaims
 * themselves are deleted after the launch timeout, so this is often the last trace). A failure
 * known only from log lines that stopped more than an hour before the newest line is over
 * (capacity came back, the permission was granted: see karpenter/log-recency.ts) and not reported.
 */
export const nodeClaimLaunchFailed: Detector<Code> = {
  code: 'NODECLAIM_LAUNCH_FAILED',
  requires: [],
  anyOf: ['nodeclaims', 'events', 'logs', 'nodepools'],
  refinedBy: ['ec2nodeclasses', 'cluster', 'deployments', 'pods'],
  detect(ctx) {
    // Asked only for names a claim, event or log line gives: the index's map, not a copy of it.
    const claims: ClaimsByName = ctx.index.nodeClaimsByName;
    const occurrences = refine(collect(ctx, claims));
    const groups = new Map<string, Occurrence[]>();
    for (const o of occurrences) {
      const key = `${o.pool ?? ''}\u0000${o.cause}`;
      const list = groups.get(key);
      if (list) list.push(o);
      else groups.set(key, [o]);
    }
    const newest = newestLogTime(ctx.snapshot.logs);
    const over = (g: Occurrence[]) =>
      g.every((o) => o.fromLog) &&
      stoppedRecurring(
        g.map((o) => o.time),
        newest,
      );
    return [...groups.values()].filter((g) => !over(g)).map((g) => findingFor(ctx, g, claims));
  },
};

type ClaimsByName = ReadonlyMap<string, NodeClaim>;

function collect(ctx: DetectContext, claims: ClaimsByName): Occurrence[] {
  const s = ctx.snapshot;
  const poolOfClaim = (name: string | undefined): string | undefined => {
    if (!name) return undefined;
    const nc = claims.get(name);
    if (nc) return nodePoolOfClaim(nc);
    // Karpenter names NodeClaims `<nodepool>-<5 random>`; trust that only for a NodePool we know.
    const guess = name.replace(/-[a-z0-9]{5}$/, '');
    return guess !== name && ctx.index.nodePoolsByName.has(guess) ? guess : undefined;
  };
  const out: Occurrence[] = [];
  for (const nc of s.nodeClaims) {
    const launched = conditionOf(nc, 'Launched');
    if (!launched || launched.status === 'True' || !isLaunchFailureCondition(launched)) continue;
    const name = nc.metadata?.name;
    const text = conditionText(launched);
    const origin = `NodeClaim ${name} Launched=${launched.status}`;
    out.push({
      ...classified(text),
      pool: nodePoolOfClaim(nc),
      nodeClaim: name,
      text,
      origin,
      time: launched.lastTransitionTime ?? nc.metadata?.creationTimestamp,
    });
  }
  for (const e of s.events) {
    if (e.regarding.kind !== 'NodeClaim') continue;
    const text = e.message ?? '';
    const known = classifyCloudError(text);
    if (!known && !LAUNCH_FAILURE_EVENT_REASONS.has(e.reason ?? '')) continue;
    const fallback: LaunchCause = e.reason === 'InsufficientCapacityError' ? 'INSUFFICIENT_CAPACITY' : 'UNKNOWN';
    const name = e.regarding.name;
    out.push({
      cause: known?.cause ?? fallback,
      code: known?.code ?? e.reason,
      pool: poolOfClaim(name),
      nodeClaim: name,
      text,
      origin: `event ${e.reason || '(no reason)'} on NodeClaim ${name}`,
      time: e.firstTime ?? e.lastTime,
    });
  }
  for (const line of s.logs) {
    if (!isCloudLaunchFailure(line)) continue;
    const text = line.error ?? line.message;
    const name =
      objectNameField(line, 'NodeClaim', 'nodeclaim', 'machine') ??
      (stringField(line, 'controllerKind') === 'NodeClaim' ? stringField(line, 'name') : undefined);
    const pool = objectNameField(line, 'NodePool', 'nodepool', 'provisioner') ?? poolOfClaim(name);
    out.push({ ...classified(logText(line)), pool, nodeClaim: name, text, origin: line.origin, time: line.time, fromLog: true });
  }
  for (const np of s.nodePools) {
    const health = conditionOf(np, 'NodeRegistrationHealthy');
    if (health?.status !== 'False' || !isLaunchFailureCondition(health)) continue;
    const text = conditionText(health);
    const name = np.metadata?.name;
    out.push({
      ...classified(text),
      pool: name,
      nodeClaim: undefined,
      text,
      origin: `NodePool ${name} NodeRegistrationHealthy=False`,
      time: health.lastTransitionTime,
    });
  }
  return out;
}

function classified(text: string): { cause: LaunchCause; code: string | undefined } {
  const known = classifyCloudError(text);
  return known ? { cause: known.cause, code: known.code } : { cause: 'UNKNOWN', code: /^([A-Z][A-Za-z]+):/.exec(text)?.[1] };
}

/**
 * Since v1.1 a NodeClaim's `Launched` message is generic ("Instance launch failed") while the log
 * line for the same NodeClaim has the AWS error: a specific report replaces the vague one.
 */
function refine(all: Occurrence[]): Occurrence[] {
  const specificClaims = new Set(all.filter((o) => o.cause !== 'UNKNOWN' && o.nodeClaim).map((o) => o.nodeClaim));
  const specificPools = new Set(all.filter((o) => o.cause !== 'UNKNOWN').map((o) => o.pool));
  return all.filter(
    (o) => o.cause !== 'UNKNOWN' || (o.nodeClaim ? !specificClaims.has(o.nodeClaim) : !specificPools.has(o.pool)),
  );
}

const MAX_QUOTED = 5;

function findingFor(ctx: DetectContext, occ: Occurrence[], claims: ClaimsByName): Finding<Code> {
  const first = occ[0] as Occurrence;
  const { pool: poolName } = first;
  const sorted = [...occ].sort((a, b) => (Date.parse(a.time ?? '') || Infinity) - (Date.parse(b.time ?? '') || Infinity));
  const nodeClaims = [...new Set(sorted.flatMap((o) => (o.nodeClaim ? [o.nodeClaim] : [])))];
  const pool = poolName ? ctx.index.nodePoolsByName.get(poolName) : undefined;
  const claim = nodeClaims.map((n) => claims.get(n)).find((c) => c);
  const nodeClass = pool?.spec?.template?.spec?.nodeClassRef?.name ?? claim?.spec?.nodeClassRef?.name;
  const codes = [...new Set(occ.flatMap((o) => (o.code ? [o.code] : [])))];
  const explained = explainLaunchFailure(ctx, {
    cause: first.cause,
    pool,
    poolName,
    nodeClass,
    nodeClaims,
    texts: sorted.map((o) => o.text),
    codes,
  });

  const cause = explained.cause ?? first.cause;
  const distinct = new Map<string, { origin: string; count: number }>();
  for (const o of sorted) {
    const key = trimError(o.text);
    const seen = distinct.get(key);
    if (seen) seen.count += 1;
    else distinct.set(key, { origin: o.origin, count: 1 });
  }
  const quoted = [...distinct.entries()]
    .slice(0, MAX_QUOTED)
    .map(([text, d]) => `${d.origin}: ${text}${d.count > 1 ? ` (${d.count} times)` : ''}`);
  const evidence = [
    `${occ.length} failed launch report${occ.length > 1 ? 's' : ''}${nodeClaims.length ? ` for NodeClaim${nodeClaims.length > 1 ? 's' : ''} ${nodeClaims.slice(0, 10).join(', ')}` : ''}`,
    ...quoted,
    ...(distinct.size > MAX_QUOTED ? [`... and ${distinct.size - MAX_QUOTED} other messages`] : []),
  ];
  return newFinding({
    code: 'NODECLAIM_LAUNCH_FAILED',
    severity: 'warning',
    title: `${poolName ? `NodePool ${poolName}` : 'Karpenter'} cannot launch nodes: ${CAUSE_TITLE[cause]}`,
    resource: poolName ? { kind: 'NodePool', name: poolName } : { kind: 'Cluster', name: ctx.snapshot.clusterName },
    since: isoSeconds(sorted.find((o) => o.time)?.time),
    cause: { code: cause, detail: explained.detail },
    evidence,
    remediation: manualRemediation(explained.steps),
    discriminator: first.cause,
    // The NodeClaims named by the reports (the evidence lists only 10); a failure known only from a
    // NodePool condition or a log line without a NodeClaim counts as one.
    counts: { objects: Math.max(1, nodeClaims.length), ...(poolName ? { nodePool: poolName } : {}) },
  });
}
