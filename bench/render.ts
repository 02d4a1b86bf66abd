/** Turns benchmark results into the console table and BENCHMARKS.md, from the same rows. */
import { ALL_PODS_STEP, kubectlFetchPlan, type KubectlTiming } from './kubectl.ts';
import type { LiveResults, LiveScan, RequestStats } from './live.ts';
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

export interface BenchResults {
  machine: Machine;
  date: string;
  scale: number;
  seed: number;
  runs: number;
  warmup: number;
  timing: Outcome<AnalysisTiming>;
  memory: Outcome<AnalysisMemory>;
  write: Outcome<CaptureWrite>;
  load: Outcome<CaptureLoad>;
  linearity: { factor: number; timing: Outcome<AnalysisTiming> }[];
  /** Undefined with `--skip-live`. */
  live: Outcome<LiveResults> | undefined;
  liveRuns: number;
  totalMs: number;
}

export const TARGET_MS = 300;
export const TARGET_BYTES = 300 * 1_000_000;

interface Section {
  title: string;
  header: string[];
  rows: string[][];
  notes?: string[];
}

const mb = (bytes: number) => `${(bytes / 1_000_000).toFixed(1)} MB`;
const ms = (value: number) => `${value.toFixed(value < 10 ? 2 : 1)} ms`;
const int = (value: number) => value.toLocaleString('en-US');

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

export function targets(r: BenchResults): { target: string; measured: string; pass: boolean | undefined }[] {
  const timing = r.timing.ok ? percentile(r.timing.value.samplesMs, 95) : undefined;
  const memory = r.memory.ok ? analysisMemoryBytes(r.memory.value) : undefined;
  const live = r.live?.ok ? liveComparison(r.live.value) : undefined;
  return [
    {
      target: `analysis under ${TARGET_MS} ms (p95 wall time)`,
      measured: timing === undefined ? failure(r.timing) : ms(timing),
      pass: timing === undefined ? undefined : timing < TARGET_MS,
    },
    {
      target: `analysis under ${TARGET_BYTES / 1_000_000} MB (peak RSS while analysing, over the RSS holding the snapshot)`,
      measured: memory === undefined ? failure(r.memory) : mb(memory),
      pass: memory === undefined ? undefined : memory < TARGET_BYTES,
    },
    {
      target: 'live scan (fetch + analysis) faster than kubectl fetching the same objects (medians; kubectl with a warm cache)',
      measured:
        live === undefined
          ? r.live === undefined
            ? 'not measured (--skip-live)'
            : failure(r.live)
          : `${ms(live.scanMs)} vs ${ms(live.kubectlMs)} (${(live.kubectlMs / live.scanMs).toFixed(1)}x faster)`,
      pass: live === undefined ? undefined : live.scanMs < live.kubectlMs,
    },
  ];
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
    ['controller log lines', counts.logLines],
  ];
  return {
    title: `Synthetic cluster (scale ${r.scale}, seed ${r.seed})`,
    header: ['object', 'count'],
    rows: rows.map(([k, v]) => [k, int(v)]),
    notes: [
      'All 18 sources captured. Planted problems: 20 × scale unregistered NodeClaims (node role not mapped), 50 × scale orphan instances, 2 EC2NodeClasses not Ready, a NodePool at its cpu limit, pending pods over five causes, 5 AccessDenied log lines, one unscoped AMI selector.',
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
      rows: targets(r).map((t) => [t.target, t.measured, verdict(t.pass)]),
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
  if (r.timing.ok) out.push(countsSection(r.timing.value.counts, r));
  if (r.timing.ok) {
    const t = r.timing.value;
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
    out.push({ title: 'Analysis time', header: ['', ''], rows: [['failed', r.timing.error]] });
  }
  if (r.timing.ok && r.memory.ok) {
    const t = r.timing.value;
    const m = r.memory.value;
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
  } else if (!r.memory.ok) {
    out.push({ title: 'Analysis memory', header: ['', ''], rows: [['failed', r.memory.error]] });
  }
  out.push(loadSection(r));
  out.push(linearitySection(r));
  out.push(...liveSections(r));
  return out;
}

function loadSection(r: BenchResults): Section {
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
    ],
    notes: [
      'Written by `writeCaptureFiles` (bench/capture-files.ts) in the DESIGN.md input format, 4-space indented as kubectl and the AWS CLI print it; loaded in a fresh child process.',
    ],
  };
}

/** Above this ratio per doubling the analysis is growing faster than linearly. */
const LINEAR_RATIO_LIMIT = 2.6;

function linearitySection(r: BenchResults): Section {
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
  if (r.live === undefined) return [{ title, header: ['', ''], rows: [['not measured', '--skip-live']] }];
  if (!r.live.ok) return [{ title, header: ['', ''], rows: [['failed', r.live.error]] }];
  const live = r.live.value;
  const scans = live.scans;
  const row = (label: string, pick: (s: LiveScan) => number, format: (v: number) => string) => [
    label,
    spread(scans.map(pick), format),
  ];
  const first = scans[0];
  const offline = r.timing.ok ? r.timing.value.report : undefined;
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
      `The controller is healthy, so the collector reads the Pending pods and the controller's pods (two selector lists), not all ${int(live.server.counts.pods)} pods.`,
    ],
  };
  return [scanSection, kubectlSection(live)];
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
  '- Live: the same cluster served by the simulator in one child process; per run (`--live-runs N`, default 5, after one warm-up) a full dry-run `scanCluster` in a fresh child process (wall time; RSS sampled every millisecond), then kubectl fetching the same objects one command after another with a fresh `--cache-dir`, then with a warm one (`--kubectl PATH`, default /usr/bin/kubectl). The simulated server counts requests and response bytes of each. `--skip-live` leaves it out.',
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
