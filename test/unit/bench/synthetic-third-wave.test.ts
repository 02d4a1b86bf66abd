import { describe, expect, it } from 'vitest';
import { resolveOptions, syntheticCluster, type SyntheticClusterOptions } from '../../../bench/synthetic-cluster.ts';
import { conditionOf, isConditionTrue, selectorMatches } from '../../../src/domain/kube-helpers.ts';
import { CLI_ACTIONS, DEFAULT_DETECTION } from '../../../src/domain/settings.ts';
import { analyze } from '../../../src/usecases/analyze.ts';

/** Small, with nodes enough for the second wave and the third. */
const SMALL: Partial<SyntheticClusterOptions> = {
  pods: 900,
  pendingPods: 60,
  nodes: 90,
  nodeClaims: 86,
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
  idleNodesBehindPdbs: 4,
  notReadyNodes: 3,
};
const HOUR = 3_600_000;

describe('syntheticCluster: the third wave', () => {
  it('plants idle nodes Consolidatable for hours, each left with one pod whose only PDB allows no disruption, named by a DisruptionBlocked event', () => {
    // Act
    const s = syntheticCluster(SMALL);

    // Assess
    const nowMs = Date.parse(resolveOptions(SMALL).now);
    const idle = s.nodeClaims.filter((c) => isConditionTrue(c, 'Consolidatable'));
    expect(idle).toHaveLength(4);
    for (const claim of idle) {
      const since = Date.parse(conditionOf(claim, 'Consolidatable')?.lastTransitionTime ?? '');
      expect(nowMs - since).toBeGreaterThanOrEqual(2 * HOUR);
      expect(isConditionTrue(claim, 'Initialized')).toBe(true);
      const node = claim.status?.nodeName;
      const workloadPods = s.pods.filter((p) => p.spec?.nodeName === node && p.metadata?.namespace !== 'kube-system');
      expect(workloadPods).toHaveLength(1);
      const [pod] = workloadPods;
      const covering = s.pdbs.filter(
        (b) => b.metadata?.namespace === pod?.metadata?.namespace && selectorMatches(b.spec?.selector, pod?.metadata?.labels),
      );
      expect(covering.map((b) => b.status?.disruptionsAllowed)).toEqual([0]);
      const [pdb] = covering;
      expect(s.events).toContainEqual(
        expect.objectContaining({
          regarding: { kind: 'Node', name: node },
          reason: 'DisruptionBlocked',
          message: `Pdb prevents pod evictions (PodDisruptionBudget=[${pdb?.metadata?.namespace}/${pdb?.metadata?.name}])`,
        }),
      );
    }
    expect(s.pods).toHaveLength(900);
  });

  it('plants initialised nodes NotReady for an hour or more, with pods the taint manager deleted stuck Terminating on them', () => {
    // Act
    const s = syntheticCluster(SMALL);

    // Assess
    const nowMs = Date.parse(resolveOptions(SMALL).now);
    const notReady = s.nodes.filter((n) => ['False', 'Unknown'].includes(conditionOf(n, 'Ready')?.status ?? ''));
    const karpenterNotReady = notReady.filter((n) => n.metadata?.labels?.['karpenter.sh/nodepool'] !== undefined);
    const claims = new Map(s.nodeClaims.map((c) => [c.status?.nodeName, c]));
    const initialisedNotReady = karpenterNotReady.filter((n) => isConditionTrue(claims.get(n.metadata?.name), 'Initialized'));
    expect(initialisedNotReady).toHaveLength(3);
    expect(initialisedNotReady.map((n) => conditionOf(n, 'Ready')?.message)).toContain('Kubelet stopped posting node status.');
    for (const node of initialisedNotReady) {
      const ready = conditionOf(node, 'Ready');
      expect(nowMs - Date.parse(ready?.lastTransitionTime ?? '')).toBeGreaterThanOrEqual(HOUR);
      const key = ready?.status === 'Unknown' ? 'node.kubernetes.io/unreachable' : 'node.kubernetes.io/not-ready';
      expect(node.spec?.taints).toContainEqual({ key, effect: 'NoExecute' });
      const terminating = s.pods.filter((p) => p.spec?.nodeName === node.metadata?.name && p.metadata?.deletionTimestamp);
      expect(terminating.length).toBeGreaterThan(0);
      for (const pod of terminating) expect(conditionOf(pod, 'DisruptionTarget')?.reason).toBe('DeletionByTaintManager');
    }
  });

  it('leaves the second wave as it was: each node stuck terminating still one finding, the analysis complete', () => {
    // Act
    const s = syntheticCluster(SMALL);
    const report = analyze(s, { detection: DEFAULT_DETECTION, actions: CLI_ACTIONS, now: new Date(resolveOptions(SMALL).now) });

    // Assess
    expect(report.complete).toBe(true);
    expect(report.findings.filter((f) => f.code === 'NODE_TERMINATION_STUCK')).toHaveLength(3);
  });
});
