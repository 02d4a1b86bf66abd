/**
 * The CloudWatch datums of one cluster scan (docs/service.md, "Metrics"). Pure: the scan puts them in one
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
import type { DetectionSettings } from '../domain/settings.ts';
import type { ClusterSnapshot } from '../domain/snapshot.ts';
import { NODEPOOL_TAG } from '../domain/tags.ts';
import { detectorVerdict, type DetectContext, type Detector } from '../detectors/detector.ts';
import {
  collect as launchFailureReports,
  nodeClaimLaunchFailed,
  refine as refineLaunchFailureReports,
} from '../detectors/nodeclaim-launch-failed.ts';
import { groupByPool as unregisteredByPool, nodeClaimNotRegistered } from '../detectors/nodeclaim-not-registered.ts';
import { orphanedInstance } from '../detectors/orphaned-instance.ts';
import { isUnboundPending } from '../detectors/support/pending.ts';
import { SnapshotIndex } from '../domain/snapshot-index.ts';

export interface ScanMetricsInput {
  cluster: string;
  snapshot: ClusterSnapshot;
  report: Report;
  durationMs: number;
  now: Date;
  /** What the report was detected with: the NodeClaim counts list what the detectors grouped. */
  detection: DetectionSettings;
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

  const index = new SnapshotIndex(snapshot);
  const controllers = index.controllers.filter((c) => c.deployment);
  // No controller Deployment: not captured, not installed, or EKS Auto Mode running Karpenter outside the cluster.
  if (controllers.length > 0) {
    add(
      METRIC.controllerReadyReplicas,
      'Count',
      controllers.reduce((n, c) => n + (c.deployment?.status?.readyReplicas ?? 0), 0),
    );
  }

  const ctx: DetectContext = { snapshot, index, settings: input.detection, now: input.now };
  const counted: [Detector, string, (ctx: DetectContext) => ObjectsOf, (f: Finding) => string | undefined][] = [
    [nodeClaimNotRegistered, METRIC.unregisteredNodeClaims, unregisteredClaims, poolOfResource],
    [nodeClaimLaunchFailed, METRIC.launchFailedNodeClaims, launchFailedClaims, poolOfResource],
    [
      orphanedInstance,
      METRIC.orphanedInstances,
      () => () => 1,
      (f) => index.instancesById.get(f.resource.id ?? '')?.tags[NODEPOOL_TAG],
    ],
  ];
  for (const [detector, name, countOf, poolOf] of counted) {
    if (!detectorVerdict(detector, snapshot.captured).run) continue;
    const findings = report.findings.filter((f) => f.code === detector.code);
    // Listing what is behind the findings re-reads the snapshot: only when there are findings.
    const objects = findings.length > 0 ? countOf(ctx) : () => 0;
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

/** Pending since creation (else since first found unschedulable), as the pending detectors count it. */
function oldestAgeSeconds(pods: readonly Pod[], now: Date): number {
  let oldest = 0;
  for (const p of pods) {
    const age = ageMs(p.metadata?.creationTimestamp ?? conditionOf(p, 'PodScheduled')?.lastTransitionTime, now);
    if (age !== undefined && age > oldest) oldest = age;
  }
  return Math.floor(oldest / 1000);
}

/** How many objects (NodeClaims, instances) one finding stands for. */
type ObjectsOf = (f: Finding) => number;

/**
 * NODECLAIM_NOT_REGISTERED makes one finding per NodePool; it stands for the NodeClaims the detector
 * grouped there. A finding from the NodePool's `NodeRegistrationHealthy=False` alone (Karpenter
 * already deleted the claims and is launching again) counts as one, so the series does not drop to 0
 * in the middle of the relaunch loop.
 */
function unregisteredClaims(ctx: DetectContext): ObjectsOf {
  const groups = unregisteredByPool(ctx);
  return (f) => Math.max(1, groups.get(poolOfResource(f) ?? '')?.stuck.length ?? 0);
}

/**
 * NODECLAIM_LAUNCH_FAILED makes one finding per NodePool and cause; it stands for the NodeClaims
 * named by the detector's failure reports of that pool and cause (its evidence lists only 10). A
 * failure known only from a NodePool condition or a log line without a NodeClaim counts as one.
 */
function launchFailedClaims(ctx: DetectContext): ObjectsOf {
  const claims = new Map(ctx.snapshot.nodeClaims.map((nc) => [nc.metadata?.name ?? '', nc]));
  const key = (pool: string | undefined, cause: string | undefined) => `${pool ?? ''}\u0000${cause ?? ''}`;
  const names = new Map<string, Set<string>>();
  for (const r of refineLaunchFailureReports(launchFailureReports(ctx, claims))) {
    const k = key(r.pool, r.cause);
    if (r.nodeClaim) names.set(k, (names.get(k) ?? new Set<string>()).add(r.nodeClaim));
  }
  return (f) => names.get(key(poolOfResource(f), f.cause?.code))?.size ?? 1;
}

function poolOfResource(f: Finding): string | undefined {
  return f.resource.kind === 'NodePool' ? f.resource.name : undefined;
}

function sum(findings: readonly Finding[], objects: ObjectsOf): number {
  return findings.reduce((n, f) => n + objects(f), 0);
}

/** Per-NodePool counts, only for pools with something to count (the Cluster total is always sent). */
function byPool(
  findings: readonly Finding[],
  objects: ObjectsOf,
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
