/** Turns benchmark results into the console table and BENCHMARKS.md, from the same rows. */
import { formatByteSize } from '../src/domain/byte-size.ts';
import type { BoundedReadBench } from './bounded-read.ts';
import type { DistributionBench } from './distribution.ts';
import type { BundleMeasurement, BundleMeasurements } from './bundles.ts';
import type { CleanupRunMeasurement, CleanupScaleMeasurement, OperationCounts } from './cleanup.ts';
import type { InterruptionsBench } from './interruptions.ts';
import type { StateRoundTripsBench } from './state-round-trips.ts';
import { ALL_PODS_STEP, NODE_PODS_LABEL, PREVIOUS_LOG_LABEL, kubectlFetchPlan, type KubectlTiming } from './kubectl.ts';
import type { LiveResults, LiveScan, RequestStats } from './live.ts';
import { floorSection, TARGET_FLOOR_RATIO, worstFloorRatio, worstLowerBoundRatio } from './render-floor.ts';
import { SOURCE_NAMES } from '../src/domain/snapshot.ts';
import type { AnalysisMemory, AnalysisTiming, CaptureLoad, CaptureWrite, ClusterCounts, ReportDigest } from './measure.ts';

export type Outcome<T> = { ok: true; value: T } | { ok: false; error: string };

export interface Machine {
  cpu: string;
  cores: number;
  memoryBytes: number;
  os: string;
  node: string;
  /** 1-minute load average when the bench started and when it ended (other work on the machine slows every number). */
  loadAverage: [number, number];
}

/** What `--only` selects; `lambda` stands for both Lambda sections. */
export const BENCH_SECTIONS = [
  'analysis',
  'live',
  'bundles',
  'interruptions',
  'state-round-trips',
  'cleanup',
  'bounded-read',
  'distribution',
] as const;
export type BenchSection = (typeof BENCH_SECTIONS)[number];
const SECTION_ALIASES: Readonly<Record<string, readonly BenchSection[]>> = { lambda: ['bundles', 'interruptions'] };

/** `--only analysis,lambda` → the sections to run; an unknown name is an error naming the valid ones. */
export function parseSections(text: string): Set<BenchSection> | { error: string } {
  const selected = new Set<BenchSection>();
  for (const name of text.split(',').map((n) => n.trim())) {
    const sections =
      SECTION_ALIASES[name] ?? ((BENCH_SECTIONS as readonly string[]).includes(name) ? [name as BenchSection] : []);
    if (sections.length === 0) {
      const valid = [...BENCH_SECTIONS, ...Object.keys(SECTION_ALIASES)].join(', ');
      return { error: `unknown section ${JSON.stringify(name)}: expected a comma-separated list of ${valid}` };
    }
    for (const section of sections) selected.add(section);
  }
  return selected;
}

/** The offline analysis: synthetic cluster in memory, then as capture files. */
export interface AnalysisResults {
  timing: Outcome<AnalysisTiming>;
  memory: Outcome<AnalysisMemory>;
  write: Outcome<CaptureWrite>;
  load: Outcome<CaptureLoad>;
  /** The same cluster with kubectl's Lists written as `-o yaml`, loaded the same way. */
  yaml: { write: Outcome<CaptureWrite>; load: Outcome<CaptureLoad> };
  linearity: { factor: number; timing: Outcome<AnalysisTiming> }[];
}

/** Destroy-time cleanup, one account size per child process. */
export type CleanupResults = { instances: number; outcome: Outcome<CleanupScaleMeasurement> }[];

export interface BenchResults {
  machine: Machine;
  date: string;
  scale: number;
  seed: number;
  runs: number;
  warmup: number;
  /** A section is undefined when it was not run; `notMeasured` says why. */
  analysis: AnalysisResults | undefined;
  live: Outcome<LiveResults> | undefined;
  liveRuns: number;
  bundles: Outcome<BundleMeasurements> | undefined;
  interruptions: Outcome<InterruptionsBench> | undefined;
  /** The scan function's requests to its state table per scan. */
  stateRoundTrips: Outcome<StateRoundTripsBench> | undefined;
  cleanup: CleanupResults | undefined;
  boundedRead: Outcome<BoundedReadBench> | undefined;
  /** The tarball and the single executable: sizes and start-up. */
  distribution: Outcome<DistributionBench> | undefined;
  /** The flag that left a section out, e.g. `--skip-live` or `--only lambda`. */
  notMeasured: Partial<Record<BenchSection, string>>;
  totalMs: number;
}

/** Every outcome of the run, to fail the bench when one failed. */
export function outcomesOf(r: BenchResults): Outcome<unknown>[] {
  const a = r.analysis;
  return [
    ...(a ? [a.timing, a.memory, a.write, a.load, a.yaml.write, a.yaml.load, ...a.linearity.map((l) => l.timing)] : []),
    ...[r.live, r.bundles, r.interruptions, r.stateRoundTrips, r.boundedRead, r.distribution].filter((o) => o !== undefined),
    ...(r.cleanup ?? []).map((c) => c.outcome),
  ];
}

export const TARGET_MS = 300;
export const TARGET_BYTES = 300 * 1_000_000;
/** Per Lambda artifact, zipped (decimal megabyte, the stricter reading). */
export const TARGET_ZIP_BYTES = 1_000_000;
export const TARGET_DESCRIBE_INSTANCES_PER_BATCH = 1;
/** Instances per TerminateInstances call the cleanup promises (issue 5): n instances take ⌈n/50⌉ calls. */
export const TARGET_TERMINATE_BATCH = 50;
/** A hostile capture file is refused this fast, in this much memory (issue 11). */
export const TARGET_REFUSAL_MS = 10_000;
export const TARGET_REFUSAL_RSS_BYTES = 1.5 * 1_000_000_000;
/** An `-o yaml` capture takes at most this many times its `-o json` twin, loading and analysing (issue 13). */
export const TARGET_YAML_RATIO = 3;

interface Section {
  title: string;
  header: string[];
  rows: string[][];
  notes?: string[];
}

const mb = (bytes: number) => `${(bytes / 1_000_000).toFixed(1)} MB`;
const ms = (value: number) => `${value.toFixed(value < 10 ? 2 : 1)} ms`;
const int = (value: number) => value.toLocaleString('en-US');
const counted = (n: number, one: string, many = `${one}s`) => `${int(n)} ${n === 1 ? one : many}`;
const kb = (bytes: number) =>
  `${(bytes / 1000).toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 })} kB`;
const percent = (part: number, whole: number) => `${Math.round((100 * part) / whole)}%`;

export function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

/** The analysis's own memory: peak RSS while it ran, over the RSS of the process holding the snapshot. */
export function analysisMemoryBytes(m: AnalysisMemory): number {
  return Math.max(0, m.peakRssDuringAnalysis - m.baseline.rss);
}

export const median = (samples: readonly number[]) => percentile(samples, 50);

/** A kubectl sequence's wall time: its commands run one after another. */
export function sequenceMs(timings: readonly KubectlTiming[]): number {
  return timings.reduce((sum, t) => sum + t.ms, 0);
}

/** Median scan (fetch + analysis) and median kubectl fetch, warm cache (kubectl's best case). */
export function liveComparison(live: LiveResults): { scanMs: number; kubectlMs: number } {
  return { scanMs: median(live.scans.map((s) => s.scanMs)), kubectlMs: median(live.kubectlWarm.map(sequenceMs)) };
}

export interface TargetRow {
  target: string;
  measured: string;
  pass: boolean | undefined;
  /** A row shown beside the targets to read them by, judged by none: its result reads `info`. */
  info?: true;
}

export function targets(r: BenchResults): TargetRow[] {
  return [
    ...analysisTargets(r),
    liveTarget(r),
    floorTarget(r),
    lowerBoundRow(r),
    ...bundleTargets(r),
    interruptionsTarget(r),
    ...cleanupTargets(r),
    ...boundedReadTargets(r),
  ];
}

function notMeasured(r: BenchResults, section: BenchSection): string {
  return `not measured (${r.notMeasured[section] ?? 'not run'})`;
}

function analysisTargets(r: BenchResults): TargetRow[] {
  const timingTarget = `analysis under ${TARGET_MS} ms (p95 wall time)`;
  const memoryTarget = `analysis under ${TARGET_BYTES / 1_000_000} MB (peak RSS while analysing, over the RSS holding the snapshot)`;
  const a = r.analysis;
  if (a === undefined) {
    return [timingTarget, memoryTarget, YAML_TARGET].map((target) => ({
      target,
      measured: notMeasured(r, 'analysis'),
      pass: undefined,
    }));
  }
  const timing = a.timing.ok ? percentile(a.timing.value.samplesMs, 95) : undefined;
  const memory = a.memory.ok ? analysisMemoryBytes(a.memory.value) : undefined;
  return [
    {
      target: timingTarget,
      measured: timing === undefined ? failure(a.timing) : ms(timing),
      pass: timing === undefined ? undefined : timing < TARGET_MS,
    },
    {
      target: memoryTarget,
      measured: memory === undefined ? failure(a.memory) : mb(memory),
      pass: memory === undefined ? undefined : memory < TARGET_BYTES,
    },
    yamlTarget(a),
  ];
}

const YAML_TARGET = `an -o yaml capture within ${TARGET_YAML_RATIO}x its -o json twin end to end (loadSnapshot + analysis of what was loaded)`;

/** Loading the capture, then analysing what was loaded: the offline `scan --from` path. */
const endToEndMs = (l: CaptureLoad) => l.loadMs + l.analysisMs;

function yamlTarget(a: AnalysisResults): TargetRow {
  if (!a.load.ok) return { target: YAML_TARGET, measured: failure(a.load), pass: undefined };
  if (!a.yaml.load.ok) return { target: YAML_TARGET, measured: failure(a.yaml.load), pass: undefined };
  const json = endToEndMs(a.load.value);
  const yaml = endToEndMs(a.yaml.load.value);
  return {
    target: YAML_TARGET,
    measured: `${ms(yaml)} vs ${ms(json)} (${(yaml / json).toFixed(1)}x)`,
    pass: yaml <= TARGET_YAML_RATIO * json,
  };
}

function floorTarget(r: BenchResults): TargetRow {
  const worst = r.live?.ok ? worstFloorRatio(r.live.value) : undefined;
  return {
    target: `live scan (fetch + analysis) within ${TARGET_FLOOR_RATIO}x of its floor, a raw GET + JSON.parse of the same requests (the worst scenario; median of paired runs)`,
    measured:
      worst === undefined
        ? r.live === undefined
          ? notMeasured(r, 'live')
          : r.live.ok
            ? 'no floor measured'
            : failure(r.live)
        : `${worst.ratio.toFixed(2)}x (${worst.scenario})`,
    pass: worst === undefined ? undefined : worst.ratio <= TARGET_FLOOR_RATIO,
  };
}

/** The lower bound of any scan over the same floor: why the floor target can or cannot be met (render-floor.ts). */
function lowerBoundRow(r: BenchResults): TargetRow {
  const worst = r.live?.ok ? worstLowerBoundRatio(r.live.value) : undefined;
  return {
    target: `lower bound of any live scan: a raw GET + JSON.parse keeping every answer + a cold analysis of the scan's snapshot, over the same floor (the worst scenario; median of paired runs; information: above ${TARGET_FLOOR_RATIO}x, no scan that keeps its answers and analyses them after the last one can meet the target above)`,
    measured:
      worst === undefined
        ? r.live === undefined
          ? notMeasured(r, 'live')
          : r.live.ok
            ? 'no keeping floor measured'
            : failure(r.live)
        : `${worst.ratio.toFixed(2)}x (${worst.scenario})`,
    pass: undefined,
    info: true,
  };
}

function liveTarget(r: BenchResults): TargetRow {
  const live = r.live?.ok ? liveComparison(r.live.value) : undefined;
  return {
    target: 'live scan (fetch + analysis) faster than kubectl fetching the same objects (medians; kubectl with a warm cache)',
    measured:
      live === undefined
        ? r.live === undefined
          ? notMeasured(r, 'live')
          : failure(r.live)
        : `${ms(live.scanMs)} vs ${ms(live.kubectlMs)} (${(live.kubectlMs / live.scanMs).toFixed(1)}x faster)`,
    pass: live === undefined ? undefined : live.scanMs < live.kubectlMs,
  };
}

const KUBERNETES_FREE = 'interruptions';

function bundleTargets(r: BenchResults): TargetRow[] {
  const zipTarget = (name: string) => `\`${name}\` Lambda artifact under ${TARGET_ZIP_BYTES / 1_000_000} MB zipped`;
  const kubeTarget = `\`${KUBERNETES_FREE}\` bundle holds no Kubernetes code (modules from src/adapters/kubernetes or @kubernetes)`;
  if (r.bundles === undefined || !r.bundles.ok) {
    const measured = r.bundles === undefined ? notMeasured(r, 'bundles') : failure(r.bundles);
    return [zipTarget('every'), kubeTarget].map((target) => ({ target, measured, pass: undefined }));
  }
  const functions = r.bundles.value.functions;
  const free = functions.find((f) => f.name === KUBERNETES_FREE);
  const others = functions
    .filter((f) => f.name !== KUBERNETES_FREE && f.composition.kubernetesInputs > 0)
    .map((f) => `${f.name}: ${f.composition.kubernetesInputs}, ${kb(f.composition.kubernetesBytes)}`);
  return [
    ...functions.map((f) => ({ target: zipTarget(f.name), measured: kb(f.zipBytes), pass: f.zipBytes < TARGET_ZIP_BYTES })),
    {
      target: kubeTarget,
      measured:
        free === undefined
          ? 'no interruptions bundle'
          : `${free.composition.kubernetesInputs} modules${others.length > 0 ? ` (${others.join('; ')})` : ''}`,
      pass: free === undefined ? undefined : free.composition.kubernetesInputs === 0,
    },
  ];
}

function interruptionsTarget(r: BenchResults): TargetRow {
  const target = `\`interruptions\`: ≤ ${TARGET_DESCRIBE_INSTANCES_PER_BATCH} DescribeInstances per SQS batch`;
  if (r.interruptions === undefined) return { target, measured: notMeasured(r, 'interruptions'), pass: undefined };
  if (!r.interruptions.ok) return { target, measured: failure(r.interruptions), pass: undefined };
  const batches = r.interruptions.value.batches;
  const most = Math.max(...batches.map((b) => b.describeInstancesCalls));
  const perBatch = batches.map((b) => `${b.name}: ${b.describeInstancesCalls}`).join('; ');
  return {
    target,
    measured: `at most ${most} per batch (${perBatch})`,
    pass: batches.length > 0 && most <= TARGET_DESCRIBE_INSTANCES_PER_BATCH,
  };
}

export const terminateCallsFor = (instances: number) => Math.ceil(instances / TARGET_TERMINATE_BATCH);

/** TerminateInstances batching; no write in a dry run or a run with nothing left; the apply run removing exactly what it must. */
export function cleanupTargets(r: BenchResults): TargetRow[] {
  const batching = `\`cleanup\`: TerminateInstances calls = ⌈n/${TARGET_TERMINATE_BATCH}⌉ in an apply run (n: the cluster's Karpenter instances)`;
  const noWrites =
    '`cleanup`: no write call in a dry run, nor in a second run after an apply run (AWS writes; Kubernetes objects changed)';
  const exact =
    "`cleanup`: an apply run is complete and removes exactly the cluster's Karpenter NodePools, instances, launch templates and instance profiles, and the dry run lists exactly those";
  const all = [batching, noWrites, exact];
  if (r.cleanup === undefined) return all.map((target) => ({ target, measured: notMeasured(r, 'cleanup'), pass: undefined }));
  const failed = r.cleanup.filter((c) => !c.outcome.ok);
  if (failed.length > 0 || r.cleanup.length === 0) {
    const measured = failed.map((c) => `${int(c.instances)}: ${failure(c.outcome)}`).join('; ') || 'nothing measured';
    return all.map((target) => ({ target, measured, pass: undefined }));
  }
  const scales = r.cleanup.flatMap((c) => (c.outcome.ok ? [c.outcome.value] : []));
  const terminateCalls = (m: CleanupScaleMeasurement) => m.applyRuns[0]?.awsCalls.TerminateInstances ?? 0;
  const writes = (m: CleanupRunMeasurement | undefined) => (m === undefined ? Number.NaN : m.awsWrites + m.kubeChanges);
  const dryWrites = scales.map((m) => Math.max(...m.dryRuns.map(writes)));
  const secondWrites = scales.map((m) => writes(m.secondRun));
  const problems = scales.flatMap((m) => m.problems.map((p) => `${int(m.karpenterInstances)}: ${p}`));
  return [
    {
      target: batching,
      measured: scales
        .map(
          (m) =>
            `${int(m.karpenterInstances)}: ${terminateCalls(m)} (⌈n/${TARGET_TERMINATE_BATCH}⌉ = ${terminateCallsFor(m.karpenterInstances)})`,
        )
        .join('; '),
      pass: scales.every((m) => terminateCalls(m) === terminateCallsFor(m.karpenterInstances)),
    },
    {
      target: noWrites,
      measured: `dry run ${dryWrites.join(' / ')}, second run ${secondWrites.join(' / ')} (n = ${scales.map((m) => int(m.karpenterInstances)).join(' / ')})`,
      pass: [...dryWrites, ...secondWrites].every((w) => w === 0),
    },
    {
      target: exact,
      measured:
        problems.length === 0
          ? `yes, n = ${scales.map((m) => int(m.karpenterInstances)).join(' / ')}`
          : problems.slice(0, 3).join('; '),
      pass: problems.length === 0,
    },
  ];
}

/**
 * What a user is promised for a file that cannot be read beside a good one (issue 12): a note naming
 * the file, and the scan goes on with the rest (exit 0 or 1 by the findings, never a crash or exit 2).
 */
export function refused(c: BoundedReadBench['cases'][number]): boolean {
  return c.killed === undefined && (c.exitCode === 0 || c.exitCode === 1) && noteOf(c).startsWith(`note: DIR/${c.file}: `);
}

/** The CLI's note on the file, its wrapped lines joined again. */
function noteOf(c: BoundedReadBench['cases'][number]): string {
  return (
    c.stderr
      .replace(/\n\s+/g, ' ')
      .split('\n')
      .find((line) => line.includes(`DIR/${c.file}: `)) ??
    c.stderr.split('\n').at(-1) ??
    ''
  );
}

export function boundedReadTargets(r: BenchResults): TargetRow[] {
  const time = `hostile capture files (gzip bombs unpacking past 2 GiB or to millions of tiny objects, a YAML flow sequence of millions of entries, a 2 GiB file) left out with a note naming the file while the rest is analysed, each under ${TARGET_REFUSAL_MS / 1000} s (the CLI, process start to exit)`;
  const memory = `the same, each under ${TARGET_REFUSAL_RSS_BYTES / 1e9} GB peak RSS`;
  if (r.boundedRead === undefined) {
    return [time, memory].map((target) => ({ target, measured: notMeasured(r, 'bounded-read'), pass: undefined }));
  }
  if (!r.boundedRead.ok) return [time, memory].map((target) => ({ target, measured: failure(r.boundedRead!), pass: undefined }));
  const cases = r.boundedRead.value.cases;
  const notRefused = cases.filter((c) => !refused(c)).map((c) => `${c.file}: ${c.killed ?? `exit ${c.exitCode ?? c.signal}`}`);
  const slowest = Math.max(...cases.map((c) => c.ms));
  const largest = Math.max(...cases.map((c) => c.maxRssBytes ?? Number.POSITIVE_INFINITY));
  const refusedText = notRefused.length === 0 ? `all ${cases.length} refused` : `NOT refused: ${notRefused.join('; ')}`;
  return [
    {
      target: time,
      measured: `${refusedText}; slowest ${ms(slowest)}`,
      pass: cases.length > 0 && notRefused.length === 0 && slowest < TARGET_REFUSAL_MS,
    },
    {
      target: memory,
      measured: `largest ${Number.isFinite(largest) ? mb(largest) : 'unknown'}`,
      pass: cases.length > 0 && notRefused.length === 0 && largest < TARGET_REFUSAL_RSS_BYTES,
    },
  ];
}

function boundedReadSection(o: Outcome<BoundedReadBench>): Section {
  const title = 'Hostile capture files';
  if (!o.ok) return { title, header: ['', ''], rows: [['failed', o.error]] };
  const gib = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(2)} GiB`;
  return {
    title,
    header: ['file', 'on disk → content', 'wall time', 'peak RSS', 'what the CLI said (exit code)'],
    rows: o.value.cases.map((c) => [
      `${c.file}: ${c.name}`,
      `${mb(c.bytes)} → ${gib(c.unpackedBytes)}`,
      ms(c.ms),
      c.maxRssBytes === undefined ? 'unknown' : mb(c.maxRssBytes),
      `${c.killed ? `${c.killed}: ` : ''}${noteOf(c)} (${c.exitCode ?? c.signal})`,
    ]),
    notes: [
      `Each file next to a good one (examples/healthy/cluster.json) in a fresh folder, then \`karpenter-sentinel scan --from DIR\` (bin/karpenter-sentinel.js) in a fresh Node process with the default size limit (${formatByteSize(o.value.limitBytes)} of content per file, \`--max-file-size\`). Wall time from spawning the process to its exit, Node's start included; peak RSS is the process's \`maxRSS\`, written by a preloaded module as it exits. A watchdog would kill it past 4 GiB RSS or 120 s. Building the files (gzip level 9) is not measured.`,
      'Before the limit (issue 11), a gzip file was unpacked whole before anything was looked at: a 3.7 MB `.json.gz` unpacking past 2 GiB took minutes and 7 GB, then V8 aborted the process (`Check failed`, exit 133); a `.log.gz` of zeros peaked at 6 GB before it was refused. Before YAML list items were counted (issue 19), 80 MB of `items: [1,1,…]` (40 million entries) took 44 s and 4.9 GB, then V8 aborted the process (heap limit, exit 134).',
    ],
  };
}

const ARTIFACTS: Record<DistributionBench['starts'][number]['artifact'], string> = {
  checkout: 'checkout: bin/karpenter-sentinel.js (TypeScript sources)',
  tarball: 'installed tarball: karpenter-sentinel (ESM bundle)',
  binary: 'binary: kubectl-sentinel (Node SEA, no Node.js on PATH)',
};

export function distributionSection(o: Outcome<DistributionBench>): Section {
  const title = 'Distribution: tarball and single executable';
  if (!o.ok) return { title, header: ['', ''], rows: [['failed', o.error]] };
  const d = o.value;
  const spread = (samples: number[]) => `${ms(median(samples))} (${ms(Math.min(...samples))}–${ms(Math.max(...samples))})`;
  return {
    title,
    header: ['artifact', 'size', '`--version`: median (min–max)', `\`scan --from\` ${d.example}: median (min–max)`],
    rows: d.starts.map((s) => [
      ARTIFACTS[s.artifact],
      s.artifact === 'tarball'
        ? `${mb(d.tarballBytes)} packed (bundle ${mb(d.bundleBytes)})`
        : s.artifact === 'binary'
          ? mb(d.binaryBytes)
          : '',
      spread(s.versionMs),
      spread(s.scanMs),
    ]),
    notes: [
      `Built into a temporary folder: \`npm pack\` (its prepack builds dist/cli/ with esbuild) installed with \`npm install -g --prefix\` (it installs nothing else), and \`npm run build:binary\` (the project's Node 22 binary with the CommonJS bundle and the examples injected by postject). Building took ${ms(d.buildMs.bundle)} (bundle) and ${ms(d.buildMs.binary)} (binary). Start-up: wall time from spawning the command to its exit, ${d.starts[0]?.versionMs.length ?? 0} runs each after one warm-up (which also unpacks the binary's files, once per version), \`scan --from\` with \`-o json\` on a copy of examples/${d.example}.`,
    ],
  };
}

function failure(o: Outcome<unknown>): string {
  return o.ok ? '' : `failed: ${o.error}`;
}

const verdict = (pass: boolean | undefined) => (pass === undefined ? 'n/a' : pass ? 'PASS' : 'FAIL');

function countsSection(counts: ClusterCounts, r: BenchResults): Section {
  const rows: [string, number][] = [
    ['pods', counts.pods],
    ['  of which Pending', counts.pendingPods],
    ['deployments', counts.deployments],
    ['nodes', counts.nodes],
    ['NodeClaims', counts.nodeClaims],
    ['NodePools / EC2NodeClasses', counts.nodePools],
    ['EC2 instances', counts.instances],
    ['events', counts.events],
    ['controller log lines (current and previous container)', counts.logLines],
    ['PodDisruptionBudgets', counts.pdbs],
    ['VolumeAttachments', counts.volumeAttachments],
    ["subnets (the EC2NodeClasses', described)", counts.subnets],
  ];
  return {
    title: `Synthetic cluster (scale ${r.scale}, seed ${r.seed})`,
    header: ['object', 'count'],
    rows: rows.map(([k, v]) => [k, int(v)]),
    notes: [
      `All ${SOURCE_NAMES.length} sources captured. Planted problems: 20 × scale unregistered NodeClaims (node role not mapped), 50 × scale orphan instances, 2 EC2NodeClasses not Ready, a NodePool at its cpu limit, pending pods over five causes (20 of the oversized ones with Karpenter's v1.3+ \`no instance type met …\` wording), 5 AccessDenied log lines, one unscoped AMI selector.`,
      "Second wave (bench/synthetic/after-provisioning.ts): 20 × scale nodes stuck terminating, each drain held by a single-replica Deployment's pod under a PDB with disruptionsAllowed 0; 30 × scale Drifted NodeClaims of `default` behind a `nodes: \"0\"` Drifted budget; 15 NodeClaims consolidated in the last hour in a NodePool with `consolidateAfter: 0s`; 10 × scale NodeClaims whose Node keeps a startup taint; one EC2NodeClass with a /24 subnet 9 addresses from full. Across the healthy part: a PDB allowing disruptions per 50 running Deployments (and the controller's), a VolumeAttachment per 10 worker nodes. The controller stays healthy: one replica restarted once, half its life ago (under KARPENTER_CONTROLLER_UNHEALTHY's threshold), its previous log captured.",
      'Third wave (bench/synthetic/third-wave.ts, issue 23, on nodes the second wave left alone): 25 × scale idle nodes `Consolidatable=True` for 2–30 h, each left with one pod of a single-replica Deployment under a PDB with disruptionsAllowed 0 (Karpenter\'s `DisruptionBlocked` event `Pdb prevents pod evictions (PodDisruptionBudget=[ns/name])` on the Node); 15 × scale nodes NotReady for 1–8 h after they initialised (two in three `Ready=Unknown` "Kubelet stopped posting node status.", tainted unreachable; the others `Ready=False` with the CNI not ready, tainted not-ready), every other workload pod on them deleted by the taint manager and stuck Terminating.',
    ],
  };
}

function findingsText(d: ReportDigest): string {
  const codes = Object.entries(d.byCode)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([code, n]) => `${code} ${n}`);
  return `${d.findings} (${d.summary.critical} critical, ${d.summary.warning} warning, ${d.summary.info} info)${codes.length ? `: ${codes.join(', ')}` : ''}${d.complete ? '' : ' [incomplete]'}`;
}

function sections(r: BenchResults): Section[] {
  const out: Section[] = [
    {
      title: 'Targets',
      header: ['target', 'measured', 'result'],
      rows: targets(r).map((t) => [t.target, t.measured, t.info ? 'info' : verdict(t.pass)]),
    },
    {
      title: 'Machine',
      header: ['', ''],
      rows: [
        ['CPU', r.machine.cpu],
        ['cores', String(r.machine.cores)],
        ['memory', mb(r.machine.memoryBytes)],
        ['OS', r.machine.os],
        ['Node.js', r.machine.node],
        ['load average (1 min) at start / end', r.machine.loadAverage.map((l) => l.toFixed(2)).join(' / ')],
        ['date', r.date],
        ['bench wall time', `${(r.totalMs / 1000).toFixed(1)} s`],
      ],
    },
  ];
  if (r.analysis) out.push(...analysisSections(r.analysis, r));
  if (r.live !== undefined || r.notMeasured.live === '--skip-live') out.push(...liveSections(r));
  if (r.bundles) out.push(...bundleSections(r.bundles));
  if (r.interruptions) out.push(interruptionsSection(r.interruptions));
  if (r.stateRoundTrips) out.push(stateRoundTripsSection(r.stateRoundTrips));
  if (r.cleanup) out.push(cleanupSection(r.cleanup));
  if (r.boundedRead) out.push(boundedReadSection(r.boundedRead));
  if (r.distribution) out.push(distributionSection(r.distribution));
  return out;
}

function analysisSections(a: AnalysisResults, r: BenchResults): Section[] {
  const out: Section[] = [];
  if (a.timing.ok) out.push(countsSection(a.timing.value.counts, r));
  if (a.timing.ok) {
    const t = a.timing.value;
    out.push({
      title: 'Analysis time',
      header: ['measure', 'value'],
      rows: [
        ['runs (after warm-up runs)', `${t.samplesMs.length} (after ${t.warmup})`],
        ['median', ms(percentile(t.samplesMs, 50))],
        ['p95', ms(percentile(t.samplesMs, 95))],
        ['min / max', `${ms(Math.min(...t.samplesMs))} / ${ms(Math.max(...t.samplesMs))}`],
        ['first run in a fresh process (cold JIT, not gated)', ms(t.firstRunMs)],
        ['generating the cluster (not analysis)', ms(t.generateMs)],
        ['findings', findingsText(t.report)],
      ],
      notes: [
        '`analyze(snapshot, { detection: DEFAULT_DETECTION, actions: CLI_ACTIONS, now })`: every detector, the remediation planner and the report, in one process that has nothing else to do.',
      ],
    });
  } else {
    out.push({ title: 'Analysis time', header: ['', ''], rows: [['failed', a.timing.error]] });
  }
  if (a.timing.ok && a.memory.ok) {
    const t = a.timing.value;
    const m = a.memory.value;
    out.push({
      title: 'Analysis memory',
      header: ['measure', 'value'],
      rows: [
        ['RSS holding the snapshot (after GC)', mb(m.baseline.rss)],
        ['heap used holding the snapshot', mb(m.baseline.heapUsed)],
        ['peak RSS while analysing once (sampled every 1 ms)', mb(m.peakRssDuringAnalysis)],
        ['analysis itself (peak RSS − RSS before)', mb(analysisMemoryBytes(m))],
        ['heap used after one analysis (no GC)', mb(m.heapAfter)],
        ['process maxRSS (generation included)', mb(m.processMaxRss)],
        [
          `heap used before / after ${t.warmup + t.samplesMs.length} analyses (timing process)`,
          `${mb(t.before.heapUsed)} / ${mb(t.after.heapUsed)}`,
        ],
        [
          `RSS before / after ${t.warmup + t.samplesMs.length} analyses (timing process)`,
          `${mb(t.before.rss)} / ${mb(t.after.rss)}`,
        ],
      ],
      notes: ['Measured in a fresh child process that generates the cluster, collects garbage, then analyses once.'],
    });
  } else if (!a.memory.ok) {
    out.push({ title: 'Analysis memory', header: ['', ''], rows: [['failed', a.memory.error]] });
  }
  out.push(loadSection(a));
  out.push(linearitySection(a));
  return out;
}

function loadSection(r: AnalysisResults): Section {
  if (!r.write.ok) return { title: 'Loading the capture files', header: ['', ''], rows: [['writing failed', r.write.error]] };
  const w = r.write.value;
  if (!r.load.ok) {
    return {
      title: 'Loading the capture files',
      header: ['', ''],
      rows: [
        ['files written', `${w.files} (${mb(w.bytes)})`],
        ['loading failed', r.load.error],
      ],
    };
  }
  const l = r.load.value;
  const mismatches = (Object.keys(w.counts) as (keyof ClusterCounts)[])
    .filter((k) => w.counts[k] !== l.counts[k])
    .map((k) => `${k}: wrote ${w.counts[k]}, loaded ${l.counts[k]}`);
  return {
    title: 'Loading the capture files',
    header: ['measure', 'value'],
    rows: [
      ['files (kubectl Lists, AWS CLI JSON, controller log)', `${l.files} (${mb(w.bytes)})`],
      ['loadSnapshot([dir])', ms(l.loadMs)],
      ['process maxRSS after loading', mb(l.maxRssAfterLoad)],
      ['then analysing what was loaded', ms(l.analysisMs)],
      ['process maxRSS after analysing (offline `scan --from`)', mb(l.maxRssAfterAnalysis)],
      ['round trip (loaded counts = written counts)', mismatches.length === 0 ? 'yes' : `NO: ${mismatches.join('; ')}`],
      ['findings from the loaded snapshot', findingsText(l.report)],
      ['loader notices', l.notices.length === 0 ? 'none' : l.notices.slice(0, 3).join(' | ')],
      ...yamlRows(r, w),
    ],
    notes: [
      'Written by `writeCaptureFiles` (bench/capture-files.ts) in the capture format of docs/capture.md, 4-space indented as kubectl and the AWS CLI print it; loaded in a fresh child process.',
      'The `-o yaml` twin: the same cluster with each kubectl List written as `kubectl get -o yaml` prints it (2-space indent, entries at column 0; the AWS CLI files and the log unchanged), loaded and analysed the same way in its own child process.',
    ],
  };
}

function yamlRows(r: AnalysisResults, json: CaptureWrite): string[][] {
  const { write, load } = r.yaml;
  if (!write.ok) return [['-o yaml twin: writing failed', write.error]];
  if (!load.ok) return [['-o yaml twin: loading failed', load.error]];
  const l = load.value;
  const mismatches = (Object.keys(json.counts) as (keyof ClusterCounts)[]).filter((k) => json.counts[k] !== l.counts[k]);
  return [
    ['-o yaml twin: files (kubectl Lists as YAML)', `${l.files} (${mb(write.value.bytes)})`],
    ['-o yaml twin: loadSnapshot([dir])', ms(l.loadMs)],
    ['-o yaml twin: process maxRSS after loading', mb(l.maxRssAfterLoad)],
    ['-o yaml twin: then analysing what was loaded', ms(l.analysisMs)],
    [
      '-o yaml twin: same counts and findings as the -o json files',
      mismatches.length === 0 && findingsText(l.report) === findingsText(r.load.ok ? r.load.value.report : l.report)
        ? 'yes'
        : `NO: ${mismatches.join(', ') || 'findings differ'}`,
    ],
  ];
}

/** Above this ratio per doubling the analysis is growing faster than linearly. */
const LINEAR_RATIO_LIMIT = 2.6;

function linearitySection(r: AnalysisResults): Section {
  const medians = r.linearity.map((l) => (l.timing.ok ? percentile(l.timing.value.samplesMs, 50) : undefined));
  const rows = r.linearity.map((l, i) => {
    if (!l.timing.ok) return [`${l.factor}x`, '', `failed: ${l.timing.error}`, '', ''];
    const median = medians[i] as number;
    const previous = i > 0 ? medians[i - 1] : undefined;
    const ratio = previous === undefined ? undefined : median / previous;
    return [
      `${l.factor}x`,
      int(l.timing.value.counts.pods),
      ms(median),
      ratio === undefined ? '' : `${ratio.toFixed(2)}x`,
      ratio === undefined ? '' : ratio <= LINEAR_RATIO_LIMIT ? 'yes' : 'NO (superlinear)',
    ];
  });
  return {
    title: 'Linearity',
    header: ['scale', 'pods', 'median analysis', 'vs previous', `linear (≤ ${LINEAR_RATIO_LIMIT}x)?`],
    rows,
    notes: [
      'Every count doubles per row except NodePools; linear work shows ~2x per doubling. Fewer runs than above (median of at least 5); informational, not a target.',
    ],
  };
}

const spread = (samples: readonly number[], format: (v: number) => string) =>
  `${format(median(samples))} (${format(Math.min(...samples))} – ${format(Math.max(...samples))})`;

/** `55 requests, 31.1 MB`; the range when runs differed. */
function statsText(stats: readonly RequestStats[]): string {
  const requests = [...new Set(stats.map((s) => s.requests))].sort((a, b) => a - b);
  const bytes = stats.map((s) => s.bytes);
  const byteText =
    Math.min(...bytes) === Math.max(...bytes) ? mb(bytes[0] ?? 0) : `${mb(Math.min(...bytes))} – ${mb(Math.max(...bytes))}`;
  return `${requests.join(' / ')} requests, ${byteText}`;
}

function sameFindings(a: ReportDigest, b: ReportDigest): boolean {
  return (
    a.findings === b.findings &&
    JSON.stringify(Object.entries(a.byCode).sort()) === JSON.stringify(Object.entries(b.byCode).sort())
  );
}

function liveSections(r: BenchResults): Section[] {
  const title = 'Live scan against the simulated API server';
  if (r.live === undefined) return [{ title, header: ['', ''], rows: [['not measured', r.notMeasured.live ?? 'not run']] }];
  if (!r.live.ok) return [{ title, header: ['', ''], rows: [['failed', r.live.error]] }];
  const live = r.live.value;
  const scans = live.scans;
  const row = (label: string, pick: (s: LiveScan) => number, format: (v: number) => string) => [
    label,
    spread(scans.map(pick), format),
  ];
  const first = scans[0];
  const offline = r.analysis?.timing.ok ? r.analysis.timing.value.report : undefined;
  const consistent = scans.every((s) => first !== undefined && sameFindings(s.report, first.report));
  const findings = first === undefined ? '' : findingsText(first.report);
  const versusOffline =
    offline === undefined || first === undefined
      ? ''
      : `; ${sameFindings(first.report, offline) ? 'the same as' : 'NOT the same as'} the offline analysis`;
  const scanSection: Section = {
    title,
    header: ['measure', 'median (min – max)'],
    rows: [
      ['runs (after warm-up runs), each scan a fresh process', `${scans.length} (after ${live.warmup})`],
      row('`scanCluster` wall time: fetch + analysis', (s) => s.scanMs, ms),
      row('  scan start → last Kubernetes answer', (s) => s.lastAnswerMs, ms),
      row('  after the last answer (merging it, detect, plan, report)', (s) => s.scanMs - s.lastAnswerMs, ms),
      row('process start → scan done (not gated)', (s) => s.processMs, ms),
      row('  of which Node.js boot and loading modules', (s) => s.loadedMs, ms),
      ['Kubernetes requests, response bytes', statsText(live.scanStats)],
      [
        '  of which the second wave (issues 14, 15): requests and AWS calls',
        first === undefined ? '' : secondWaveText(live, first),
      ],
      ['Kubernetes objects received', int(first?.steps.reduce((sum, step) => sum + step.items, 0) ?? 0)],
      row('RSS before the scan (modules, in-memory AWS, after GC)', (s) => s.rssBefore, mb),
      row('peak RSS while scanning (sampled every 1 ms)', (s) => s.peakRss, mb),
      row('  the scan itself (peak − before)', (s) => Math.max(0, s.peakRss - s.rssBefore), mb),
      row('process maxRSS', (s) => s.maxRss, mb),
      ['findings', `${findings}${consistent ? '' : ' [runs disagree]'}${versusOffline}`],
      [
        'server process (not measured above)',
        `seeded in ${ms(live.server.startMs)} (after generating the cluster in ${ms(live.server.generateMs)}); RSS ${mb(live.server.rss)}`,
      ],
    ],
    notes: [
      "`scanCluster(connection, { detection: DEFAULT_DETECTION, actions: CLI_ACTIONS, now })`, dry run, every source, in a child process of its own; the simulator (`simulateSnapshot` of the synthetic cluster: HTTPS on 127.0.0.1, TLS verified against its CA) in another. Kubernetes through the real adapter and the kubeconfig kubectl uses (context `simulator`); AWS answered by the simulator's in-memory account, built in the scan's process from the cluster's AWS records before the clock starts.",
      `The controller is healthy, so the collector reads the Pending pods and the controller's pods (two selector lists), not all ${int(live.server.counts.pods)} pods; and the pods of each node Karpenter is terminating or disrupting or that has not initialised (one \`spec.nodeName\` list per node, 4 at a time), the previous log of each restarted controller pod, and one DescribeSubnets for the EC2NodeClasses' subnets.`,
    ],
  };
  return [scanSection, floorSection(live), kubectlSection(live)];
}

/**
 * What the second wave's sources cost the scan, from its first run: `2 lists (poddisruptionbudgets
 * 401, volumeattachments 498 objects) + 60 pod lists (one per node of interest: 20 terminating, 30
 * drifted, 10 uninitialised; 75 pods) + 1 previous log (5 lines) + 1 DescribeSubnets`.
 */
export function secondWaveText(live: LiveResults, scan: LiveScan): string {
  const step = (label: string) => scan.steps.find((s) => s.label === label);
  const lists = ['poddisruptionbudgets', 'volumeattachments'].map((label) => ({ label, step: step(label) }));
  const read = lists.filter((l) => l.step !== undefined);
  const listCalls = read.reduce((n, l) => n + (l.step?.calls ?? 0), 0);
  const listText = `${listCalls} list${listCalls === 1 ? '' : 's'} (${read.map((l) => `${l.label} ${int(l.step?.items ?? 0)}`).join(', ')} objects)`;
  const interest = live.server.nodesOfInterest;
  const why = [
    [interest.terminating, 'terminating'],
    [interest.drifted, 'drifted'],
    [interest.uninitialized, 'uninitialised'],
    [interest.expired, 'expired'],
  ]
    .filter(([n]) => (n as number) > 0)
    .map(([n, what]) => `${int(n as number)} ${what}`)
    .join(', ');
  const pods = step(NODE_PODS_LABEL);
  const podText = `${int(pods?.calls ?? 0)} pod lists (one per node of interest${why === '' ? '' : `: ${why}`}; ${int(pods?.items ?? 0)} pods)`;
  const previous = step(PREVIOUS_LOG_LABEL);
  const previousText = `${int(previous?.calls ?? 0)} previous log${previous?.calls === 1 ? '' : 's'} (${int(previous?.items ?? 0)} lines)`;
  const subnets = scan.awsCalls['DescribeSubnets'] ?? 0;
  return `${listText} + ${podText} + ${previousText} + ${int(subnets)} DescribeSubnets`;
}

function kubectlSection(live: LiveResults): Section {
  const plan = kubectlFetchPlan(live.server.controllerNamespace);
  const stepMs = (runs: readonly KubectlTiming[][], label: string) =>
    median(runs.map((run) => run.find((t) => t.label === label)?.ms ?? Number.NaN));
  const scanStep = (label: string) => {
    const steps = live.scans.map((s) => s.steps.find((step) => step.label === label));
    const found = steps.filter((s) => s !== undefined);
    return found.length === 0 ? 'not read' : ms(median(found.map((s) => s.endMs - s.startMs)));
  };
  const items = (label: string) => {
    const step = live.scans[0]?.steps.find((s) => s.label === label);
    return step === undefined ? '' : int(step.items);
  };
  const scanMs = live.scans.map((s) => s.scanMs);
  return {
    title: 'kubectl fetching the same objects from the same server',
    header: ['what', 'kubectl, fresh cache dir', 'kubectl, warm cache dir', 'the scan (its calls, concurrent)', 'objects'],
    rows: [
      ...plan.map((step) => [
        step.label,
        ms(stepMs(live.kubectlCold, step.label)),
        ms(stepMs(live.kubectlWarm, step.label)),
        scanStep(step.label),
        items(step.label),
      ]),
      [
        `all ${plan.length}, one after another (scan: fetch + analysis)`,
        spread(live.kubectlCold.map(sequenceMs), ms),
        spread(live.kubectlWarm.map(sequenceMs), ms),
        spread(scanMs, ms),
        '',
      ],
      [
        'requests, response bytes',
        statsText(live.kubectlColdStats),
        statsText(live.kubectlWarmStats),
        statsText(live.scanStats),
        '',
      ],
      [
        `for context: \`kubectl ${ALL_PODS_STEP.args.join(' ')}\` (all pods, warm cache)`,
        '',
        live.allPodsMs.length === 0 ? '' : spread(live.allPodsMs, ms),
        '',
        int(live.server.counts.pods),
      ],
      ['  requests, response bytes', '', live.allPodsStats.length === 0 ? '' : statsText(live.allPodsStats), '', ''],
    ],
    notes: [
      `Medians of ${live.kubectlWarm.length} runs (totals: median (min – max)), after ${live.warmup} warm-up run. \`kubectl version --client\`: ${live.kubectlVersion}${live.kubectlVersion.includes('dispatcher') ? " (the Google Cloud SDK's dispatcher: it runs the bundled kubectl of the server's minor version, so each command is two processes and one extra request, for /version)" : ''}. Each command is its own kubectl process, timed from spawn to exit, stdout to /dev/null, with its own HOME and the simulator's kubeconfig; the runs are interleaved with the scans (scan, fresh cache, warm cache) so that load on the machine falls on all three alike.`,
      "Fresh cache dir: a new `--cache-dir` per run, so its first command fetches API discovery and the rest reuse it (a first use). Warm cache dir: one `--cache-dir` filled by the runs before (everyday use, discovery cached for hours). The target compares the scan with the warm figure, kubectl's best case.",
      `The commands, in order: ${plan.map((step) => `\`kubectl ${step.args.join(' ')}\``).join(', ')}. The same queries the collector makes (src/collect/kube-sources.ts); resources outside the core group named \`plural.version.group\`, the API the collector reads (plain \`events\` would be core/v1's), which kubectl resolves from its cache at once (\`plural.group\` it first tries as \`plural.version.group\`, misses, and refetches discovery).`,
      "The scan's column: first call sent → last answer of that step inside the scan, which runs up to 8 calls at once over one keep-alive connection pool (so the steps overlap and do not add up). The simulator does not gzip; bytes are response bodies.",
    ],
  };
}

const importSpread = (f: BundleMeasurement) => spread(f.importSamplesMs, ms);

function bundleSections(outcome: Outcome<BundleMeasurements>): Section[] {
  const title = 'Lambda artifacts';
  if (!outcome.ok) return [{ title, header: ['', ''], rows: [['failed', outcome.error]] }];
  const b = outcome.value;
  const runs = b.functions[0]?.importSamplesMs.length ?? 0;
  const comparison = interruptionsVersusScan(b.functions);
  return [
    {
      title,
      header: [
        'function',
        'zipped artifact',
        'bundle',
        `import on Node ${b.nodeVersion}, median (min – max)`,
        'AWS SDK clients (@aws-sdk/client-*)',
        'Kubernetes modules',
        'largest module (share of the bundle)',
      ],
      rows: b.functions.map((f) => {
        const c = f.composition;
        return [
          f.name,
          kb(f.zipBytes),
          kb(f.bundleBytes),
          importSpread(f),
          c.sdkClients.map((client) => client.replace('@aws-sdk/client-', '')).join(', '),
          c.kubernetesInputs === 0 ? '0' : `${c.kubernetesInputs} (${kb(c.kubernetesBytes)})`,
          c.largestInput
            ? `\`${c.largestInput.path}\` ${kb(c.largestInput.bytes)} (${percent(c.largestInput.bytes, f.bundleBytes)})`
            : '',
        ];
      }),
      notes: [
        ...(comparison ? [comparison] : []),
        `Zipped artifact: \`.serverless/<fn>.zip\` as \`osls package\` writes it, what is uploaded; its only file is the bundle, \`dist/<fn>/index.mjs\` (scripts/bundle.ts: esbuild, ESM, minified, target node22, the AWS SDK bundled in). ${
          b.packaging
            ? `Bundled and packaged by this run (bundling ${ms(b.packaging.bundleMs)}, osls ${ms(b.packaging.oslsMs)}).`
            : 'The artifacts already in .serverless/ and dist/ (`--reuse-package`).'
        } Modules and sizes per module: esbuild's metafile, \`dist/<fn>/meta.json\` (\`npx esbuild --analyze\` reads it); "Kubernetes modules" counts every module of the import graph under src/adapters/kubernetes/ or node_modules/@kubernetes/.`,
        `Import: \`await import(bundle)\` timed inside a fresh Node process, ${runs} per function, with dummy configuration in the environment and no credentials: evaluating the modules and the entry's top level (reading the config, constructing the SDK clients), which a cold start pays before the first event; Node's own start-up is not counted. This machine, not Lambda's arm64.`,
      ],
    },
  ];
}

/** Plainly: does `interruptions` carry Kubernetes code, and why is it as big as it is next to `scan`. */
export function interruptionsVersusScan(functions: readonly BundleMeasurement[]): string | undefined {
  const interruptions = functions.find((f) => f.name === 'interruptions');
  const scan = functions.find((f) => f.name === 'scan');
  if (!interruptions || !scan) return undefined;
  const i = interruptions.composition;
  const s = scan.composition;
  const kubernetes =
    i.kubernetesInputs === 0
      ? `\`interruptions\` loads no Kubernetes code: none of its ${int(i.inputs)} modules is from src/adapters/kubernetes or @kubernetes (\`scan\`: ${int(s.kubernetesInputs)}, ${kb(s.kubernetesBytes)}).`
      : `\`interruptions\` carries Kubernetes code: ${int(i.kubernetesInputs)} modules, ${kb(i.kubernetesBytes)} (\`scan\`: ${int(s.kubernetesInputs)}, ${kb(s.kubernetesBytes)}).`;
  const sizes = `${kb(interruptions.bundleBytes)} vs ${kb(scan.bundleBytes)} (${percent(interruptions.bundleBytes, scan.bundleBytes)}), ${kb(interruptions.zipBytes)} vs ${kb(scan.zipBytes)} zipped`;
  const shared =
    i.largestInput && s.largestInput && i.largestInput.path === s.largestInput.path ? i.largestInput.path : undefined;
  if (!shared || !i.largestInput || !s.largestInput) {
    const largest = (f: BundleMeasurement) =>
      f.composition.largestInput ? `\`${f.composition.largestInput.path}\` ${kb(f.composition.largestInput.bytes)}` : 'none';
    return `${kubernetes} Its bundle next to \`scan\`'s: ${sizes}. Largest module: \`interruptions\` ${largest(interruptions)}, \`scan\` ${largest(scan)}.`;
  }
  const what = shared.startsWith('@aws-sdk/client-ec2/') ? "the EC2 SDK client's schema file" : 'one module';
  return (
    `${kubernetes} Its bundle is nonetheless close to \`scan\`'s, ${sizes}, because both carry ${what}: the largest module of each is \`${shared}\` ` +
    `(${kb(i.largestInput.sourceBytes)} before minifying), ${kb(i.largestInput.bytes)} of \`interruptions\` (${percent(i.largestInput.bytes, interruptions.bundleBytes)}) ` +
    `and ${kb(s.largestInput.bytes)} of \`scan\` (${percent(s.largestInput.bytes, scan.bundleBytes)}). ` +
    `Without it: \`interruptions\` ${kb(interruptions.bundleBytes - i.largestInput.bytes)}, \`scan\` ${kb(scan.bundleBytes - s.largestInput.bytes)}.`
  );
}

function kindsText(kinds: Partial<Record<string, number>>): string {
  return Object.entries(kinds)
    .map(([kind, n]) => `${kind} ${n}`)
    .join(', ');
}

function interruptionsSection(outcome: Outcome<InterruptionsBench>): Section {
  const title = 'Interruptions: EC2 calls and handler time per SQS batch';
  if (!outcome.ok) return { title, header: ['', ''], rows: [['failed', outcome.error]] };
  const { batches, runs, warmup } = outcome.value;
  const first = batches[0];
  return {
    title,
    header: [
      'batch',
      'records',
      'instances',
      'DescribeInstances per batch',
      'per message',
      'other EC2 / EKS / IAM calls',
      'metrics writes (EMF)',
      'alerts published',
      'failed records',
      'handler time, median (p95)',
    ],
    rows: batches.map((b) => [
      b.label,
      String(b.records),
      String(b.instances),
      String(b.describeInstancesCalls),
      (b.describeInstancesCalls / b.records).toFixed(2),
      String(b.otherAwsCalls),
      String(b.metricsWrites),
      String(b.alertsPublished),
      String(b.batchItemFailures),
      `${ms(median(b.samplesMs))} (${ms(percentile(b.samplesMs, 95))})`,
    ]),
    notes: [
      `\`createInterruptionsHandler\` (src/service/handlers/interruptions.ts), the deployed handler, over in-memory ports: the simulator's AWS (src/simulator/in-memory-aws.ts, which records every call), the in-memory state table, a recording alert topic and metrics sink; settings are \`readInterruptionsConfig\`'s defaults. Records from events/interruptions.*.json; every instance belongs to one Karpenter cluster whose controller a scan saw available a minute earlier. Kinds in the mixed batch: ${kindsText(batches.find((b) => b.name.endsWith('mixed'))?.kinds ?? {})}.`,
      `Each run is a fresh function (empty state table) so no run sees another's deliveries; the last row delivers the batch once untimed, then measures the second delivery: its events are already handled, so nothing is resolved, counted or alerted again. ${runs} runs per batch after ${warmup} warm-up runs, in a fresh child process${first ? `; the very first invocation in that process took ${ms(first.firstRunMs)} (cold JIT, not in the medians)` : ''}.`,
      "Handler time is the function's own work (parse, claim, resolve owners, count, plan alerts) with every port answering from memory. Deployed, each invocation adds its AWS round trips: the one DescribeInstances, the state table's claims and counters and an SNS publish per alert (the metrics are EMF lines in the log: no call).",
    ],
  };
}

/** `DescribeCluster 1, ListInstanceProfiles 1`: the calls of a run other than `shown`, in call-count order. */
export function otherCalls(counts: OperationCounts, shown: readonly string[]): string {
  const rest = Object.entries(counts).filter(([op, n]) => !shown.includes(op) && n !== undefined && n > 0);
  return rest.length === 0 ? 'none' : rest.map(([op, n]) => `${op} ${n}`).join(', ');
}

const APPLY_SHOWN = [
  'TerminateInstances',
  'DescribeInstances',
  'DeleteLaunchTemplate',
  'RemoveRoleFromInstanceProfile',
  'DeleteInstanceProfile',
];

function callsText(m: CleanupRunMeasurement): string {
  const total = Object.values(m.awsCalls).reduce((sum, n) => sum + (n ?? 0), 0);
  return `${total} (${m.awsWrites} writes): ${otherCalls(m.awsCalls, [])}`;
}

const ROW_ONE = "the cluster's Karpenter instances: n (running / stopped / pending)";

function stateRoundTripsSection(outcome: Outcome<StateRoundTripsBench>): Section {
  const title = 'State round trips per scan';
  if (!outcome.ok) return { title, header: ['measure', 'value'], rows: [['scenarios', failure(outcome)]] };
  return {
    title,
    header: ['scan', 'requests before (a5cf0ee)', 'requests now', 'by operation', 'alerts sent'],
    rows: outcome.value.scenarios.map((s) => [
      s.name,
      s.before === undefined ? '—' : int(s.before),
      int(s.total),
      Object.entries(s.requests)
        .map(([operation, n]) => `${operation} ${n}`)
        .join(', '),
      int(s.alerts),
    ]),
    notes: [
      '`createScanHandler` (src/service/handlers/scan.ts), the deployed handler and use case, one SQS message per scan, the state table over dynalite (a real DynamoDB API on 127.0.0.1) through a DynamoDB client that counts every HTTP request; clusters simulated from examples/healthy, examples/orphans-after-destroy and examples/fargate-bootstrap-deadlock (its controller restarted; RESTART_COOLDOWN 15 min), scanned a minute apart (the one new alert: an instance outliving its grace period 9 minutes in). The scan-dispatch tick makes no state request at all.',
      'Before: the same scenarios on a5cf0ee, where every scan queried the outbox, the cooldowns and the open alerts and rewrote the controller status. Now a scan reads only what the summary the last complete scan left with the cluster’s lease says may hold something, and writes the status only when it changed (docs/service.md, "State round trips"). The four requests of a quiet scan are the two guardrails and their release: claim the message, take the lease, mark the message done, release the lease (with the summary). A first scan, one after a failed scan, and one that took a lapsed holder’s lease (and the scan after it) read everything. — : not measured on a5cf0ee.',
    ],
  };
}

function cleanupSection(results: CleanupResults): Section {
  const title = 'Cleanup: AWS calls and time per run';
  const first = results.flatMap((c) => (c.outcome.ok ? [c.outcome.value] : []))[0];
  const row = (label: string, cell: (m: CleanupScaleMeasurement) => string) => [
    label,
    // A failed size says why in its first cell and leaves the rest empty.
    ...results.map((c) => (c.outcome.ok ? cell(c.outcome.value) : label === ROW_ONE ? failure(c.outcome) : '')),
  ];
  const apply = (m: CleanupScaleMeasurement) => m.applyRuns[0] as CleanupRunMeasurement;
  const op = (name: string) => (m: CleanupScaleMeasurement) => String(apply(m).awsCalls[name as keyof OperationCounts] ?? 0);
  const kube = (m: CleanupRunMeasurement) => `${m.kubeRequests}, ${int(m.kubeChanges)}`;
  const wall = (runs: readonly CleanupRunMeasurement[]) =>
    spread(
      runs.map((m) => m.ms),
      ms,
    );
  const removed = (m: CleanupRunMeasurement) =>
    [
      counted(m.listed.nodePools, 'NodePool'),
      counted(m.listed.instances, 'instance'),
      counted(m.listed.launchTemplates, 'launch template'),
      counted(m.listed.instanceProfiles, 'instance profile'),
    ].join(', ') +
    (m.complete ? '; complete' : '; NOT complete') +
    (m.errors ? `, ${counted(m.errors, 'error')}` : '');
  return {
    title,
    header: ['measure', ...results.map((c) => `n = ${int(c.instances)}`)],
    rows: [
      row(ROW_ONE, (m) => {
        const k = m.account.karpenter;
        return `${int(m.karpenterInstances)} (${int(k.running)} / ${int(k.stopped)} / ${int(k.pending)})`;
      }),
      row("other instances: node groups / another cluster's Karpenter / already terminated", (m) => {
        const o = m.account.others;
        return `${int(o.nodeGroup)} / ${int(o.otherCluster)} / ${int(o.terminated)}`;
      }),
      row('NodePools / NodeClaims', (m) => `${m.account.nodePools} / ${int(m.account.nodeClaims)}`),
      row("launch templates / instance profiles: Karpenter's of the cluster (all)", (m) => {
        const { launchTemplates: t, instanceProfiles: p } = m.account;
        return `${t.karpenter} (${t.all}) / ${p.karpenter} (${p.all})`;
      }),
      row(
        `apply: TerminateInstances (⌈n/${TARGET_TERMINATE_BATCH}⌉)`,
        (m) => `${op('TerminateInstances')(m)} (${terminateCallsFor(m.karpenterInstances)})`,
      ),
      row('apply: DescribeInstances', op('DescribeInstances')),
      row('apply: DeleteLaunchTemplate', op('DeleteLaunchTemplate')),
      row('apply: RemoveRoleFromInstanceProfile', op('RemoveRoleFromInstanceProfile')),
      row('apply: DeleteInstanceProfile', op('DeleteInstanceProfile')),
      row('apply: other AWS calls', (m) => otherCalls(apply(m).awsCalls, APPLY_SHOWN)),
      row('apply: AWS calls in all (writes)', (m) => {
        const a = apply(m);
        return `${Object.values(a.awsCalls).reduce((sum, n) => sum + (n ?? 0), 0)} (${a.awsWrites})`;
      }),
      row('apply: Kubernetes requests, objects changed', (m) => kube(apply(m))),
      row('apply: removed', (m) => removed(apply(m))),
      row('apply: waits skipped (slept on the stepping clock)', (m) => `${(apply(m).simulatedWaitMs / 1000).toFixed(0)} s`),
      row('apply: wall time, median (min – max)', (m) => wall(m.applyRuns)),
      row('dry run: AWS calls (writes)', (m) => callsText(m.dryRuns[0] as CleanupRunMeasurement)),
      row('dry run: Kubernetes requests, objects changed', (m) => kube(m.dryRuns[0] as CleanupRunMeasurement)),
      row('dry run: wall time, median (min – max)', (m) => wall(m.dryRuns)),
      row('second run: AWS calls (writes)', (m) => callsText(m.secondRun)),
      row('second run: Kubernetes requests, objects changed', (m) => kube(m.secondRun)),
      row(
        'peak RSS during one apply run, over the RSS before',
        (m) => `${mb(Math.max(0, m.memory.peakRss - m.memory.rssBefore))} (${mb(m.memory.rssBefore)} → ${mb(m.memory.peakRss)})`,
      ),
      row(
        'heap used after one apply run, over the heap before (garbage not collected)',
        (m) => `${mb(m.memory.heapAfter - m.memory.heapBefore)} (${mb(m.memory.heapBefore)} → ${mb(m.memory.heapAfter)})`,
      ),
      row('problems', (m) => (m.problems.length === 0 ? 'none' : m.problems.join('; '))),
    ],
    notes: [
      "`runCleanup` (src/usecases/cleanup.ts), every NodePool, `deleteNodePools: true`, against the simulator: `simulateSnapshot` of a synthetic account after a partial `terraform destroy` (bench/cleanup-account.ts). Kubernetes through the real adapter over HTTPS to the simulated API server on 127.0.0.1, which holds the NodePools and NodeClaims but no Karpenter pod (the controller is gone, so nothing drains the NodeClaims); AWS answered by the simulator's in-memory account, which records every call. n: the cluster's Karpenter instances, 8 in 10 running, 1 stopped (no NodeClaim), 1 pending, over 4 NodePools; the other instances, launch templates and instance profiles (another cluster's, the node groups', Terraform's) must be left alone, and after each apply run the bench checks that they were.",
      "AWS calls are calls of the use case to the AWS ports, as the in-memory AWS records them. TerminateInstances is one EC2 request each (at most 50 ids). Against AWS the EC2 adapter sends each DescribeInstances as one query per cluster tag (two), paged by 1,000 instances (by 200 ids while waiting for terminations), and the IAM adapter adds one ListInstanceProfileTags per profile that may be Karpenter's. In the simulation a terminated instance shows `terminated` at the next DescribeInstances, so the apply run does not wait; against EC2 it polls every 10 s until they are. Kubernetes requests: as the simulated API server counts them, lists in pages of 500 (the NodeClaims, several pages). Objects changed: how far the resourceVersion of the store moved, i.e. the NodePools the run deleted and the NodeClaims the simulated garbage collection then marked deleted.",
      `Wall time is the run's own work: every AWS answer from memory, every Kubernetes answer from the simulated API server on 127.0.0.1 (in the same process, so serving counts too), and a clock whose sleep returns at once (it only steps the time), so no simulated wait is in it. Each run seeds a fresh simulation first (not timed); the second run follows an apply run on what it left. ${first ? `${first.dryRuns.length} dry runs and ${first.applyRuns.length} apply runs per account size after ${first.warmup} warm-up of each, alternating, in a fresh child process per size.` : ''} Memory: around one more apply run, from after a GC: the peak RSS (sampled every 1 ms) over the RSS before, and the heap used right after it over the heap before (what the run allocated and the GC had not yet reclaimed), the simulated API server's included.`,
    ],
  };
}

export function renderConsole(r: BenchResults): string {
  return sections(r)
    .map((s) => {
      const all = s.header.some((h) => h !== '') ? [s.header, ...s.rows] : s.rows;
      const widths = all[0]?.map((_, c) => Math.max(...all.map((row) => (row[c] ?? '').length))) ?? [];
      const lines = all.map((row) =>
        row.map((cell, c) => (c === row.length - 1 ? cell : cell.padEnd(widths[c] ?? 0))).join('  '),
      );
      return [`== ${s.title}`, ...lines].join('\n');
    })
    .join('\n\n');
}

const METHOD = [
  '## Method',
  '',
  '- `npm run bench` prints these tables; `-- --write` rewrites this file; `--scale N` (default 1), `--runs N` (default 20), `--warmup N` (default 5), `--keep-capture` keeps the written capture directory.',
  "- Every measurement runs in a fresh child process (`child_process.fork` of bench/run.ts with `process.execPath` and `--expose-gc`), so no measurement inherits another's heap or JIT state.",
  '- Time: wall time of `analyze` after the warm-up runs; the target uses p95. The first run in a fresh process is shown separately: one CLI scan pays it once.',
  '- Memory: a worker thread samples the process RSS every millisecond while one analysis runs; the target is that peak over the RSS of the process holding the snapshot after a full GC (the memory the analysis itself needs). Holding the snapshot and loading the capture files cost far more and are shown, not gated.',
  '- Loading: `loadSnapshot([dir])` of the files `writeCaptureFiles` writes for the same cluster, then one analysis of what was loaded, like `karpenter-sentinel scan --from DIR`.',
  '- Live: the same cluster served by the simulator in one child process; per run (`--live-runs N`, default 5, after one warm-up) a full dry-run `scanCluster` in a fresh child process (wall time; RSS sampled every millisecond), then kubectl fetching the same objects one command after another with a fresh `--cache-dir`, then with a warm one (`--kubectl PATH`, default /usr/bin/kubectl). The simulated server counts requests and response bytes of each. After each scan, its floor: the requests the server received during it, sent again in a fresh process by a client that only GETs and JSON.parses (bench/floor.ts), and the keeping floor, the same client holding every parsed answer to the end, in another fresh process (the floor first on one run, the keeping floor first on the next); then the scan’s snapshot analysed once in a fresh process (the cold analysis), whose report must be the scan’s. Then the same cluster with its controller down (bench/synthetic/controller-down.ts), served by a server of its own: scans, floors, keeping floors and cold analyses, interleaved. `--skip-live` leaves it out.',
  '- Lambda artifacts: `npm run package` first (scripts/bundle.ts, then `osls package`, offline; `--reuse-package` measures the artifacts already there), then per function the zip, the bundle, its esbuild metafile and `--import-runs N` (default 11) imports of the bundle, each in a fresh Node process.',
  '- Interruptions: the deployed handler over in-memory ports, fed SQS batches built from events/interruptions.*.json; the simulated AWS counts the calls.',
  '- State round trips: the deployed scan handler, one SQS message per scan, over a dynalite state table through a DynamoDB client that counts every HTTP request; clusters simulated from examples/.',
  '- Cleanup: `runCleanup` against the simulator (real Kubernetes adapter over HTTPS, in-memory AWS) for accounts of 100, 1,000 and 3,000 Karpenter instances of the cluster, a fresh child process each; dry runs and apply runs each on a fresh simulation, then a second run after each apply run; the simulated AWS counts the calls.',
  '- Hostile capture files: gzip bombs, an 80 MB YAML flow sequence and a 2 GiB file built in a temp folder, each given to the real command line (`scan --from`) in a fresh process; wall time to its exit and its peak RSS.',
  '- Distribution: the packed tarball installed globally and the single executable, built in a temp folder; start-up of `--version` and a small `scan --from` in fresh processes, for the checkout, the installed tarball and the binary.',
  '- `--only analysis,live,bundles,interruptions,state-round-trips,cleanup,bounded-read,distribution` (or `lambda` for bundles and interruptions) runs just those sections, e.g. `npm run bench -- --only lambda` in about a minute; `--write` needs them all.',
  '',
];

export function renderMarkdown(r: BenchResults): string {
  const escape = (cell: string) => cell.replaceAll('|', '\\|');
  const body = sections(r).map((s) => {
    const header = s.header.some((h) => h !== '') ? s.header : s.header.map(() => ' ');
    const table = [
      `| ${header.join(' | ')} |`,
      `|${header.map(() => '---').join('|')}|`,
      ...s.rows.map((row) => `| ${row.map(escape).join(' | ')} |`),
    ];
    const notes = (s.notes ?? []).flatMap((note) => ['', note]);
    return [`## ${s.title}`, '', ...table, ...notes].join('\n');
  });
  return [
    '# Benchmarks',
    '',
    `Generated by \`npm run bench -- --write${r.scale === 1 ? '' : ` --scale ${r.scale}`}\` (bench/run.ts) on ${r.date}; re-run it rather than editing this file.`,
    'The cluster is synthetic and deterministic (bench/synthetic-cluster.ts): the same seed gives the same objects on every machine.',
    '',
    ...body.flatMap((b) => [b, '']),
    ...METHOD,
  ].join('\n');
}
