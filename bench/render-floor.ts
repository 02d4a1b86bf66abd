/**
 * The live scan against its floor (bench/floor.ts): per scenario, the scan's fetch and total
 * beside a raw GET + JSON.parse of exactly its requests, run after it, and their ratios.
 */
import type { FloorRun } from './floor.ts';
import type { ColdAnalysis, LiveResults, LiveScan, RequestStats } from './live.ts';

/** The worst scenario's scan, total, at most this many times its floor (issue 23). */
export const TARGET_FLOOR_RATIO = 1.3;

interface Scenario {
  name: string;
  scans: readonly LiveScan[];
  scanStats: readonly RequestStats[];
  floors: readonly FloorRun[];
  floorStats: readonly RequestStats[];
  keepingFloors: readonly FloorRun[];
  keepingFloorStats: readonly RequestStats[];
  coldAnalyses: readonly ColdAnalysis[];
}

function scenariosOf(live: LiveResults): Scenario[] {
  const down = live.controllerDown;
  return [
    { name: 'healthy controller', ...live },
    ...(down ? [{ name: `controller down (all ${down.server.counts.pods.toLocaleString('en-US')} pods listed)`, ...down }] : []),
  ];
}

const middle = (samples: readonly number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted.length === 0
    ? Number.NaN
    : ((sorted[Math.floor((sorted.length - 1) / 2)] ?? 0) + (sorted[Math.ceil((sorted.length - 1) / 2)] ?? 0)) / 2;
};
const ms = (v: number) => `${v.toFixed(1)} ms`;
const times = (v: number) => `${v.toFixed(2)}×`;
const spread = (values: readonly number[], format: (v: number) => string) =>
  `${format(middle(values))} (${format(Math.min(...values))} – ${format(Math.max(...values))})`;

/** Each scan over the floor of the same run (paired runs: load on the machine falls on both). */
function ratios(s: Scenario, pick: (scan: LiveScan) => number): number[] {
  return s.scans.map((scan, i) => pick(scan) / (s.floors[i]?.fetchMs ?? Number.NaN));
}

/**
 * The lower bound of any scan, per run over the floor run with it: the keeping floor (a scan must
 * hold what it read) plus one cold analysis of the scan's snapshot (it must analyse it, after the
 * last answer, in a process that did nothing else before).
 */
function lowerBoundRatios(s: Scenario): number[] {
  return s.floors.map(
    (f, i) => ((s.keepingFloors[i]?.fetchMs ?? Number.NaN) + (s.coldAnalyses[i]?.analysisMs ?? Number.NaN)) / f.fetchMs,
  );
}

/** The worst scenario's median lower-bound/floor ratio, and its name; undefined without keeping floors. */
export function worstLowerBoundRatio(live: LiveResults): { ratio: number; scenario: string } | undefined {
  return scenariosOf(live)
    .filter((s) => s.keepingFloors.length > 0 && s.coldAnalyses.length > 0)
    .map((s) => ({ ratio: middle(lowerBoundRatios(s)), scenario: s.name }))
    .sort((a, b) => b.ratio - a.ratio)[0];
}

/** The worst scenario's median total/floor ratio, and its name. */
export function worstFloorRatio(live: LiveResults): { ratio: number; scenario: string } | undefined {
  const worst = scenariosOf(live)
    .filter((s) => s.floors.length > 0)
    .map((s) => ({ ratio: middle(ratios(s, (scan) => scan.scanMs)), scenario: s.name }))
    .sort((a, b) => b.ratio - a.ratio)[0];
  return worst;
}

export function floorSection(live: LiveResults): { title: string; header: string[]; rows: string[][]; notes: string[] } {
  const rows = scenariosOf(live).map((s) => {
    const requests = (stats: readonly RequestStats[]) =>
      `${[...new Set(stats.map((x) => x.requests))].join(' / ')} (${(middle(stats.map((x) => x.bytes)) / 1_000_000).toFixed(1)} MB)`;
    return [
      s.name,
      spread(
        s.scans.map((x) => x.lastAnswerMs),
        ms,
      ),
      spread(
        s.scans.map((x) => x.scanMs - x.lastAnswerMs),
        ms,
      ),
      spread(
        s.scans.map((x) => x.scanMs),
        ms,
      ),
      spread(
        s.floors.map((f) => f.fetchMs),
        ms,
      ),
      spread(
        ratios(s, (x) => x.lastAnswerMs),
        times,
      ),
      spread(
        ratios(s, (x) => x.scanMs),
        times,
      ),
      spread(
        s.floors.map((f) => f.cpuMs),
        ms,
      ),
      spread(
        s.keepingFloors.map((f) => f.fetchMs),
        ms,
      ),
      spread(
        s.keepingFloors.map((f) => f.cpuMs),
        ms,
      ),
      spread(
        s.keepingFloors.map((f, i) => f.fetchMs / (s.floors[i]?.fetchMs ?? Number.NaN)),
        times,
      ),
      spread(
        s.coldAnalyses.map((c) => c.analysisMs),
        ms,
      ),
      spread(lowerBoundRatios(s), times),
      `${requests(s.scanStats)} / ${requests(s.floorStats)} / ${requests(s.keepingFloorStats)}`,
    ];
  });
  return {
    title: 'Live scan against its floor',
    header: [
      'scenario',
      'scan: start → last answer (fetch)',
      'scan: after the last answer',
      'scan: total',
      'FLOOR: raw GET + JSON.parse of the same requests',
      'fetch / floor',
      'total / floor',
      'floor: its process CPU',
      'KEEPING FLOOR: the same, every answer held to the end',
      'keeping floor: its process CPU',
      'keeping floor / floor',
      'cold analysis of the scan’s snapshot (fresh process)',
      'LOWER BOUND: (keeping floor + cold analysis) / floor',
      'requests (bytes): scan / floor / keeping floor',
    ],
    rows,
    notes: [
      `Medians (min – max) of the runs of the live section; each ratio is a scan over the floor of the same run (run after it), the median of those pairs (min – max). Target: the worst scenario's total within ${TARGET_FLOOR_RATIO}× of its floor.`,
      "FLOOR (bench/floor.ts): the requests the simulated API server received during the scan (it records each one's path and query), sent again in a fresh process by a client that only GETs each one over a keep-alive HTTPS connection and JSON.parses the answer (a log is read as text): the pages of one list one after another, up to 8 lists at once (the collector's limit), nothing waiting on anything else. It pays the network, the server and the parse, as the scan must; not choosing what to read, classifying, merging, detecting or reporting. The two request counts and byte totals show it sent the same requests.",
      'KEEPING FLOOR (bench/floor.ts): the same requests sent the same way by the same client in a fresh process, run right before or after the floor (the two swap places every other run, so neither always comes first after the scan), except that it holds every parsed answer (a log as its text) until the last one came, as any scan must hold what it read until it analyses it; the floor lets each answer become garbage at once. Each floor’s process CPU (user + system, over the fetch) beside its wall time shows whether the client itself is the bottleneck.',
      'COLD ANALYSIS: the snapshot the scan built (written by the scan process after it finished, v8.serialize), read back in a fresh process and analysed once, timed alone: `analyze` as the scan runs it after its last answer, the first analysis in that process (the scan process has already run, while collecting, some helpers the analysis shares); reading the file is not timed. Its report (findings, codes, summary) must be the scan’s, or the bench stops. The scan’s own "after the last answer" also merges what came last.',
      `LOWER BOUND: what any scan of these requests pays at least, the keeping floor plus the cold analysis of the same snapshot, over the floor of the same run (the median of those ratios). It is information, not a target: a lower bound above ${TARGET_FLOOR_RATIO}× means no scan that keeps its answers and analyses them after the last one can meet the ${TARGET_FLOOR_RATIO}× target; the distance from the lower bound to total / floor is what the scan itself could still save.`,
      "Controller down: the same cluster with the controller's pods crash-looping (bench/synthetic/controller-down.ts: Running, not Ready, 14 restarts), served by a server of its own; a scan then lists every pod instead of the Pending and per-node ones. Scans, floors, keeping floors and cold analyses interleaved as above; no kubectl runs.",
    ],
  };
}
