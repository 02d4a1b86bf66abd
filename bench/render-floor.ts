/**
 * The live scan against its floor (bench/floor.ts): per scenario, the scan's fetch and total
 * beside a raw GET + JSON.parse of exactly its requests, run right after it, and their ratios.
 */
import type { FloorRun } from './floor.ts';
import type { LiveResults, LiveScan, RequestStats } from './live.ts';

/** The worst scenario's scan, total, at most this many times its floor (issue 23). */
export const TARGET_FLOOR_RATIO = 1.3;

interface Scenario {
  name: string;
  scans: readonly LiveScan[];
  scanStats: readonly RequestStats[];
  floors: readonly FloorRun[];
  floorStats: readonly RequestStats[];
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

/** Each scan over the floor run right after it (paired runs: load on the machine falls on both). */
function ratios(s: Scenario, pick: (scan: LiveScan) => number): number[] {
  return s.scans.map((scan, i) => pick(scan) / (s.floors[i]?.fetchMs ?? Number.NaN));
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
      `${requests(s.scanStats)} / ${requests(s.floorStats)}`,
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
      'requests (bytes): scan / floor',
    ],
    rows,
    notes: [
      `Medians (min – max) of the runs of the live section; each ratio is a scan over the floor run right after it, the median of those pairs (min – max). Target: the worst scenario's total within ${TARGET_FLOOR_RATIO}× of its floor.`,
      "FLOOR (bench/floor.ts): the requests the simulated API server received during the scan (it records each one's path and query), sent again in a fresh process by a client that only GETs each one over a keep-alive HTTPS connection and JSON.parses the answer (a log is read as text): the pages of one list one after another, up to 8 lists at once (the collector's limit), nothing waiting on anything else. It pays the network, the server and the parse, as the scan must; not choosing what to read, classifying, merging, detecting or reporting. The two request counts and byte totals show it sent the same requests.",
      "Controller down: the same cluster with the controller's pods crash-looping (bench/synthetic/controller-down.ts: Running, not Ready, 14 restarts), served by a server of its own; a scan then lists every pod instead of the Pending and per-node ones. Scans and floors interleaved as above; no kubectl runs.",
    ],
  };
}
