/**
 * `npm run bench [-- --scale N] [--runs N] [--warmup N] [--live-runs N] [--skip-live] [--kubectl PATH]
 *   [--import-runs N] [--reuse-package] [--only analysis,live,bundles,interruptions,state-round-trips,cleanup,bounded-read,distribution|lambda] [--write] [--keep-capture]`
 *
 * Measures, each in a fresh child process: analysis wall time (warm-up, then median / p95),
 * analysis memory, writing and loading the cluster as capture files, analysis time at 2x and
 * 4x the scale (linearity), and the live path: a full scan of the cluster served by the simulator
 * against kubectl fetching the same objects from the same server. Then the Lambda functions: each
 * packaged artifact's size and its bundle's import time, and the interruptions handler's EC2 calls
 * per batch, and the scan function's requests to its state table per scan (dynalite). Then destroy-time cleanup against the simulator for three account sizes: AWS calls per
 * operation and wall time of a dry run and an apply run. Then hostile capture files (gzip bombs, a huge
 * file): how fast and in how much memory the CLI refuses them. Last, what a user installs: the tarball's
 * and the single executable's size and start-up time. `--only` runs some sections (`--only lambda`:
 * the Lambda ones, a minute instead of five). Prints a table; `--write` rewrites BENCHMARKS.md
 * (every section, so not with `--only`).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ALL_PODS_STEP, KUBECTL, kubectlFetchPlan, kubectlVersion, runKubectl, runKubectlSequence } from './kubectl.ts';
import type { KubectlEnvironment } from './kubectl.ts';
import { measureBoundedRead, type BoundedReadBench } from './bounded-read.ts';
import { measureBundles, type BundleMeasurements } from './bundles.ts';
import { measureDistribution, type DistributionBench } from './distribution.ts';
import { CLEANUP_SCALES, measureCleanup, type CleanupScaleMeasurement } from './cleanup.ts';
import { measureInterruptions, type InterruptionsBench } from './interruptions.ts';
import { measureStateRoundTrips, type StateRoundTripsBench } from './state-round-trips.ts';
import { checkColdAnalysedTheScan, KUBECONFIG_FILE, measureColdAnalysis, measureLiveScan, startLiveServer } from './live.ts';
import type {
  ColdAnalysis,
  ControllerDownResults,
  LiveResults,
  LiveScan,
  LiveServer,
  LiveServerInfo,
  RequestStats,
} from './live.ts';
import { floorOrder, measureFloor, writeFloorRequests, type FloorRun } from './floor.ts';
import { measureAnalysisMemory, measureAnalysisTime, measureLoad, writeCapture } from './measure.ts';
import type { AnalysisMemory, AnalysisTiming, CaptureLoad, CaptureWrite } from './measure.ts';
import {
  BENCH_SECTIONS,
  outcomesOf,
  parseSections,
  renderConsole,
  renderMarkdown,
  targets,
  type AnalysisResults,
  type BenchResults,
  type BenchSection,
  type CleanupResults,
  type Outcome,
} from './render.ts';
import { DEFAULT_SYNTHETIC_CLUSTER } from './synthetic-cluster.ts';
import { DEFAULT_MAX_FILE_BYTES } from '../src/snapshot/size-limit.ts';

const SELF = fileURLToPath(import.meta.url);
const BENCHMARKS_MD = fileURLToPath(new URL('../BENCHMARKS.md', import.meta.url));
const LINEARITY_FACTORS = [2, 4];
/** One scan and both kubectl sequences before the measured runs: JIT, page cache, the server's sorted lists, kubectl's warm cache. */
const LIVE_WARMUP = 1;
/** `kubectl get pods -A -o json` of every pod takes tens of seconds: context, so fewer runs. */
const ALL_PODS_RUNS = 3;
/** One invocation takes well under a millisecond: many runs are cheap. */
const INTERRUPTION_RUNS = 200;
const INTERRUPTION_WARMUP = 20;
/** Each cleanup run seeds a fresh simulation (tens of milliseconds to seconds): a few runs. */
const CLEANUP_RUNS = 5;
const CLEANUP_WARMUP = 1;
/** Ten fresh processes per command and artifact: start-up is what is measured. */
const DISTRIBUTION_RUNS = 10;

const { values } = parseArgs({
  options: {
    scale: { type: 'string', default: '1' },
    runs: { type: 'string', default: '20' },
    warmup: { type: 'string', default: '5' },
    'live-runs': { type: 'string', default: '5' },
    'skip-live': { type: 'boolean', default: false },
    only: { type: 'string' },
    'import-runs': { type: 'string', default: '11' },
    'reuse-package': { type: 'boolean', default: false },
    kubectl: { type: 'string', default: KUBECTL },
    write: { type: 'boolean', default: false },
    'keep-capture': { type: 'boolean', default: false },
    child: { type: 'string' },
    dir: { type: 'string' },
    instances: { type: 'string' },
    'controller-down': { type: 'boolean', default: false },
  },
});

function positive(name: string, text: string | undefined, integer: boolean): number {
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    process.stderr.write(`bench: --${name} must be a positive ${integer ? 'integer' : 'number'}, got ${JSON.stringify(text)}\n`);
    process.exit(2);
  }
  return n;
}

const scale = positive('scale', values.scale, false);
const runs = positive('runs', values.runs, true);
const warmup = positive('warmup', values.warmup, true);
const liveRuns = positive('live-runs', values['live-runs'], true);
const importRuns = positive('import-runs', values['import-runs'], true);

function selectedSections(): { selected: Set<BenchSection>; notMeasured: BenchResults['notMeasured'] } {
  const parsed = values.only === undefined ? new Set(BENCH_SECTIONS) : parseSections(values.only);
  if (!(parsed instanceof Set)) {
    process.stderr.write(`bench: --only: ${parsed.error}\n`);
    process.exit(2);
  }
  const notMeasured: BenchResults['notMeasured'] = {};
  for (const section of BENCH_SECTIONS) if (!parsed.has(section)) notMeasured[section] = `--only ${values.only}`;
  if (values.write && values.only !== undefined && Object.keys(notMeasured).length > 0) {
    process.stderr.write('bench: --write rewrites all of BENCHMARKS.md, so it needs every section: drop --only\n');
    process.exit(2);
  }
  if (values['skip-live'] && parsed.has('live')) {
    parsed.delete('live');
    notMeasured.live = '--skip-live';
  }
  return { selected: parsed, notMeasured };
}

if (values.child === 'live-server') await serveLive(values.dir ?? '');
else if (values.child) await runChild(values.child);
else await main();

function errorText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

async function runChild(mode: string): Promise<void> {
  let outcome: Outcome<unknown>;
  try {
    const dir = values.dir ?? '';
    const value =
      mode === 'live-scan'
        ? await measureLiveScan(dir)
        : mode === 'floor' || mode === 'keeping-floor'
          ? await measureFloor(dir, mode === 'keeping-floor')
          : mode === 'cold-analysis'
            ? measureColdAnalysis(dir)
            : mode === 'time'
              ? measureAnalysisTime(scale, runs, warmup)
              : mode === 'memory'
                ? await measureAnalysisMemory(scale)
                : mode === 'write' || mode === 'write-yaml'
                  ? writeCapture(scale, dir, mode === 'write' ? 'json' : 'yaml')
                  : mode === 'load'
                    ? await measureLoad(scale, dir)
                    : mode === 'interruptions'
                      ? await measureInterruptions(INTERRUPTION_RUNS, INTERRUPTION_WARMUP)
                      : mode === 'state-round-trips'
                        ? await measureStateRoundTrips()
                        : mode === 'cleanup'
                          ? await measureCleanup(positive('instances', values.instances, true), CLEANUP_RUNS, CLEANUP_WARMUP)
                          : undefined;
    outcome = value === undefined ? { ok: false, error: `unknown child mode ${mode}` } : { ok: true, value };
  } catch (error) {
    outcome = { ok: false, error: errorText(error) };
  }
  process.send?.(outcome, () => process.disconnect());
}

function forkSelf(args: string[]): ChildProcess {
  return fork(SELF, args, {
    execPath: process.execPath,
    execArgv: ['--expose-gc', '--disable-warning=ExperimentalWarning'],
    stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
  });
}

function inChild<T>(label: string, args: string[]): Promise<Outcome<T>> {
  process.stderr.write(`bench: ${label}…\n`);
  return new Promise((resolve) => {
    const child = forkSelf(args);
    let outcome: Outcome<T> | undefined;
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000);
    });
    child.on('message', (message) => {
      outcome = message as Outcome<T>;
    });
    child.on('exit', (code, signal) => {
      const lastLine = stderr.trim().split('\n').at(-1) ?? '';
      resolve(outcome ?? { ok: false, error: `child exited with ${signal ?? code}${lastLine ? `: ${lastLine}` : ''}` });
    });
  });
}

type ServerMessage =
  | { type: 'ready'; info: LiveServerInfo }
  | { type: 'stats'; stats: RequestStats; requests: string[] }
  | { type: 'failed'; error: string };

/** Requests and bytes since the last call, and the requests themselves (`GET /api/v1/pods?limit=500`). */
interface ServedSince {
  stats: RequestStats;
  requests: string[];
}

/** The live server's child: serves until told to stop; answers `stats` with the requests and bytes since the last. */
async function serveLive(dir: string): Promise<void> {
  let server: LiveServer;
  try {
    server = await startLiveServer(scale, dir, values['controller-down']);
  } catch (error) {
    process.send?.({ type: 'failed', error: errorText(error) } satisfies ServerMessage, () => process.disconnect());
    return;
  }
  process.on('message', (message) => {
    if (message === 'stats')
      process.send?.({ type: 'stats', stats: server.takeStats(), requests: server.takeRequests() } satisfies ServerMessage);
    if (message === 'stop') void server.close().finally(() => process.disconnect());
  });
  process.send?.({ type: 'ready', info: server.info } satisfies ServerMessage);
}

interface ServerChild {
  info: LiveServerInfo;
  /** Requests and bytes since the last call. */
  stats(): Promise<RequestStats>;
  /** The same, with the requests themselves. */
  served(): Promise<ServedSince>;
  stop(): Promise<void>;
}

function startServerChild(dir: string, controllerDown: boolean): Promise<ServerChild> {
  const which = controllerDown ? ', its controller down,' : '';
  process.stderr.write(`bench: live: serving the cluster${which} at scale ${scale} from the simulated API server…\n`);
  const child = forkSelf([
    '--child',
    'live-server',
    '--scale',
    String(scale),
    '--dir',
    dir,
    ...(controllerDown ? ['--controller-down'] : []),
  ]);
  const waiting: { resolve(served: ServedSince): void; reject(error: Error): void }[] = [];
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  return new Promise((resolve, reject) => {
    child.on('message', (message: ServerMessage) => {
      if (message.type === 'failed') reject(new Error(message.error));
      else if (message.type === 'stats') waiting.shift()?.resolve({ stats: message.stats, requests: message.requests });
      else {
        const served = () =>
          new Promise<ServedSince>((resolveServed, rejectServed) => {
            waiting.push({ resolve: resolveServed, reject: rejectServed });
            child.send('stats');
          });
        resolve({
          info: message.info,
          served,
          stats: async () => (await served()).stats,
          stop: () =>
            new Promise((resolveStop) => {
              if (child.exitCode !== null || child.signalCode !== null) return resolveStop();
              child.once('exit', () => resolveStop());
              child.send('stop');
            }),
        });
      }
    });
    child.on('exit', (code, signal) => {
      const error = new Error(`the server exited with ${signal ?? code}: ${stderr.trim().split('\n').at(-1) ?? ''}`);
      reject(error);
      for (const w of waiting.splice(0)) w.reject(error);
    });
  });
}

interface ScanAndFloors {
  scan: LiveScan;
  scanStats: RequestStats;
  floor: FloorRun;
  floorStats: RequestStats;
  keepingFloor: FloorRun;
  keepingFloorStats: RequestStats;
  coldAnalysis: ColdAnalysis;
}

/**
 * A scan in a fresh process, then its requests sent again by the floor and by the keeping floor
 * (bench/floor.ts), each in a process of its own, in floorOrder's order (swapped every other run),
 * then its snapshot analysed once in a fourth (cold), whose report must be the scan's.
 */
async function scanThenFloor(server: ServerChild, dir: string, runIndex: number, run: string): Promise<ScanAndFloors> {
  const scan = await inChild<LiveScan>(`live: scan, ${run}`, ['--child', 'live-scan', '--dir', dir]);
  if (!scan.ok) throw new Error(`scan: ${scan.error}`);
  const served = await server.served();
  writeFloorRequests(dir, served.requests);
  const floors = new Map<string, { run: FloorRun; stats: RequestStats }>();
  for (const mode of floorOrder(runIndex)) {
    const label = mode === 'floor' ? `floor (the scan's ${served.requests.length} requests)` : 'keeping floor';
    const floor = await inChild<FloorRun>(`live: ${label}, ${run}`, ['--child', mode, '--dir', dir]);
    if (!floor.ok) throw new Error(`${label}: ${floor.error}`);
    floors.set(mode, { run: floor.value, stats: await server.stats() });
  }
  const cold = await inChild<ColdAnalysis>(`live: cold analysis of the scan's snapshot, ${run}`, [
    '--child',
    'cold-analysis',
    '--dir',
    dir,
  ]);
  if (!cold.ok) throw new Error(`cold analysis: ${cold.error}`);
  checkColdAnalysedTheScan(scan.value, cold.value);
  const floor = floors.get('floor');
  const keeping = floors.get('keeping-floor');
  if (floor === undefined || keeping === undefined) throw new Error('live: a floor did not run');
  return {
    scan: scan.value,
    scanStats: served.stats,
    floor: floor.run,
    floorStats: floor.stats,
    keepingFloor: keeping.run,
    keepingFloorStats: keeping.stats,
    coldAnalysis: cold.value,
  };
}

/** One measured run's scan, floors and cold analysis, added to its scenario's lists. */
function addRun(to: ControllerDownResults, measured: ScanAndFloors): void {
  to.scans.push(measured.scan);
  to.scanStats.push(measured.scanStats);
  to.floors.push(measured.floor);
  to.floorStats.push(measured.floorStats);
  to.keepingFloors.push(measured.keepingFloor);
  to.keepingFloorStats.push(measured.keepingFloorStats);
  to.coldAnalyses.push(measured.coldAnalysis);
}

/**
 * Per run, one after another: a scan in a fresh process, the floor of its requests, kubectl's
 * sequence with a fresh cache dir, then with a warm one; interleaved so that a busy machine slows
 * all four alike. Then the same cluster with its controller down: scan and floor, interleaved.
 */
async function measureLive(): Promise<Outcome<LiveResults>> {
  const dir = mkdtempSync(join(os.tmpdir(), 'karpenter-sentinel-live-'));
  let server: ServerChild | undefined;
  try {
    server = await startServerChild(dir, false);
    const kubectl = values.kubectl ?? KUBECTL;
    const env = (cacheDir: string): KubectlEnvironment => ({
      kubectl,
      kubeconfig: join(dir, KUBECONFIG_FILE),
      cacheDir: join(dir, cacheDir),
      home: dir,
    });
    const plan = kubectlFetchPlan(server.info.controllerNamespace);
    const live: LiveResults = {
      server: server.info,
      kubectlVersion: await kubectlVersion(kubectl),
      warmup: LIVE_WARMUP,
      scans: [],
      scanStats: [],
      floors: [],
      floorStats: [],
      keepingFloors: [],
      keepingFloorStats: [],
      coldAnalyses: [],
      kubectlCold: [],
      kubectlColdStats: [],
      kubectlWarm: [],
      kubectlWarmStats: [],
      allPodsMs: [],
      allPodsStats: [],
      controllerDown: undefined,
    };
    await server.stats();
    for (let i = 0; i < LIVE_WARMUP + liveRuns; i += 1) {
      const run = i < LIVE_WARMUP ? `warm-up ${i + 1}` : `run ${i - LIVE_WARMUP + 1} of ${liveRuns}`;
      const measured = await scanThenFloor(server, dir, i, run);
      process.stderr.write(`bench: live: kubectl, ${run}…\n`);
      const cold = await runKubectlSequence(env(`kubectl-cache-${i}`), plan);
      const coldStats = await server.stats();
      const warm = await runKubectlSequence(env('kubectl-cache-warm'), plan);
      const warmStats = await server.stats();
      if (i < LIVE_WARMUP) continue;
      addRun(live, measured);
      live.kubectlCold.push(cold);
      live.kubectlColdStats.push(coldStats);
      live.kubectlWarm.push(warm);
      live.kubectlWarmStats.push(warmStats);
    }
    const allPodsRuns = Math.min(ALL_PODS_RUNS, liveRuns);
    for (let i = 0; i < allPodsRuns; i += 1) {
      process.stderr.write(`bench: live: kubectl get pods -A -o json, run ${i + 1} of ${allPodsRuns}…\n`);
      live.allPodsMs.push(await runKubectl(env('kubectl-cache-warm'), ALL_PODS_STEP));
      live.allPodsStats.push(await server.stats());
    }
    await server.stop();
    server = await startServerChild(dir, true);
    live.controllerDown = await measureControllerDown(server, dir);
    return { ok: true, value: live };
  } catch (error) {
    return { ok: false, error: errorText(error) };
  } finally {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function measureControllerDown(server: ServerChild, dir: string): Promise<ControllerDownResults> {
  const down: ControllerDownResults = {
    server: server.info,
    scans: [],
    scanStats: [],
    floors: [],
    floorStats: [],
    keepingFloors: [],
    keepingFloorStats: [],
    coldAnalyses: [],
  };
  await server.stats();
  for (let i = 0; i < LIVE_WARMUP + liveRuns; i += 1) {
    const run = `controller down, ${i < LIVE_WARMUP ? `warm-up ${i + 1}` : `run ${i - LIVE_WARMUP + 1} of ${liveRuns}`}`;
    const measured = await scanThenFloor(server, dir, i, run);
    if (i < LIVE_WARMUP) continue;
    addRun(down, measured);
  }
  return down;
}

async function measureAnalysis(): Promise<AnalysisResults> {
  const common = ['--scale', String(scale)];
  const timing = await inChild<AnalysisTiming>(`analysis time at scale ${scale} (${warmup} warm-up + ${runs} runs)`, [
    '--child',
    'time',
    ...common,
    '--runs',
    String(runs),
    '--warmup',
    String(warmup),
  ]);
  const memory = await inChild<AnalysisMemory>('analysis memory', ['--child', 'memory', ...common]);

  const dir = mkdtempSync(join(os.tmpdir(), 'karpenter-sentinel-bench-'));
  const yamlDir = join(dir, 'yaml');
  let write: Outcome<CaptureWrite>;
  let load: Outcome<CaptureLoad>;
  let yaml: AnalysisResults['yaml'];
  try {
    write = await inChild<CaptureWrite>(`writing capture files to ${dir}`, ['--child', 'write', ...common, '--dir', dir]);
    load = write.ok
      ? await inChild<CaptureLoad>('loading the capture files', ['--child', 'load', ...common, '--dir', dir])
      : { ok: false, error: 'nothing was written' };
    const yamlWrite = await inChild<CaptureWrite>(`writing the -o yaml twin to ${yamlDir}`, [
      '--child',
      'write-yaml',
      ...common,
      '--dir',
      yamlDir,
    ]);
    const yamlLoad: Outcome<CaptureLoad> = yamlWrite.ok
      ? await inChild<CaptureLoad>('loading the -o yaml twin', ['--child', 'load', ...common, '--dir', yamlDir])
      : { ok: false, error: 'nothing was written' };
    yaml = { write: yamlWrite, load: yamlLoad };
  } finally {
    if (!values['keep-capture']) rmSync(dir, { recursive: true, force: true });
  }

  const linearity: AnalysisResults['linearity'] = [{ factor: 1, timing }];
  const linearityRuns = Math.max(5, Math.ceil(runs / 2));
  const linearityWarmup = Math.min(warmup, 3);
  for (const factor of LINEARITY_FACTORS) {
    const t = await inChild<AnalysisTiming>(`analysis time at scale ${scale * factor}`, [
      '--child',
      'time',
      '--scale',
      String(scale * factor),
      '--runs',
      String(linearityRuns),
      '--warmup',
      String(linearityWarmup),
    ]);
    linearity.push({ factor, timing: t });
  }
  return { timing, memory, write, load, yaml, linearity };
}

/** Packages the service first (unless `--reuse-package`) so the sizes are the current source's. */
async function measureLambdaArtifacts(): Promise<Outcome<BundleMeasurements>> {
  const reuse = values['reuse-package'];
  process.stderr.write(
    `bench: Lambda artifacts: ${reuse ? '' : 'bundling and packaging (osls), then '}importing each bundle ${importRuns} times…\n`,
  );
  try {
    return { ok: true, value: await measureBundles({ runs: importRuns, repackage: !reuse }) };
  } catch (error) {
    return { ok: false, error: errorText(error) };
  }
}

/** One fresh process per account size, so each one's memory is its own. */
async function measureCleanupScales(): Promise<CleanupResults> {
  const results: CleanupResults = [];
  for (const instances of CLEANUP_SCALES) {
    const outcome = await inChild<CleanupScaleMeasurement>(
      `cleanup of ${instances} Karpenter instances (${CLEANUP_WARMUP} warm-up + ${CLEANUP_RUNS} dry runs and apply runs)`,
      ['--child', 'cleanup', '--instances', String(instances)],
    );
    results.push({ instances, outcome });
  }
  return results;
}

/** Each file's CLI run is its own process already (bench/bounded-read.ts). */
async function measureHostileFiles(): Promise<Outcome<BoundedReadBench>> {
  try {
    return { ok: true, value: await measureBoundedRead(DEFAULT_MAX_FILE_BYTES) };
  } catch (error) {
    return { ok: false, error: errorText(error) };
  }
}

async function measureArtifacts(): Promise<Outcome<DistributionBench>> {
  process.stderr.write(`bench: the tarball and the binary (build, then ${DISTRIBUTION_RUNS} starts of each command)…\n`);
  try {
    return { ok: true, value: await measureDistribution(DISTRIBUTION_RUNS) };
  } catch (error) {
    return { ok: false, error: errorText(error) };
  }
}

async function main(): Promise<void> {
  const { selected, notMeasured } = selectedSections();
  const started = performance.now();
  const loadAtStart = os.loadavg()[0] ?? 0;
  const analysis = selected.has('analysis') ? await measureAnalysis() : undefined;
  const live = selected.has('live') ? await measureLive() : undefined;
  const bundles = selected.has('bundles') ? await measureLambdaArtifacts() : undefined;
  const interruptions = selected.has('interruptions')
    ? await inChild<InterruptionsBench>(
        `interruptions handler (${INTERRUPTION_WARMUP} warm-up + ${INTERRUPTION_RUNS} runs per batch)`,
        ['--child', 'interruptions'],
      )
    : undefined;
  const stateRoundTrips = selected.has('state-round-trips')
    ? await inChild<StateRoundTripsBench>('scan state round trips (dynalite)', ['--child', 'state-round-trips'])
    : undefined;
  const cleanup = selected.has('cleanup') ? await measureCleanupScales() : undefined;
  const boundedRead = selected.has('bounded-read') ? await measureHostileFiles() : undefined;
  const distribution = selected.has('distribution') ? await measureArtifacts() : undefined;

  const results: BenchResults = {
    machine: {
      cpu: os.cpus()[0]?.model.trim() ?? 'unknown',
      cores: os.availableParallelism(),
      memoryBytes: os.totalmem(),
      os: `${os.type()} ${os.release()} ${os.arch()}`,
      node: process.version,
      loadAverage: [loadAtStart, os.loadavg()[0] ?? 0],
    },
    date: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    scale,
    seed: DEFAULT_SYNTHETIC_CLUSTER.seed,
    runs,
    warmup,
    analysis,
    live,
    liveRuns,
    bundles,
    interruptions,
    stateRoundTrips,
    cleanup,
    boundedRead,
    distribution,
    notMeasured,
    totalMs: performance.now() - started,
  };
  process.stdout.write(`${renderConsole(results)}\n`);
  if (values.write) {
    writeFileSync(BENCHMARKS_MD, renderMarkdown(results));
    process.stdout.write(`\nwrote ${BENCHMARKS_MD}\n`);
  }
  const failed = outcomesOf(results).some((o) => !o.ok);
  if (failed || targets(results).some((t) => t.pass === false)) process.exitCode = 1;
}
