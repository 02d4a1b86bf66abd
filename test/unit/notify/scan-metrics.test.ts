import { describe, expect, it } from 'vitest';
import type { MetricDatum } from '../../../src/domain/metric.ts';
import { newFinding } from '../../../src/domain/finding.ts';
import { buildReport, type Report } from '../../../src/domain/report.ts';
import { CLI_ACTIONS, DEFAULT_DETECTION } from '../../../src/domain/settings.ts';
import type { ClusterSnapshot, Gap } from '../../../src/domain/snapshot.ts';
import { notFoundMetrics, scanMetrics } from '../../../src/notify/scan-metrics.ts';
import { analyze } from '../../../src/usecases/analyze.ts';
import { instance, karpenterSnapshotOf, snapshotOf, subnet } from '../../factories/aws.ts';
import { nodeClaim, nodePool, unregisteredConditions } from '../../factories/karpenter.ts';
import { T0, condition, karpenterDeployment, karpenterPod, minutesAfter, node, pod } from '../../factories/kube.ts';

const NOW = new Date(minutesAfter(T0, 30));
const CLUSTER = 'demo';

const CAPACITY =
  'creating instance, insufficient capacity, with fleet error(s), InsufficientInstanceCapacity: We currently do not have sufficient m5.large capacity in the Availability Zone you requested (us-east-1a).';

function launchFailed(name: string) {
  return nodeClaim({
    name,
    nodePool: 'spot',
    conditions: [
      condition('Launched', 'False', { reason: 'LaunchFailed', message: CAPACITY, lastTransitionTime: minutesAfter(T0, 5) }),
    ],
  });
}

/**
 * Three Pending pods (two controller pods since T0, a workload pod for 10m; a pod on a node pulling
 * its image is not waiting for capacity), a controller with 0 of 2 ready, three NodeClaims of
 * NodePool default that never registered, two NodeClaims of NodePool spot that failed to launch,
 * two orphaned instances.
 */
function troubledCluster(): ClusterSnapshot {
  return karpenterSnapshotOf(
    {
      pods: [
        karpenterPod({ name: 'karpenter-5697769d6c-abcde', createdAt: T0 }),
        karpenterPod({ name: 'karpenter-5697769d6c-fghij', createdAt: minutesAfter(T0, 2) }),
        pod({ name: 'web-7d9f8-x2x2x', namespace: 'shop', createdAt: minutesAfter(T0, 20) }),
        pod({
          name: 'api-5c6d7-k8k8k',
          namespace: 'shop',
          nodeName: 'ip-10-0-1-5.ec2.internal',
          phase: 'Pending',
          createdAt: T0,
        }),
        pod({ name: 'db-0', namespace: 'shop', nodeName: 'ip-10-0-1-5.ec2.internal', createdAt: T0 }),
      ],
      deployments: [karpenterDeployment({ replicas: 2, readyReplicas: 0 })],
      nodes: [node({ name: 'ip-10-0-1-5.ec2.internal', providerID: 'aws:///us-east-1a/i-0feedfacefeedface' })],
      nodeClaims: [
        nodeClaim({
          name: 'default-aaaaa',
          nodePool: 'default',
          instanceId: 'i-0a000000000000001',
          conditions: unregisteredConditions(T0),
        }),
        nodeClaim({
          name: 'default-bbbbb',
          nodePool: 'default',
          instanceId: 'i-0a000000000000002',
          conditions: unregisteredConditions(T0),
        }),
        nodeClaim({
          name: 'default-ccccc',
          nodePool: 'default',
          instanceId: 'i-0a000000000000003',
          conditions: unregisteredConditions(T0),
        }),
        launchFailed('spot-ddddd'),
        launchFailed('spot-eeeee'),
      ],
      nodePools: [nodePool({ name: 'default' }), nodePool({ name: 'spot' }), nodePool({ name: 'batch' })],
      instances: [
        instance({ id: 'i-0a000000000000001', nodePool: 'default' }),
        instance({ id: 'i-0a000000000000002', nodePool: 'default' }),
        instance({ id: 'i-0a000000000000003', nodePool: 'default' }),
        instance({ id: 'i-0b000000000000001', nodePool: 'default' }),
        instance({ id: 'i-0b000000000000002', nodePool: 'batch' }),
      ],
    },
    CLUSTER,
  );
}

function analysed(snapshot: ClusterSnapshot): Report {
  return analyze(snapshot, { detection: DEFAULT_DETECTION, actions: CLI_ACTIONS, now: NOW });
}

/** The one datum with this name and exactly these dimensions. */
function datum(
  datums: MetricDatum[],
  name: string,
  dimensions: Record<string, string> = { Cluster: CLUSTER },
): MetricDatum | undefined {
  const matching = datums.filter(
    (d) => d.name === name && JSON.stringify(sorted(d.dimensions)) === JSON.stringify(sorted(dimensions)),
  );
  expect(matching.length).toBeLessThanOrEqual(1);
  return matching[0];
}

function sorted(r: Record<string, string>): [string, string][] {
  return Object.entries(r).sort(([a], [b]) => a.localeCompare(b));
}

describe('notFoundMetrics', () => {
  it('a cluster that does not exist: its EC2-based series (orphans, their cost, findings, remediations) and ClustersNotFound, nothing else', () => {
    const snapshot = troubledCluster();
    const report = analysed(snapshot);
    const scanned = scanMetrics({ cluster: CLUSTER, snapshot, report, durationMs: 1834, now: NOW });

    const datums = notFoundMetrics({ cluster: CLUSTER, snapshot, report });

    const kept = new Set(['OrphanedInstances', 'EstimatedWasteUsdPerDay', 'Findings', 'Remediations']);
    expect(datums).toEqual([
      ...scanned.filter((d) => kept.has(d.name)),
      { name: 'ClustersNotFound', unit: 'Count', value: 1, dimensions: { Cluster: CLUSTER } },
      { name: 'ClustersNotFound', unit: 'Count', value: 1, dimensions: {} },
    ]);
    expect(datum(datums, 'OrphanedInstances')?.value).toBe(2);
  });
});

describe('scanMetrics on a troubled cluster', () => {
  const snapshot = troubledCluster();
  const report = analysed(snapshot);
  const datums = scanMetrics({ cluster: CLUSTER, snapshot, report, durationMs: 1834, now: NOW });

  it("counts the Pending pods waiting for capacity and the oldest one's age in seconds", () => {
    expect(datum(datums, 'PendingPods')).toEqual({
      name: 'PendingPods',
      unit: 'Count',
      value: 3,
      dimensions: { Cluster: 'demo' },
    });
    expect(datum(datums, 'OldestPendingPodAgeSeconds')).toMatchObject({ unit: 'Seconds', value: 1800 });
  });

  it("reports the controller Deployment's ready replicas", () => {
    expect(datum(datums, 'ControllerReadyReplicas')).toMatchObject({ unit: 'Count', value: 0 });
  });

  it('counts NodeClaims, not findings, per cluster and per NodePool', () => {
    // the detectors group: one finding per NodePool (and cause)
    expect(report.findings.filter((f) => f.code === 'NODECLAIM_NOT_REGISTERED')).toHaveLength(1);
    expect(report.findings.filter((f) => f.code === 'NODECLAIM_LAUNCH_FAILED')).toHaveLength(1);

    expect(datum(datums, 'UnregisteredNodeClaims')).toMatchObject({ unit: 'Count', value: 3 });
    expect(datum(datums, 'UnregisteredNodeClaims', { Cluster: 'demo', NodePool: 'default' })?.value).toBe(3);
    expect(datum(datums, 'LaunchFailedNodeClaims')).toMatchObject({ unit: 'Count', value: 2 });
    expect(datum(datums, 'LaunchFailedNodeClaims', { Cluster: 'demo', NodePool: 'spot' })?.value).toBe(2);
  });

  it('counts orphaned instances, per NodePool from their tags', () => {
    expect(datum(datums, 'OrphanedInstances')).toMatchObject({ unit: 'Count', value: 2 });
    expect(datum(datums, 'OrphanedInstances', { Cluster: 'demo', NodePool: 'default' })?.value).toBe(1);
    expect(datum(datums, 'OrphanedInstances', { Cluster: 'demo', NodePool: 'batch' })?.value).toBe(1);
  });

  it('counts findings by severity, zeros included', () => {
    for (const severity of ['critical', 'warning', 'info'] as const) {
      expect(datum(datums, 'Findings', { Cluster: 'demo', Severity: severity })).toMatchObject({
        unit: 'Count',
        value: report.summary[severity],
      });
    }
    expect(report.summary.critical).toBeGreaterThan(0);
  });

  it('counts automated remediations by action and outcome, never manual fixes', () => {
    const remediations = datums.filter((d) => d.name === 'Remediations');
    expect(remediations).toContainEqual({
      name: 'Remediations',
      unit: 'Count',
      value: 2,
      dimensions: { Cluster: 'demo', Action: 'TERMINATE_INSTANCE', Outcome: 'planned' },
    });
    expect(remediations.every((d) => d.dimensions.Action !== 'MANUAL')).toBe(true);
  });

  it('reports the scan duration and gaps, and the account-wide datums without Cluster', () => {
    expect(datum(datums, 'ScanDurationMs')).toMatchObject({ unit: 'Milliseconds', value: 1834 });
    expect(datum(datums, 'ScanGaps')).toMatchObject({ unit: 'Count', value: 0 });
    expect(datum(datums, 'ClustersScanned', {})).toEqual({ name: 'ClustersScanned', unit: 'Count', value: 1, dimensions: {} });
    expect(datum(datums, 'ScanGaps', {})).toMatchObject({ unit: 'Count', value: 0 });
  });

  it('carries Cluster on every datum but the two account-wide ones', () => {
    const withoutCluster = datums.filter((d) => d.dimensions.Cluster === undefined).map((d) => d.name);
    expect(withoutCluster.sort()).toEqual(['ClustersScanned', 'ScanGaps']);
    expect(datums.every((d) => d.dimensions.Cluster === undefined || d.dimensions.Cluster === 'demo')).toBe(true);
  });
});

describe('scanMetrics on many failed launches', () => {
  it('counts every NodeClaim of the finding, not only the 10 its evidence lists', () => {
    const names = Array.from({ length: 12 }, (_, i) => `spot-${String(i).padStart(5, 'a')}`);
    const snapshot = snapshotOf({ nodeClaims: names.map(launchFailed), nodePools: [nodePool({ name: 'spot' })] }, CLUSTER);
    const report = analysed(snapshot);

    const datums = scanMetrics({ cluster: CLUSTER, snapshot, report, durationMs: 10, now: NOW });

    expect(report.findings.filter((f) => f.code === 'NODECLAIM_LAUNCH_FAILED')).toHaveLength(1);
    expect(datum(datums, 'LaunchFailedNodeClaims')?.value).toBe(12);
    expect(datum(datums, 'LaunchFailedNodeClaims', { Cluster: 'demo', NodePool: 'spot' })?.value).toBe(12);
  });
});

describe('scanMetrics on a healthy cluster', () => {
  it('sends zeros for what it could count and the ready replicas', () => {
    const snapshot = snapshotOf(
      {
        pods: [karpenterPod({ name: 'karpenter-5697769d6c-abcde', nodeName: 'ip-10-0-1-5.ec2.internal' })],
        deployments: [karpenterDeployment({ replicas: 2, readyReplicas: 2 })],
        nodeClaims: [],
        nodePools: [nodePool({ name: 'default' })],
        instances: [],
      },
      CLUSTER,
    );

    const datums = scanMetrics({
      cluster: CLUSTER,
      snapshot,
      report: analysed(snapshot),
      durationMs: 900,
      now: NOW,
    });

    expect(datum(datums, 'PendingPods')?.value).toBe(0);
    expect(datum(datums, 'OldestPendingPodAgeSeconds')?.value).toBe(0);
    expect(datum(datums, 'ControllerReadyReplicas')?.value).toBe(2);
    expect(datum(datums, 'UnregisteredNodeClaims')?.value).toBe(0);
    expect(datum(datums, 'LaunchFailedNodeClaims')?.value).toBe(0);
    expect(datum(datums, 'OrphanedInstances')?.value).toBe(0);
    expect(datum(datums, 'EstimatedWasteUsdPerDay')).toEqual({
      name: 'EstimatedWasteUsdPerDay',
      unit: 'None',
      value: 0,
      dimensions: { Cluster: CLUSTER },
    });
    expect(datums.filter((d) => d.dimensions.NodePool !== undefined)).toEqual([]);
    expect(datums.filter((d) => d.name === 'Remediations')).toEqual([]);
  });
});

describe('scanMetrics on what it could not read', () => {
  it('omits the controller datum without a controller Deployment (EKS Auto Mode)', () => {
    const snapshot = snapshotOf({ pods: [], deployments: [] }, CLUSTER);

    const datums = scanMetrics({
      cluster: CLUSTER,
      snapshot,
      report: analysed(snapshot),
      durationMs: 10,
      now: NOW,
    });

    expect(datum(datums, 'ControllerReadyReplicas')).toBeUndefined();
    expect(datum(datums, 'PendingPods')?.value).toBe(0);
  });

  it('leaves out counts whose sources were not read, and reports the gaps per cluster and account-wide', () => {
    // Prepare: NodeClaims forbidden; instances read
    const snapshot = snapshotOf({ instances: [instance({ id: 'i-0b000000000000001' })] }, CLUSTER);
    const gaps: Gap[] = [
      { source: 'nodeclaims', error: '403 Forbidden' },
      { source: 'pods', error: '403 Forbidden' },
    ];
    snapshot.gaps = gaps;
    const report = buildReport({ cluster: CLUSTER, now: NOW, gaps, findings: [] });

    // Act
    const datums = scanMetrics({ cluster: CLUSTER, snapshot, report, durationMs: 10, now: NOW });

    // Assess
    for (const name of [
      'PendingPods',
      'OldestPendingPodAgeSeconds',
      'UnregisteredNodeClaims',
      'LaunchFailedNodeClaims',
      'OrphanedInstances',
      // Instances were read, NodeClaims not: orphans could not be told, so neither could their cost.
      'EstimatedWasteUsdPerDay',
    ]) {
      expect(datums.filter((d) => d.name === name)).toEqual([]);
    }
    expect(datum(datums, 'ScanGaps')?.value).toBe(2);
    expect(datum(datums, 'ScanGaps', {})?.value).toBe(2);
  });

  it('counts a NodePool that reports failed registrations with no NodeClaim left as one', () => {
    const unhealthy = condition('NodeRegistrationHealthy', 'False', {
      reason: 'RegistrationFailed',
      message: 'Failed to register node',
      lastTransitionTime: minutesAfter(T0, 15),
    });
    const snapshot = snapshotOf({ nodeClaims: [], nodePools: [nodePool({ name: 'default', conditions: [unhealthy] })] }, CLUSTER);
    const report = analysed(snapshot);
    expect(report.findings.filter((f) => f.code === 'NODECLAIM_NOT_REGISTERED')).toHaveLength(1);

    const datums = scanMetrics({ cluster: CLUSTER, snapshot, report, durationMs: 10, now: NOW });

    expect(datum(datums, 'UnregisteredNodeClaims')?.value).toBe(1);
  });
});

describe('scanMetrics reads the counts on the findings', () => {
  it('sums Finding.counts per cluster and NodePool, whatever the snapshot holds', () => {
    const snapshot = snapshotOf({ nodeClaims: [], nodePools: [] }, CLUSTER);
    const finding = (pool: string, objects: number) =>
      newFinding({
        code: 'NODECLAIM_NOT_REGISTERED',
        severity: 'critical',
        title: `NodePool ${pool}`,
        resource: { kind: 'NodePool', name: pool },
        since: null,
        cause: null,
        evidence: [],
        remediation: null,
        counts: { objects, nodePool: pool },
      });
    const report = buildReport({ cluster: CLUSTER, now: NOW, gaps: [], findings: [finding('b', 3), finding('a', 4)] });

    const datums = scanMetrics({ cluster: CLUSTER, snapshot, report, durationMs: 10, now: NOW });

    expect(datum(datums, 'UnregisteredNodeClaims')?.value).toBe(7);
    expect(datum(datums, 'UnregisteredNodeClaims', { Cluster: CLUSTER, NodePool: 'a' })?.value).toBe(4);
    expect(datum(datums, 'UnregisteredNodeClaims', { Cluster: CLUSTER, NodePool: 'b' })?.value).toBe(3);
  });

  it("sends the report's total cost as EstimatedWasteUsdPerDay, per cluster only", () => {
    const snapshot = snapshotOf({ instances: [], nodeClaims: [] }, CLUSTER);
    const orphan = (id: string, perDayUsd: number) =>
      newFinding({
        code: 'ORPHANED_INSTANCE',
        severity: 'warning',
        title: `Instance ${id}`,
        resource: { kind: 'Instance', id },
        since: null,
        cause: null,
        evidence: [],
        remediation: null,
        counts: { objects: 1, nodePool: 'default' },
        cost: { perDayUsd, basis: '1 × t3a.xlarge on-demand at $0.1504/h; × 24 h' },
      });
    const report = buildReport({ cluster: CLUSTER, now: NOW, gaps: [], findings: [orphan('i-0a', 3.61), orphan('i-0b', 3.61)] });

    const datums = scanMetrics({ cluster: CLUSTER, snapshot, report, durationMs: 10, now: NOW });

    expect(datums.filter((d) => d.name === 'EstimatedWasteUsdPerDay')).toEqual([
      { name: 'EstimatedWasteUsdPerDay', unit: 'None', value: 7.22, dimensions: { Cluster: CLUSTER } },
    ]);
  });

  it('leaves counts out of a finding that does not count objects, so its JSON is unchanged', () => {
    const f = newFinding({
      code: 'KARPENTER_CONTROLLER_PENDING',
      severity: 'critical',
      title: 't',
      resource: { kind: 'Deployment', namespace: 'karpenter', name: 'karpenter' },
      since: null,
      cause: null,
      evidence: [],
      remediation: null,
    });
    expect(Object.keys(f)).not.toContain('counts');
  });
});

describe('scanMetrics: controller restarts and subnet addresses', () => {
  it("sums the restarts of the controller's containers over its pods", () => {
    // Prepare
    const restarted = (name: string, restarts: number) => {
      const p = karpenterPod({ name, createdAt: T0, nodeName: 'ip-10-0-1-5.ec2.internal', phase: 'Running' });
      p.status = { ...p.status, containerStatuses: [{ name: 'controller', ready: true, restartCount: restarts }] };
      return p;
    };
    const snapshot = karpenterSnapshotOf(
      {
        pods: [restarted('karpenter-5697769d6c-abcde', 4), restarted('karpenter-5697769d6c-fghij', 1)],
        deployments: [karpenterDeployment({ replicas: 2, readyReplicas: 2 })],
      },
      CLUSTER,
    );

    // Act
    const datums = scanMetrics({ cluster: CLUSTER, snapshot, report: analysed(snapshot), durationMs: 1, now: NOW });

    // Assess
    expect(datum(datums, 'ControllerRestarts')).toEqual({
      name: 'ControllerRestarts',
      unit: 'Count',
      value: 5,
      dimensions: { Cluster: CLUSTER },
    });
  });

  it('gives each described subnet its free addresses, and nothing when subnets were not read', () => {
    // Prepare
    const described = snapshotOf(
      { subnets: [subnet({ id: 'subnet-0aaa', free: 12 }), subnet({ id: 'subnet-0bbb', free: 4000 })] },
      CLUSTER,
    );
    const blind = snapshotOf({}, CLUSTER);
    blind.gaps = [{ source: 'subnets', error: 'UnauthorizedOperation' }];

    // Act
    const seen = scanMetrics({ cluster: CLUSTER, snapshot: described, report: analysed(described), durationMs: 1, now: NOW });
    const unseen = scanMetrics({ cluster: CLUSTER, snapshot: blind, report: analysed(blind), durationMs: 1, now: NOW });

    // Assess
    expect(datum(seen, 'SubnetFreeAddresses', { Cluster: CLUSTER, Subnet: 'subnet-0aaa' })?.value).toBe(12);
    expect(datum(seen, 'SubnetFreeAddresses', { Cluster: CLUSTER, Subnet: 'subnet-0bbb' })?.value).toBe(4000);
    expect(unseen.filter((d) => d.name === 'SubnetFreeAddresses')).toEqual([]);
  });
});
