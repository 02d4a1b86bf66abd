import { describe, expect, it } from 'vitest';
import { NODE_PODS_LABEL, PREVIOUS_LOG_LABEL, listLabel } from '../../../bench/kubectl.ts';
import { nodesOfInterestOf, stepsOf, type LiveResults, type LiveScan } from '../../../bench/live.ts';
import { liveComparison, secondWaveText, sequenceMs } from '../../../bench/render.ts';
import { resolveOptions, syntheticCluster } from '../../../bench/synthetic-cluster.ts';
import { podsOnNode } from '../../../src/collect/kube-sources.ts';

describe('stepsOf', () => {
  it('groups concurrent calls by label: first call sent to last answer, calls and items summed, in order sent', () => {
    // Prepare
    const calls = [
      { label: 'nodes', startMs: 5, endMs: 40, items: 500 },
      { label: 'crds', startMs: 2, endMs: 9, items: 1 },
      { label: 'crds', startMs: 1, endMs: 12, items: 1 },
      { label: 'crds', startMs: 3, endMs: 8, items: 0 },
    ];

    // Act
    const steps = stepsOf(calls);

    // Assess
    expect(steps).toEqual([
      { label: 'crds', startMs: 1, endMs: 12, calls: 3, items: 2 },
      { label: 'nodes', startMs: 5, endMs: 40, calls: 1, items: 500 },
    ]);
  });
});

describe('liveComparison', () => {
  const scan = (scanMs: number): LiveScan => ({
    scanMs,
    loadedMs: 0,
    processMs: 0,
    lastAnswerMs: 0,
    steps: [],
    awsCalls: {},
    rssBefore: 0,
    peakRss: 0,
    maxRss: 0,
    report: { findings: 0, complete: true, summary: { critical: 0, warning: 0, info: 0 }, byCode: {} },
  });
  const sequence = (...ms: number[]) => ms.map((value, i) => ({ label: `step ${i}`, ms: value }));

  it('compares the median scan with the median warm-cache kubectl sequence, each sequence the sum of its commands', () => {
    // Prepare
    const live: LiveResults = {
      server: {
        counts: {
          pods: 0,
          pendingPods: 0,
          deployments: 0,
          nodes: 0,
          nodeClaims: 0,
          nodePools: 0,
          nodeClasses: 0,
          instances: 0,
          events: 0,
          logLines: 0,
          pdbs: 0,
          volumeAttachments: 0,
          subnets: 0,
        },
        nodesOfInterest: { total: 0, terminating: 0, drifted: 0, uninitialized: 0, expired: 0 },
        controllerNamespace: 'karpenter',
        generateMs: 0,
        startMs: 0,
        rss: 0,
      },
      kubectlVersion: 'v1.32.5',
      warmup: 1,
      scans: [scan(900), scan(1200), scan(1000)],
      scanStats: [],
      floors: [],
      floorStats: [],
      keepingFloors: [],
      keepingFloorStats: [],
      coldAnalyses: [],
      controllerDown: undefined,
      kubectlCold: [sequence(5000, 5000)],
      kubectlColdStats: [],
      kubectlWarm: [sequence(100, 200), sequence(4000, 1000), sequence(300, 300)],
      kubectlWarmStats: [],
      allPodsMs: [],
      allPodsStats: [],
    };

    // Act
    const comparison = liveComparison(live);

    // Assess
    expect(sequenceMs(sequence(100, 200, 50))).toBe(350);
    expect(comparison).toEqual({ scanMs: 1000, kubectlMs: 600 });
  });
});

describe('the second wave in the live scan', () => {
  it('names every per-node pod list with one label, so they form one step; other lists keep their query', () => {
    // Act / Assess
    expect(listLabel(podsOnNode('ip-10-0-1-2.ec2.internal'))).toBe(NODE_PODS_LABEL);
    expect(listLabel({ resource: 'pods', fieldSelector: 'status.phase=Pending' })).toBe('pods status.phase=Pending');
    expect(listLabel({ resource: 'poddisruptionbudgets' })).toBe('poddisruptionbudgets');
  });

  it('counts the nodes of interest of the synthetic cluster by why their pods are read', () => {
    // Prepare
    const options = {
      pods: 600,
      pendingPods: 60,
      nodes: 70,
      nodeClaims: 66,
      nodePools: 8,
      events: 300,
      logLines: 20,
      terminatingNodes: 3,
      driftedNodeClaims: 4,
      uninitializedNodeClaims: 2,
      // The second wave's nodes only.
      idleNodesBehindPdbs: 0,
      notReadyNodes: 0,
    };

    // Act
    const counts = nodesOfInterestOf(syntheticCluster(options), new Date(resolveOptions(options).now));

    // Assess
    expect(counts).toEqual({ total: 9, terminating: 3, drifted: 4, uninitialized: 2, expired: 0 });
  });

  it('sums up what the second wave cost the scan: its lists, the per-node pod lists, previous logs and DescribeSubnets', () => {
    // Prepare
    const step = (label: string, calls: number, items: number) => ({ label, startMs: 0, endMs: 1, calls, items });
    const scan = {
      steps: [
        step('poddisruptionbudgets', 1, 401),
        step('volumeattachments', 1, 498),
        step(NODE_PODS_LABEL, 60, 75),
        step(PREVIOUS_LOG_LABEL, 1, 5),
      ],
      awsCalls: { DescribeSubnets: 1, DescribeInstances: 3 },
    } as unknown as LiveScan;
    const live = {
      server: { nodesOfInterest: { total: 60, terminating: 20, drifted: 30, uninitialized: 10, expired: 0 } },
    } as unknown as LiveResults;

    // Act
    const text = secondWaveText(live, scan);

    // Assess
    expect(text).toBe(
      '2 lists (poddisruptionbudgets 401, volumeattachments 498 objects) + 60 pod lists (one per node of interest: 20 terminating, 30 drifted, 10 uninitialised; 75 pods) + 1 previous log (5 lines) + 1 DescribeSubnets',
    );
  });
});
