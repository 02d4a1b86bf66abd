import type { BenchResults } from '../../bench/render.ts';

/** A bench run that measured nothing; override the sections a test is about. */
export function benchResults(overrides: Partial<BenchResults> = {}): BenchResults {
  return {
    machine: { cpu: 'x', cores: 2, memoryBytes: 1, os: 'Linux', node: 'v22.0.0', loadAverage: [0, 0] },
    date: '2027-01-01T00:00:00Z',
    scale: 1,
    seed: 1,
    runs: 1,
    warmup: 1,
    analysis: undefined,
    live: undefined,
    liveRuns: 1,
    bundles: undefined,
    interruptions: undefined,
    stateRoundTrips: undefined,
    cleanup: undefined,
    boundedRead: undefined,
    distribution: undefined,
    notMeasured: {},
    totalMs: 1,
    ...overrides,
  };
}
