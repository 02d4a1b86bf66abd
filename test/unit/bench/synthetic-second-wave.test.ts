import { describe, expect, it } from 'vitest';
import { resolveOptions, syntheticCluster, type SyntheticClusterOptions } from '../../../bench/synthetic-cluster.ts';
import { LOW_SUBNET_FREE } from '../../../bench/synthetic/healthy-objects.ts';
import { conditionOf } from '../../../src/domain/kube-helpers.ts';
import { CLI_ACTIONS, DEFAULT_DETECTION } from '../../../src/domain/settings.ts';
import type { Finding } from '../../../src/domain/finding.ts';
import type { ClusterSnapshot } from '../../../src/domain/snapshot.ts';
import { analyze } from '../../../src/usecases/analyze.ts';

/** Small, with enough NodePools and nodes for every second-wave case, and oversized pending pods. */
const SMALL: Partial<SyntheticClusterOptions> = {
  // The third wave has a test of its own (synthetic-third-wave.test.ts).
  idleNodesBehindPdbs: 0,
  notReadyNodes: 0,
  pods: 600,
  pendingPods: 60,
  nodes: 70,
  nodeClaims: 66,
  unregisteredNodeClaims: 2,
  orphanInstances: 2,
  terminatedInstances: 1,
  nodePools: 8,
  notReadyNodeClasses: 2,
  events: 400,
  logLines: 40,
  accessDeniedLogLines: 1,
  terminatingNodes: 3,
  driftedNodeClaims: 4,
  consolidatedNodeClaims: 12,
  uninitializedNodeClaims: 2,
  noInstanceTypeMetPods: 3,
  deploymentsPerPdb: 4,
  nodesPerVolumeAttachment: 5,
};

function analysed(options: Partial<SyntheticClusterOptions> = SMALL): { s: ClusterSnapshot; findings: Finding[] } {
  const s = syntheticCluster(options);
  const report = analyze(s, { detection: DEFAULT_DETECTION, actions: CLI_ACTIONS, now: new Date(resolveOptions(options).now) });
  expect(report.complete).toBe(true);
  return { s, findings: report.findings };
}

const ofCode = (findings: readonly Finding[], code: string) => findings.filter((f) => f.code === code);
const nodePoolNamed = (s: ClusterSnapshot, name: string) => s.nodePools.find((p) => p.metadata?.name === name);

describe('syntheticCluster: the second wave', () => {
  it('plants nodes stuck terminating, each held by a single-replica pod under a PDB allowing nothing: NODE_TERMINATION_STUCK / PDB_BLOCKS_EVICTION each', () => {
    // Act
    const { s, findings } = analysed();

    // Assess
    const deleting = s.nodes.filter((n) => n.metadata?.deletionTimestamp !== undefined);
    expect(deleting).toHaveLength(3);
    for (const node of deleting) {
      expect(node.spec?.taints).toContainEqual({ key: 'karpenter.sh/disrupted', effect: 'NoSchedule' });
      const workloadPods = s.pods.filter(
        (p) => p.spec?.nodeName === node.metadata?.name && p.metadata?.namespace !== 'kube-system',
      );
      expect(workloadPods).toHaveLength(1);
    }
    expect(s.nodeClaims.filter((c) => c.metadata?.deletionTimestamp !== undefined)).toHaveLength(3);
    expect(s.events.filter((e) => e.reason === 'FailedDraining')).toHaveLength(3);
    const stuck = ofCode(findings, 'NODE_TERMINATION_STUCK');
    expect(stuck.map((f) => f.resource?.name).sort()).toEqual(deleting.map((n) => n.metadata?.name).sort());
    for (const f of stuck) {
      expect(f.cause?.code).toBe('PDB_BLOCKS_EVICTION');
      expect(f.counts?.objects).toBe(1);
      expect(f.severity).toBe('warning');
    }
    // the pods count stays as asked: the single replicas come out of the running workload pods
    expect(s.pods).toHaveLength(600);
  });

  it('plants Drifted NodeClaims in the default NodePool behind a "0" Drifted budget: one DISRUPTION_BLOCKED / BUDGET_BLOCKS', () => {
    // Act
    const { s, findings } = analysed();

    // Assess
    const drifted = s.nodeClaims.filter((c) => conditionOf(c, 'Drifted')?.status === 'True');
    expect(drifted).toHaveLength(4);
    expect(drifted.every((c) => conditionOf(c, 'Drifted')?.reason === 'AMIDrift')).toBe(true);
    expect(nodePoolNamed(s, 'default')?.spec?.disruption?.budgets).toContainEqual({ nodes: '0', reasons: ['Drifted'] });
    const [f, ...rest] = ofCode(findings, 'DISRUPTION_BLOCKED');
    expect(rest).toEqual([]);
    expect(f?.cause?.code).toBe('BUDGET_BLOCKS');
    expect(f?.resource?.name).toBe('default');
    expect(f?.counts?.objects).toBe(4);
  });

  it('plants a NodePool consolidating a node every few minutes with consolidateAfter 0s: one CONSOLIDATION_CHURN / CONSOLIDATE_AFTER_TOO_SHORT', () => {
    // Act
    const { s, findings } = analysed();

    // Assess
    const [f, ...rest] = ofCode(findings, 'CONSOLIDATION_CHURN');
    expect(rest).toEqual([]);
    expect(f?.cause?.code).toBe('CONSOLIDATE_AFTER_TOO_SHORT');
    expect(f?.counts?.objects).toBe(12);
    expect(nodePoolNamed(s, f?.resource?.name ?? '')?.spec?.disruption?.consolidateAfter).toBe('0s');
    expect(s.events.filter((e) => e.reason === 'DisruptionTerminating')).toHaveLength(12);
  });

  it('plants registered NodeClaims whose Node keeps its startup taint: one NODE_NOT_INITIALIZED / STARTUP_TAINT_REMAINS', () => {
    // Act
    const { s, findings } = analysed();

    // Assess
    const starting = s.nodeClaims.filter(
      (c) => conditionOf(c, 'Registered')?.status === 'True' && conditionOf(c, 'Initialized')?.status !== 'True',
    );
    expect(starting).toHaveLength(2);
    const [f, ...rest] = ofCode(findings, 'NODE_NOT_INITIALIZED');
    expect(rest).toEqual([]);
    expect(f?.cause?.code).toBe('STARTUP_TAINT_REMAINS');
    expect(f?.counts?.objects).toBe(2);
    expect(nodePoolNamed(s, f?.resource?.name ?? '')?.spec?.template?.spec?.startupTaints).toEqual([
      { key: 'ebs.csi.aws.com/agent-not-ready', effect: 'NoExecute' },
    ]);
  });

  it('describes the EC2NodeClasses subnets, one of them nearly full: one SUBNET_IPS_LOW / FEW_FREE_ADDRESSES', () => {
    // Act
    const { s, findings } = analysed();

    // Assess
    expect(s.subnets).toHaveLength(4);
    const low = s.subnets.filter((n) => n.availableIpAddressCount === LOW_SUBNET_FREE);
    expect(low).toHaveLength(1);
    const [f, ...rest] = ofCode(findings, 'SUBNET_IPS_LOW');
    expect(rest).toEqual([]);
    expect(f?.cause?.code).toBe('FEW_FREE_ADDRESSES');
    expect(f?.counts?.objects).toBe(1);
    expect(f?.cause?.detail).toContain(low[0]?.id);
  });

  it("words some oversized pods' Karpenter event as v1.3+ does (no instance type met …): they are NO_INSTANCE_TYPE_FITS", () => {
    // Act
    const { s, findings } = analysed();

    // Assess
    const modern = s.events.filter((e) => e.message?.startsWith('Failed to schedule pod, no instance type met'));
    expect(modern).toHaveLength(3);
    const fits = ofCode(findings, 'PODS_PENDING_PROLONGED').find((f) => f.cause?.code === 'NO_INSTANCE_TYPE_FITS');
    const listed = JSON.stringify(fits);
    for (const e of modern) expect(listed).toContain(e.regarding?.name);
  });

  it('keeps the controller healthy: one replica restarted once long ago, with a previous log, under the threshold', () => {
    // Act
    const { s, findings } = analysed();

    // Assess
    const restarts = s.pods
      .filter((p) => p.metadata?.namespace === 'karpenter')
      .map((p) => p.status?.containerStatuses?.[0]?.restartCount);
    expect(restarts).toEqual([1, 0]);
    expect(s.logs.filter((l) => l.previous === true)).toHaveLength(5);
    expect(ofCode(findings, 'KARPENTER_CONTROLLER_UNHEALTHY')).toEqual([]);
    expect(ofCode(findings, 'KARPENTER_CONTROLLER_PENDING')).toEqual([]);
  });

  it('adds PDBs allowing disruptions and VolumeAttachments across the healthy part, none on the vacated nodes', () => {
    // Act
    const s = syntheticCluster(SMALL);

    // Assess
    const running = s.deployments.filter(
      (d) => d.metadata?.name !== 'karpenter' && (d.spec?.replicas ?? 0) > 0 && d.status?.readyReplicas === d.spec?.replicas,
    );
    const healthy = s.pdbs.filter((p) => (p.status?.disruptionsAllowed ?? 0) > 0);
    // one per 4 running Deployments (the 3 single replicas among them), and the controller's
    expect(healthy).toHaveLength(Math.ceil(running.length / 4) + 1);
    expect(s.pdbs.filter((p) => p.status?.disruptionsAllowed === 0)).toHaveLength(3);
    const vacated = new Set(
      s.nodes
        .filter(
          (n) => n.metadata?.deletionTimestamp !== undefined || n.metadata?.labels?.['karpenter.sh/initialized'] === undefined,
        )
        .map((n) => n.metadata?.name),
    );
    expect(s.volumeAttachments.length).toBeGreaterThan(0);
    for (const va of s.volumeAttachments) {
      expect(va.spec?.attacher).toBe('ebs.csi.aws.com');
      expect(vacated.has(va.spec?.nodeName)).toBe(false);
    }
  });

  it('scales the planted counts up with the cluster', () => {
    // Act
    const s = syntheticCluster({ ...SMALL, scale: 2 });

    // Assess
    expect(s.nodes.filter((n) => n.metadata?.deletionTimestamp !== undefined)).toHaveLength(6);
    expect(s.nodeClaims.filter((c) => conditionOf(c, 'Drifted')?.status === 'True')).toHaveLength(8);
    expect(s.events.filter((e) => e.reason === 'DisruptionTerminating')).toHaveLength(12);
    expect(resolveOptions({ scale: 0.01 })).toMatchObject({
      terminatingNodes: 1,
      driftedNodeClaims: 1,
      uninitializedNodeClaims: 1,
    });
  });

  it('defaults to 20 terminating nodes, 30 drifted and 10 uninitialised NodeClaims and 15 consolidations an hour', () => {
    // Act
    const options = resolveOptions();

    // Assess
    expect(options).toMatchObject({
      terminatingNodes: 20,
      driftedNodeClaims: 30,
      consolidatedNodeClaims: 15,
      uninitializedNodeClaims: 10,
      deploymentsPerPdb: 50,
      nodesPerVolumeAttachment: 10,
    });
  });
});
