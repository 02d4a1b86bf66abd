/**
 * The CloudWatch datums of one cluster scan (README "Metrics"). Pure: the scan puts them in one
 * call. Every per-cluster datum carries `Cluster`; a count the scan could not know (its source was
 * not read) is left out rather than sent as 0, so a blind scan never draws a healthy graph —
 * `ScanGaps` says what was missing.
 */
import { SEVERITIES } from '../domain/codes.ts';
import type { Finding } from '../domain/finding.ts';
import { ageMs, conditionOf } from '../domain/kube-helpers.ts';
import type { Pod } from '../domain/kube.ts';
import { METRIC, type MetricDatum, type MetricUnit } from '../domain/metric.ts';
import type { Report } from '../domain/report.ts';
import type { ClusterSnapshot, SourceName } from '../domain/snapshot.ts';
import { NODEPOOL_TAG } from '../domain/tags.ts';
import type { Detector } from '../detectors/detector.ts';
import { nodeClaimLaunchFailed } from '../detectors/nodeclaim-launch-failed.ts';
import { nodeClaimNotRegistered } from '../detectors/nodeclaim-not-registered.ts';
import { orphanedInstance } from '../detectors/orphaned-instance.ts';
import { isUnboundPending } from '../detectors/support/pending.ts';
import { SnapshotIndex } from '../snapshot/snapshot-index.ts';

export interface ScanMetricsInput {
  cluster: string;
  snapshot: ClusterSnapshot;
  report: Report;
  durationMs: number;
  now: Date;
}

export function scanMetrics(input: ScanMetricsInput): MetricDatum[] {
  const { cluster, snapshot, report } = input;
  const datums: MetricDatum[] = [];
  const add = (name: string, unit: MetricUnit, value: number, dimensions: Record<string, string> = {}) =>
    datums.push({ name, unit, value, dimensions: { Cluster: cluster, ...dimensions } });

  if (snapshot.captured.has('pods')) {
    const pending = snapshot.pods.filter(isUnboundPending);
    add(METRIC.pendingPods, 'Count', pending.length);
    add(METRIC.oldestPendingPodAge, 'Seconds', oldestAgeSeconds(pending, input.now));
  }

  const controllers = new SnapshotIndex(snapshot).controllers.filter((c) => c.deployment);
  // No controller Deployment: not captured, not installed, or EKS Auto Mode running Karpenter outside the cluster.
  if (controllers.length > 0) {
    add(
      METRIC.controllerReadyReplicas,
      'Count',
      controllers.reduce((n, c) => n + (c.deployment?.status?.readyReplicas ?? 0), 0),
    );
  }

  const counted: [Detector, string, (f: Finding) => number, (f: Finding) => string | undefined][] = [
    [nodeClaimNotRegistered, METRIC.unregisteredNodeClaims, unregisteredClaims, poolOfResource],
    [nodeClaimLaunchFailed, METRIC.launchFailedNodeClaims, launchFailedClaims, poolOfResource],
    [orphanedInstance, METRIC.orphanedInstances, () => 1, (f) => instancePool(f, snapshot)],
  ];
  for (const [detector, name, objects, poolOf] of counted) {
    if (!ran(detector, snapshot.captured)) continue;
    const findings = report.findings.filter((f) => f.code === detector.code);
    add(name, 'Count', sum(findings, objects));
    for (const [pool, n] of byPool(findings, objects, poolOf)) add(name, 'Count', n, { NodePool: pool });
  }

  for (const severity of SEVERITIES) add(METRIC.findings, 'Count', report.summary[severity], { Severity: severity });

  for (const [key, n] of remediationCounts(report.findings)) {
    const [action, outcome] = key.split('/') as [string, string];
    add(METRIC.remediations, 'Count', n, { Action: action, Outcome: outcome });
  }

  add(METRIC.scanDuration, 'Milliseconds', input.durationMs);
  add(METRIC.scanGaps, 'Count', report.gaps.length);

  // Account-wide, without `Cluster`: a CloudWatch alarm watches one metric (or metric math over
  // named metrics) and cannot SEARCH across every cluster's series, so the alarms on "nothing was
  // scanned" (ClustersScanned Sum < 1) and "scans have gaps" (ScanGaps Sum > 0) need these.
  datums.push({ name: METRIC.clustersScanned, unit: 'Count', value: 1, dimensions: {} });
  datums.push({ name: METRIC.scanGaps, unit: 'Count', value: report.gaps.length, dimensions: {} });
  return datums;
}

/** The engine's completeness rule (src/usecases/analyze.ts): did this detector run on this snapshot? */
function ran(detector: Detector, captured: ReadonlySet<SourceName>): boolean {
  if (!detector.requires.every((s) => captured.has(s))) return false;
  const anyOf = detector.anyOf;
  return anyOf === undefined ? detector.requires.length > 0 : anyOf.some((s) => captured.has(s));
}

/** Pending since creation (else since first found unschedulable), as the pending detectors count it. */
function oldestAgeSeconds(pods: readonly Pod[], now: Date): number {
  let oldest = 0;
  for (const p of pods) {
    const age = ageMs(p.metadata?.creationTimestamp ?? conditionOf(p, 'PodScheduled')?.lastTransitionTime, now);
    if (age !== undefined && age > oldest) oldest = age;
  }
  return Math.floor(oldest / 1000);
}

/**
 * NODECLAIM_NOT_REGISTERED groups a NodePool's stuck NodeClaims in one finding titled
 * `N NodeClaim(s) of NodePool X ...`. A finding from the NodePool's `NodeRegistrationHealthy=False`
 * alone (Karpenter already deleted the claims and is launching again) counts as one, so the series
 * does not drop to 0 in the middle of the relaunch loop.
 */
function unregisteredClaims(f: Finding): number {
  const n = /^(\d+) NodeClaims? of /.exec(f.title)?.[1];
  return n === undefined ? 1 : Math.max(1, Number(n));
}

/**
 * NODECLAIM_LAUNCH_FAILED groups a NodePool's failures of one cause; its first evidence line names
 * the NodeClaims (`3 failed launch reports for NodeClaims a, b, c`, at most 10 listed). A failure
 * known only from a NodePool condition or a log line without a NodeClaim counts as one.
 */
function launchFailedClaims(f: Finding): number {
  const names = /failed launch reports? for NodeClaims? (.+)$/.exec(f.evidence[0] ?? '')?.[1];
  return names === undefined ? 1 : names.split(', ').length;
}

function poolOfResource(f: Finding): string | undefined {
  return f.resource.kind === 'NodePool' ? f.resource.name : undefined;
}

function instancePool(f: Finding, snapshot: ClusterSnapshot): string | undefined {
  return snapshot.instances.find((i) => i.id === f.resource.id)?.tags[NODEPOOL_TAG];
}

function sum(findings: readonly Finding[], objects: (f: Finding) => number): number {
  return findings.reduce((n, f) => n + objects(f), 0);
}

/** Per-NodePool counts, only for pools with something to count (the Cluster total is always sent). */
function byPool(
  findings: readonly Finding[],
  objects: (f: Finding) => number,
  poolOf: (f: Finding) => string | undefined,
): Map<string, number> {
  const counts = new Map<string, number>();
  for (const f of findings) {
    const pool = poolOf(f);
    if (pool) counts.set(pool, (counts.get(pool) ?? 0) + objects(f));
  }
  return new Map([...counts].sort(([a], [b]) => a.localeCompare(b)));
}

/** Automated actions by outcome (`ROLLOUT_RESTART/applied`); manual fixes are not remediations the service runs. */
function remediationCounts(findings: readonly Finding[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const f of findings) {
    const r = f.remediation;
    if (!r || r.action === 'MANUAL') continue;
    const key = `${r.action}/${r.status}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}
