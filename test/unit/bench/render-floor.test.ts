import { describe, expect, it } from 'vitest';
import type { FloorRun } from '../../../bench/floor.ts';
import type { ColdAnalysis, LiveResults, LiveScan } from '../../../bench/live.ts';
import { floorSection, worstFloorRatio, worstLowerBoundRatio } from '../../../bench/render-floor.ts';
import { targets, type BenchResults } from '../../../bench/render.ts';

const digest = { findings: 1, complete: true, summary: { critical: 0, warning: 1, info: 0 }, byCode: { SUBNET_IPS_LOW: 1 } };
const scan = (scanMs: number, lastAnswerMs: number) => ({ scanMs, lastAnswerMs, report: digest }) as unknown as LiveScan;
const floor = (fetchMs: number): FloorRun => ({ fetchMs, cpuMs: fetchMs - 10, requests: 3, chains: 3 });
const cold = (analysisMs: number): ColdAnalysis => ({ analysisMs, report: digest });
const stats = { requests: 3, bytes: 2_000_000 };

/** Three paired runs: scan, floor, keeping floor, cold analysis. */
const live = {
  server: { counts: { pods: 50_000 } },
  scans: [scan(1000, 800), scan(900, 700), scan(1100, 850)],
  scanStats: [stats, stats, stats],
  floors: [floor(400), floor(300), floor(500)],
  floorStats: [stats, stats, stats],
  keepingFloors: [floor(480), floor(330), floor(600)],
  keepingFloorStats: [stats, stats, stats],
  coldAnalyses: [cold(200), cold(150), cold(250)],
  controllerDown: undefined,
} as unknown as LiveResults;

describe('the live scan against its floor, its keeping floor and its lower bound', () => {
  it('bounds any scan from below by the keeping floor plus the cold analysis, each run over its own floor', () => {
    // Act
    const lower = worstLowerBoundRatio(live);

    // Assess: (480 + 200) / 400 = 1.7, (330 + 150) / 300 = 1.6, (600 + 250) / 500 = 1.7; the median.
    expect(lower?.ratio).toBeCloseTo(1.7);
    expect(lower?.scenario).toBe('healthy controller');
    // The target's own ratio is unchanged: 2.5, 3, 2.2.
    expect(worstFloorRatio(live)?.ratio).toBeCloseTo(2.5);
  });

  it('shows the keeping floor, its process CPU, its ratio, the cold analysis and the lower bound beside the scan and the floor', () => {
    // Act
    const section = floorSection(live);

    // Assess
    const column = (title: string) => section.rows[0]?.[section.header.findIndex((h) => h.startsWith(title))];
    expect(column('KEEPING FLOOR')).toBe('480.0 ms (330.0 ms – 600.0 ms)');
    expect(column('keeping floor / floor')).toBe('1.20× (1.10× – 1.20×)');
    expect(column('cold analysis')).toBe('200.0 ms (150.0 ms – 250.0 ms)');
    expect(column('LOWER BOUND')).toBe('1.70× (1.60× – 1.70×)');
    expect(column('floor: its process CPU')).toBe('390.0 ms (290.0 ms – 490.0 ms)');
    expect(column('keeping floor: its process CPU')).toBe('470.0 ms (320.0 ms – 590.0 ms)');
    expect(column('requests')).toBe('3 (2.0 MB) / 3 (2.0 MB) / 3 (2.0 MB)');
  });

  it('claims in the targets table no more than the LOWER BOUND note: only a scan that keeps its answers and analyses them after the last one is ruled out', () => {
    // Act
    const row = targets({
      live: { ok: true, value: { ...live, kubectlWarm: [] } },
      notMeasured: {},
    } as unknown as BenchResults).find((t) => t.target.startsWith('lower bound of any live scan'));

    // Assess
    expect(row?.target).toContain(
      'above 1.3x, no scan that keeps its answers and analyses them after the last one can meet the target above',
    );
    expect(row?.measured).toBe('1.70x (healthy controller)');
  });

  it('has no lower bound without keeping floors (results of a bench run before they were measured)', () => {
    // Act / Assess
    expect(worstLowerBoundRatio({ ...live, keepingFloors: [], coldAnalyses: [] })).toBeUndefined();
  });
});
