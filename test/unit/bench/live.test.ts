import { describe, expect, it } from 'vitest';
import { stepsOf, type LiveResults, type LiveScan } from '../../../bench/live.ts';
import { liveComparison, sequenceMs } from '../../../bench/render.ts';

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
        },
        controllerNamespace: 'karpenter',
        generateMs: 0,
        startMs: 0,
        rss: 0,
      },
      kubectlVersion: 'v1.32.5',
      warmup: 1,
      scans: [scan(900), scan(1200), scan(1000)],
      scanStats: [],
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
