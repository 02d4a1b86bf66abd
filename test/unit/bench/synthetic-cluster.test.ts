import { describe, expect, it } from 'vitest';
import { resolveOptions, syntheticCluster, type SyntheticClusterOptions } from '../../../bench/synthetic-cluster.ts';
import { conditionOf, instanceIdFromProviderID } from '../../../src/domain/kube-helpers.ts';
import { instanceProvenance } from '../../../src/domain/provenance.ts';
import { SOURCE_NAMES, type ClusterSnapshot } from '../../../src/domain/snapshot.ts';
import { DEFAULT_DETECTION } from '../../../src/domain/settings.ts';
import { SnapshotIndex } from '../../../src/domain/snapshot-index.ts';

const SMALL: Partial<SyntheticClusterOptions> = {
  // The third wave has a test of its own (synthetic-third-wave.test.ts).
  idleNodesBehindPdbs: 0,
  notReadyNodes: 0,
  pods: 300,
  pendingPods: 40,
  nodes: 30,
  nodeClaims: 28,
  unregisteredNodeClaims: 3,
  orphanInstances: 4,
  terminatedInstances: 2,
  nodePools: 6,
  notReadyNodeClasses: 2,
  events: 120,
  logLines: 60,
  accessDeniedLogLines: 3,
  terminatingNodes: 2,
  driftedNodeClaims: 3,
  consolidatedNodeClaims: 12,
  uninitializedNodeClaims: 1,
  noInstanceTypeMetPods: 2,
  deploymentsPerPdb: 3,
  nodesPerVolumeAttachment: 5,
};

const nowMs = (options: Partial<SyntheticClusterOptions> = SMALL) => Date.parse(resolveOptions(options).now);
const isKarpenterInstanceOf = (cluster: string) => (tags: Record<string, string>) =>
  tags['eks:eks-cluster-name'] === cluster && tags['karpenter.sh/nodepool'] !== undefined;

function claimedInstanceIds(s: ClusterSnapshot): Set<string> {
  return new Set(
    s.nodeClaims.map((nc) => instanceIdFromProviderID(nc.status?.providerID)).filter((id): id is string => id !== undefined),
  );
}

describe('syntheticCluster', () => {
  it('is deterministic: the same seed gives the same snapshot, another seed a different one', () => {
    // Prepare / Act
    const first = syntheticCluster({ ...SMALL, seed: 7 });
    const again = syntheticCluster({ ...SMALL, seed: 7 });
    const other = syntheticCluster({ ...SMALL, seed: 8 });

    // Assess
    expect(again).toEqual(first);
    expect(other.instances.map((i) => i.id)).not.toEqual(first.instances.map((i) => i.id));
    expect(other.pods.map((p) => p.metadata?.name)).not.toEqual(first.pods.map((p) => p.metadata?.name));
  });

  it('produces the requested counts and captures every source', () => {
    // Act
    const s = syntheticCluster(SMALL);

    // Assess
    expect(s.pods).toHaveLength(300);
    expect(s.pods.filter((p) => p.status?.phase === 'Pending')).toHaveLength(40);
    expect(s.nodes).toHaveLength(30);
    expect(s.nodeClaims).toHaveLength(28);
    expect(s.nodePools).toHaveLength(6);
    expect(s.nodeClasses).toHaveLength(6);
    // one per NodeClaim + 5 system nodes (30 nodes − 25 registered) + 4 orphans + 2 terminated
    expect(s.instances).toHaveLength(28 + 5 + 4 + 2);
    expect(s.events).toHaveLength(120);
    // and the restarted controller container's previous log
    expect(s.logs.filter((l) => l.previous !== true)).toHaveLength(60);
    expect([...s.captured].sort()).toEqual([...SOURCE_NAMES].sort());
    expect(s.gaps).toEqual([]);
    expect(s.cluster?.name).toBe('bench');
    expect(s.configMaps.find((c) => c.metadata?.name === 'aws-auth')?.metadata?.namespace).toBe('kube-system');
  });

  it('multiplies the object counts, not the NodePools, by the scale', () => {
    // Act
    const s = syntheticCluster({ ...SMALL, scale: 2 });

    // Assess
    expect(s.pods).toHaveLength(600);
    expect(s.pods.filter((p) => p.status?.phase === 'Pending')).toHaveLength(80);
    expect(s.nodes).toHaveLength(60);
    expect(s.nodeClaims).toHaveLength(56);
    expect(s.events).toHaveLength(240);
    expect(s.nodePools).toHaveLength(6);
  });

  it('defaults to the 50,000-pod cluster of the benchmark', () => {
    // Act
    const options = resolveOptions();

    // Assess
    expect(options).toMatchObject({
      pods: 50_000,
      pendingPods: 2_000,
      nodes: 5_000,
      nodeClaims: 5_000,
      orphanInstances: 50,
      nodePools: 20,
    });
  });

  it('gives every NodeClaim a running instance of its own, and every registered one a Node with the same providerID', () => {
    // Act
    const s = syntheticCluster(SMALL);

    // Assess
    const instances = new Map(s.instances.map((i) => [i.id, i]));
    const nodes = new Map(s.nodes.map((n) => [n.metadata?.name, n]));
    expect(claimedInstanceIds(s).size).toBe(28);
    for (const nc of s.nodeClaims) {
      const instance = instances.get(instanceIdFromProviderID(nc.status?.providerID) ?? '');
      expect(instance?.state).toBe('running');
      expect(instance?.tags['karpenter.sh/nodeclaim']).toBe(nc.metadata?.name);
      expect(instance?.tags['karpenter.sh/nodepool']).toBe(nc.metadata?.labels?.['karpenter.sh/nodepool']);
      if (nc.status?.nodeName) expect(nodes.get(nc.status.nodeName)?.spec?.providerID).toBe(nc.status.providerID);
    }
  });

  it('plants the configured number of orphans: running Karpenter instances past the grace period with no NodeClaim', () => {
    // Act
    const s = syntheticCluster(SMALL);

    // Assess
    const claimed = claimedInstanceIds(s);
    const unclaimed = s.instances.filter((i) => isKarpenterInstanceOf('bench')(i.tags) && !claimed.has(i.id));
    const orphans = unclaimed.filter((i) => i.state !== 'terminated');
    expect(orphans).toHaveLength(4);
    expect(unclaimed.filter((i) => i.state === 'terminated')).toHaveLength(2);
    for (const o of orphans) expect(nowMs() - Date.parse(o.launchTime ?? '')).toBeGreaterThan(DEFAULT_DETECTION.orphanGraceMs);
    expect(s.instances.filter((i) => i.tags['eks:nodegroup-name'])).toHaveLength(5);
    // Launched as Karpenter launches (EC2 Fleet, its launch template of the cluster): proven, so real orphans.
    for (const o of orphans)
      expect(instanceProvenance(o, { cluster: 'bench', launchTemplates: s.launchTemplates }).proven).toBe(true);
  });

  it('plants NodeClaims launched more than 10 minutes ago whose Node never registered, in a NodePool whose role is not mapped', () => {
    // Act
    const s = syntheticCluster(SMALL);

    // Assess
    const unregistered = s.nodeClaims.filter((nc) => !nc.status?.nodeName);
    expect(unregistered).toHaveLength(3);
    for (const nc of unregistered) {
      expect(conditionOf(nc, 'Launched')?.status).toBe('True');
      expect(conditionOf(nc, 'Registered')?.status).toBe('Unknown');
      const launchedAt = Date.parse(conditionOf(nc, 'Launched')?.lastTransitionTime ?? '');
      expect(nowMs() - launchedAt).toBeGreaterThan(DEFAULT_DETECTION.registrationMs);
      const nodeClass = s.nodeClasses.find((c) => c.metadata?.name === nc.spec?.nodeClassRef?.name);
      expect(nodeClass?.spec?.role).toBe('KarpenterNodeRole-bench-v2');
    }
    const mapRoles = s.configMaps.find((c) => c.metadata?.name === 'aws-auth')?.data?.mapRoles ?? '';
    expect(mapRoles).toContain('role/KarpenterNodeRole-bench\n');
    expect(mapRoles).not.toContain('KarpenterNodeRole-bench-v2');
  });

  it('spreads the pending pods over several causes, mostly past the 10 minute threshold', () => {
    // Act
    const s = syntheticCluster({ ...SMALL, pendingPods: 120 });

    // Assess
    const pending = s.pods.filter((p) => p.status?.phase === 'Pending');
    expect(pending).toHaveLength(120);
    for (const p of pending) {
      expect(p.spec?.nodeName).toBeUndefined();
      expect(p.spec?.schedulerName).toBe('default-scheduler');
      expect(conditionOf(p, 'PodScheduled')).toMatchObject({ status: 'False', reason: 'Unschedulable' });
    }
    const limited = s.nodePools.find((np) => np.spec?.limits?.cpu === np.status?.resources?.cpu)?.metadata?.name;
    const notReady = s.nodePools.filter((np) => conditionOf(np, 'Ready')?.status === 'False').map((np) => np.metadata?.name);
    const asked = new Set(
      pending.map((p) => p.spec?.nodeSelector?.['karpenter.sh/nodepool'] ?? p.spec?.nodeSelector?.['workload-class'] ?? 'none'),
    );
    expect(limited).toBeDefined();
    expect(notReady).toHaveLength(2);
    expect(asked).toContain(limited);
    expect(asked).toContain('hpc');
    expect(asked).toContain('none');
    expect(notReady.some((name) => name !== undefined && asked.has(name))).toBe(true);
    const prolonged = pending.filter(
      (p) => nowMs() - Date.parse(p.metadata?.creationTimestamp ?? '') > DEFAULT_DETECTION.workloadPendingMs,
    );
    expect(prolonged.length).toBeGreaterThan(100);
    expect(prolonged.length).toBeLessThan(120);
  });

  it('runs the Karpenter controller with 2 ready replicas, found by its labels', () => {
    // Act
    const s = syntheticCluster(SMALL);

    // Assess
    const controllers = new SnapshotIndex(s).controllers;
    expect(controllers).toHaveLength(1);
    expect(controllers[0]).toMatchObject({ namespace: 'karpenter', deploymentName: 'karpenter', readyPods: 2 });
  });

  it('writes the configured AccessDenied lines into the controller log and marks the configured NodeClasses not ready', () => {
    // Act
    const s = syntheticCluster(SMALL);

    // Assess
    const denied = s.logs.filter((l) => l.fields['aws-error-code'] === 'AccessDenied');
    expect(denied).toHaveLength(3);
    expect(denied[0]?.error).toContain('iam:ListInstanceProfiles');
    expect(denied[0]?.level).toBe('ERROR');
    expect(s.nodeClasses.filter((c) => conditionOf(c, 'Ready')?.status === 'False')).toHaveLength(2);
  });

  it('refuses counts that cannot fit together', () => {
    // Act / Assess
    expect(() => syntheticCluster({ ...SMALL, nodes: 25 })).toThrow(/system node/);
    expect(() => syntheticCluster({ ...SMALL, pods: 41 })).toThrow(/pendingPods/);
    expect(() => syntheticCluster({ ...SMALL, nodePools: 4 })).toThrow(/nodePools/);
  });
});
