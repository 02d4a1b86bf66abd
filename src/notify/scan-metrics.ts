/**
 * The CloudWatch datums of one cluster scan (docs/service.md, "Metrics"). Pure: the scan puts them in one
 * call. Every per-cluster datum carries `Cluster`; a count the scan could not know (its source was
 * not read) is left out rather than sent as 0, so a blind scan never draws a healthy graph —
 * `ScanGaps` says what was missing.
 */
import { SEVERITIES } from '../domain/codes.ts';
import { FINDING_METRIC_DIMENSIONS, FINDING_METRICS } from '../domain/finding-catalogue.ts';
import type { Finding } from '../domain/finding.ts';
import { ageMs, conditionOf, isUnboundPending } from '../domain/kube-helpers.ts';
import type { Pod } from '../domain/kube.ts';
import { METRIC, type MetricDatum, type MetricUnit } from '../domain/metric.ts';
import type { Report } from '../domain/report.ts';
import type { ClusterSnapshot, SourceName } from '../domain/snapshot.ts';
import { detectorRuns } from '../detectors/registry.ts';
import { controllersOf } from '../domain/snapshot-index.ts';

export interface ScanMetricsInput {
  cluster: string;
  snapshot: ClusterSnapshot;
  report: Report;
  durationMs: number;
  now: Date;
}

/** The sources whose objects findings price (src/detectors/karpenter/priced-instances.ts). */
const PRICED_SOURCES: readonly SourceName[] = ['instances', 'nodeclaims', 'nodes'];

type AddDatum = (name: string, unit: MetricUnit, value: number, dimensions?: Record<string, string>) => void;

/** Datums into `datums`, each with the cluster's dimension. */
function adder(cluster: string, datums: MetricDatum[]): AddDatum {
  return (name, unit, value, dimensions = {}) =>
    datums.push({ name, unit, value, dimensions: { Cluster: cluster, ...dimensions } });
}

// The metric of each finding code that has one (src/domain/finding-catalogue.ts). Each finding says
// how many objects it stands for and their NodePool (Finding.counts, set by the detector): the
// series follow the detector's own grouping without re-reading the snapshot.
type CountedMetric = (typeof FINDING_METRICS)[number];

// The dimension of the per-pool series; `Cluster` the adder puts on every datum.
const [, [, POOL_DIMENSION]] = FINDING_METRIC_DIMENSIONS;

function addCounted(add: AddDatum, counted: readonly CountedMetric[], snapshot: ClusterSnapshot, report: Report): void {
  for (const { code, name, unit } of counted) {
    if (!detectorRuns(code, snapshot.captured)) continue;
    const findings = report.findings.filter((f) => f.code === code);
    add(name, unit, sum(findings));
    for (const [pool, n] of byPool(findings)) add(name, unit, n, { [POOL_DIMENSION]: pool });
  }
}

/** Findings by severity and automated actions by outcome. */
function addOutcomes(add: AddDatum, report: Report): void {
  for (const severity of SEVERITIES) add(METRIC.findings, 'Count', report.summary[severity], { Severity: severity });
  for (const [key, n] of remediationCounts(report.findings)) {
    const [action, outcome] = key.split('/') as [string, string];
    add(METRIC.remediations, 'Count', n, { Action: action, Outcome: outcome });
  }
}

/**
 * What the priced findings cost a day (docs/cost.md), 0 when none is. Only when the scan read what
 * is priced (instances, NodeClaims or nodes) and none of it has a gap: a scan blind to some of
 * them knows of no waste, not of none.
 */
function addWaste(add: AddDatum, snapshot: ClusterSnapshot, report: Report): void {
  const read = PRICED_SOURCES.some((source) => snapshot.captured.has(source));
  const blind = snapshot.gaps.some((gap) => PRICED_SOURCES.includes(gap.source));
  if (read && !blind) add(METRIC.estimatedWaste, 'None', report.cost?.perDayUsd ?? 0);
}

export function scanMetrics(input: ScanMetricsInput): MetricDatum[] {
  const { cluster, snapshot, report } = input;
  const datums: MetricDatum[] = [];
  const add = adder(cluster, datums);

  if (snapshot.captured.has('pods')) {
    const pending = snapshot.pods.filter(isUnboundPending);
    add(METRIC.pendingPods, 'Count', pending.length);
    add(METRIC.oldestPendingPodAge, 'Seconds', oldestAgeSeconds(pending, input.now));
  }

  const controllers = controllersOf(snapshot).filter((c) => c.deployment);
  // No controller Deployment: not captured, not installed, or EKS Auto Mode running Karpenter outside the cluster.
  if (controllers.length > 0) {
    add(
      METRIC.controllerReadyReplicas,
      'Count',
      controllers.reduce((n, c) => n + (c.deployment?.status?.readyReplicas ?? 0), 0),
    );
  }

  addCounted(add, FINDING_METRICS, snapshot, report);

  // Restarts of the controller's containers as kubelet counts them (the sum over its pods).
  if (controllers.some((c) => c.pods.length > 0)) {
    add(
      METRIC.controllerRestarts,
      'Count',
      controllers.flatMap((c) => c.pods).reduce((n, p) => n + restartsOf(p), 0),
    );
  }

  // Free addresses of every subnet the EC2NodeClasses launch into: the series that shows a subnet draining.
  if (snapshot.captured.has('subnets')) {
    for (const subnet of snapshot.subnets) {
      if (subnet.availableIpAddressCount === undefined) continue;
      add(METRIC.subnetFreeAddresses, 'Count', subnet.availableIpAddressCount, { Subnet: subnet.id });
    }
  }

  addOutcomes(add, report);

  addWaste(add, snapshot, report);

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

function restartsOf(pod: Pod): number {
  return (pod.status?.containerStatuses ?? []).reduce((n, c) => n + (c.restartCount ?? 0), 0);
}

/** How many objects (NodeClaims, instances) one finding stands for: one when the detector did not say. */
function objects(f: Finding): number {
  return f.counts?.objects ?? 1;
}

function sum(findings: readonly Finding[]): number {
  return findings.reduce((n, f) => n + objects(f), 0);
}

/** Per-NodePool counts, only for pools with something to count (the Cluster total is always sent). */
function byPool(findings: readonly Finding[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const f of findings) {
    const pool = f.counts?.nodePool;
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

/**
 * A cluster that does not exist: ClustersNotFound per cluster and account-wide (its alarm), plus
 * what an EC2 reading still tells of it: the instances tagged for it (OrphanedInstances) and what
 * they cost (EstimatedWasteUsdPerDay), the findings and what was done to them. No Kubernetes gauge, no ClustersScanned.
 */
export function notFoundMetrics(input: Pick<ScanMetricsInput, 'cluster' | 'snapshot' | 'report'>): MetricDatum[] {
  const { cluster, snapshot, report } = input;
  const datums: MetricDatum[] = [];
  const add = adder(cluster, datums);
  const orphans = FINDING_METRICS.filter((m) => m.code === 'ORPHANED_INSTANCE');
  addCounted(add, orphans, snapshot, report);
  addOutcomes(add, report);
  addWaste(add, snapshot, report);
  return [...datums, ...clustersNotFound([cluster])];
}

/** ClustersNotFound, 1 per cluster (dashboard) and their count account-wide (the alarm). */
function clustersNotFound(clusters: readonly string[]): MetricDatum[] {
  if (clusters.length === 0) return [];
  return [
    ...clusters.map((cluster): MetricDatum => ({
      name: METRIC.clustersNotFound,
      unit: 'Count',
      value: 1,
      dimensions: { Cluster: cluster },
    })),
    { name: METRIC.clustersNotFound, unit: 'Count', value: clusters.length, dimensions: {} },
  ];
}
