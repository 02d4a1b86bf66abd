/** Turns benchmark results into the console table and BENCHMARKS.md, from the same rows. */
import type { AnalysisMemory, AnalysisTiming, CaptureLoad, CaptureWrite, ClusterCounts, ReportDigest } from './measure.ts';

export type Outcome<T> = { ok: true; value: T } | { ok: false; error: string };

export interface Machine {
  cpu: string;
  cores: number;
  memoryBytes: number;
  os: string;
  node: string;
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

export function targets(r: BenchResults): { target: string; measured: string; pass: boolean | undefined }[] {
  const timing = r.timing.ok ? percentile(r.timing.value.samplesMs, 95) : undefined;
  const memory = r.memory.ok ? analysisMemoryBytes(r.memory.value) : undefined;
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
    return [`## ${s.title}`, '', ...table, ...(s.notes ? ['', ...s.notes] : [])].join('\n');
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
