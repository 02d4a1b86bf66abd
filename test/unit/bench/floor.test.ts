import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { floorOrder, measureFloor, writeFloorRequests, writeFloorTarget } from '../../../bench/floor.ts';
import { checkColdAnalysedTheScan, measureColdAnalysis, writeScanSnapshot, type LiveScan } from '../../../bench/live.ts';
import { digest } from '../../../bench/measure.ts';
import { resolveOptions, syntheticCluster, type SyntheticClusterOptions } from '../../../bench/synthetic-cluster.ts';
import { takeControllerDown } from '../../../bench/synthetic/controller-down.ts';
import { CLI_ACTIONS, DEFAULT_DETECTION } from '../../../src/domain/settings.ts';
import { simulateSnapshot, type Simulation } from '../../../src/simulator/simulation.ts';
import { scanCluster } from '../../../src/usecases/scan-cluster.ts';

/** Small, with more pods than one page of 500, so that lists take several pages. */
const SMALL: Partial<SyntheticClusterOptions> = {
  pods: 1_300,
  pendingPods: 60,
  nodes: 90,
  nodeClaims: 86,
  unregisteredNodeClaims: 2,
  orphanInstances: 2,
  terminatedInstances: 1,
  nodePools: 8,
  events: 400,
  logLines: 40,
  accessDeniedLogLines: 1,
  terminatingNodes: 3,
  driftedNodeClaims: 4,
  consolidatedNodeClaims: 12,
  uninitializedNodeClaims: 2,
  noInstanceTypeMetPods: 3,
  idleNodesBehindPdbs: 4,
  notReadyNodes: 3,
};

const sorted = (lines: readonly string[]) => [...lines].sort();

describe('measureColdAnalysis', () => {
  let simulation: Simulation | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await simulation?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("analyses the snapshot the scan built, at the scan's time, to the scan's findings", async () => {
    // Prepare
    const seed = syntheticCluster(SMALL);
    simulation = await simulateSnapshot(seed);
    dir = mkdtempSync(join(os.tmpdir(), 'cold-analysis-test-'));
    const now = resolveOptions(SMALL).now;
    const scan = await scanCluster(simulation.connection, {
      clusterName: seed.clusterName,
      detection: DEFAULT_DETECTION,
      actions: CLI_ACTIONS,
      now: new Date(now),
    });
    writeScanSnapshot(dir, scan.snapshot, now);

    // Act
    const cold = measureColdAnalysis(dir);

    // Assess
    expect(cold.report).toEqual(digest(scan.report));
    expect(cold.report.findings).toBeGreaterThan(0);
  });
});

describe('checkColdAnalysedTheScan (the bench stops when the cold analysis did not analyse what the scan did)', () => {
  const report = { findings: 2, complete: true, summary: { critical: 0, warning: 2, info: 0 }, byCode: { SUBNET_IPS_LOW: 2 } };
  const scan = { report } as unknown as LiveScan;

  it('passes a cold analysis with the scan’s report', () => {
    expect(() => checkColdAnalysedTheScan(scan, { analysisMs: 100, report: structuredClone(report) })).not.toThrow();
  });

  it('stops on another finding count, another code or an incomplete report', () => {
    for (const other of [
      { ...report, findings: 1 },
      { ...report, byCode: { SUBNET_IPS_LOW: 1, ORPHANED_INSTANCE: 1 } },
      { ...report, complete: false },
    ]) {
      expect(() => checkColdAnalysedTheScan(scan, { analysisMs: 100, report: other })).toThrow(/is not the scan's/);
    }
  });
});

describe('floorOrder', () => {
  it('runs the floor first after one scan and the keeping floor first after the next, each once per run', () => {
    expect([0, 1, 2, 3].map(floorOrder)).toEqual([
      ['floor', 'keeping-floor'],
      ['keeping-floor', 'floor'],
      ['floor', 'keeping-floor'],
      ['keeping-floor', 'floor'],
    ]);
  });
});

describe('measureFloor', () => {
  let simulation: Simulation | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await simulation?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    ['a healthy controller', false],
    ['the controller down (every pod listed, in pages)', true],
  ])('sends the server exactly the requests a live scan sent, with %s', async (_, down) => {
    // Prepare
    const seed = syntheticCluster(SMALL);
    simulation = await simulateSnapshot(down ? takeControllerDown(seed) : seed);
    const { kubeApi } = simulation;
    dir = mkdtempSync(join(os.tmpdir(), 'floor-test-'));
    writeFloorTarget(dir, { url: kubeApi.url, caPem: kubeApi.caPem, token: kubeApi.token });
    const stopScan = kubeApi.recordRequests();
    await scanCluster(simulation.connection, {
      clusterName: seed.clusterName,
      detection: DEFAULT_DETECTION,
      actions: CLI_ACTIONS,
      now: new Date(resolveOptions(SMALL).now),
    });
    const scanned = stopScan();
    writeFloorRequests(dir, scanned);

    // Act
    const stopFloor = kubeApi.recordRequests();
    const floor = await measureFloor(dir);
    const replayed = stopFloor();
    const stopKeeping = kubeApi.recordRequests();
    const keeping = await measureFloor(dir, true);
    const replayedKeeping = stopKeeping();

    // Assess
    expect(sorted(replayed)).toEqual(sorted(scanned));
    expect(floor.requests).toBe(scanned.length);
    // The keeping floor sends the same requests; only what it holds differs.
    expect(sorted(replayedKeeping)).toEqual(sorted(scanned));
    expect(keeping.chains).toBe(floor.chains);
    const pagesOfAllPods = scanned.filter((r) => r.startsWith('GET /api/v1/pods?') && !r.includes('Selector'));
    expect(pagesOfAllPods.length > 1).toBe(down);
    // The pages of one list are one chain (each continue token comes with the page before).
    expect(floor.chains).toBe(scanned.length - Math.max(0, pagesOfAllPods.length - 1));
  });
});
