/** The measurements, each run in a fresh child process (see run.ts) so memory numbers are its own. */
import { performance } from 'node:perf_hooks';
import type { ClusterSnapshot } from '../src/domain/snapshot.ts';
import { CLI_ACTIONS, DEFAULT_DETECTION } from '../src/domain/settings.ts';
import { loadSnapshot } from '../src/snapshot/load.ts';
import { analyze } from '../src/usecases/analyze.ts';
import type { Report } from '../src/domain/report.ts';
import { writeCaptureFiles, type KubectlFormat } from './capture-files.ts';
import { startRssSampler } from './rss-sampler.ts';
import { resolveOptions, syntheticCluster } from './synthetic-cluster.ts';

export interface ClusterCounts {
  pods: number;
  pendingPods: number;
  deployments: number;
  nodes: number;
  nodeClaims: number;
  nodePools: number;
  nodeClasses: number;
  instances: number;
  events: number;
  logLines: number;
  pdbs: number;
  volumeAttachments: number;
  subnets: number;
}

export interface Memory {
  rss: number;
  heapUsed: number;
}

export interface ReportDigest {
  findings: number;
  complete: boolean;
  summary: Report['summary'];
  byCode: Record<string, number>;
}

export interface AnalysisTiming {
  scale: number;
  counts: ClusterCounts;
  generateMs: number;
  /** The first analysis in the process, before the JIT has warmed up (what one CLI scan pays). */
  firstRunMs: number;
  warmup: number;
  samplesMs: number[];
  before: Memory;
  after: Memory;
  report: ReportDigest;
}

export interface AnalysisMemory {
  /** RSS and heap holding the snapshot, after a full GC, before analysing. */
  baseline: Memory;
  /** Highest RSS sampled while one analysis ran. */
  peakRssDuringAnalysis: number;
  heapAfter: number;
  /** `process.resourceUsage().maxRSS`: the whole process (generating the cluster included). */
  processMaxRss: number;
  analysisMs: number;
  findings: number;
}

export interface CaptureWrite {
  files: number;
  bytes: number;
  writeMs: number;
  counts: ClusterCounts;
}

export interface CaptureLoad {
  files: number;
  notices: string[];
  loadMs: number;
  counts: ClusterCounts;
  /** maxRSS after loading, then after analysing what was loaded (the offline `scan --from` path). */
  maxRssAfterLoad: number;
  analysisMs: number;
  maxRssAfterAnalysis: number;
  report: ReportDigest;
}

const gc = (globalThis as { gc?: () => void }).gc;

/** A full collection, twice so that what the first pass released is gone too; a no-op without --expose-gc. */
export function collectGarbage(): void {
  gc?.();
  gc?.();
}

function memory(): Memory {
  const m = process.memoryUsage();
  return { rss: m.rss, heapUsed: m.heapUsed };
}

function maxRssBytes(): number {
  return process.resourceUsage().maxRSS * 1024;
}

function analyzeNow(snapshot: ClusterSnapshot, now: Date): Report {
  return analyze(snapshot, { detection: DEFAULT_DETECTION, actions: CLI_ACTIONS, now });
}

export function countsOf(s: ClusterSnapshot): ClusterCounts {
  return {
    pods: s.pods.length,
    pendingPods: s.pods.filter((p) => p.status?.phase === 'Pending').length,
    deployments: s.deployments.length,
    nodes: s.nodes.length,
    nodeClaims: s.nodeClaims.length,
    nodePools: s.nodePools.length,
    nodeClasses: s.nodeClasses.length,
    instances: s.instances.length,
    events: s.events.length,
    logLines: s.logs.length,
    pdbs: s.pdbs.length,
    volumeAttachments: s.volumeAttachments.length,
    subnets: s.subnets.length,
  };
}

export function digest(report: Report): ReportDigest {
  const byCode: Record<string, number> = {};
  for (const f of report.findings) byCode[f.code] = (byCode[f.code] ?? 0) + 1;
  return { findings: report.findings.length, complete: report.complete, summary: report.summary, byCode };
}

function generate(scale: number): { snapshot: ClusterSnapshot; now: Date; generateMs: number } {
  const started = performance.now();
  const snapshot = syntheticCluster({ scale });
  return { snapshot, now: new Date(resolveOptions({ scale }).now), generateMs: performance.now() - started };
}

/** Warm-up runs, then `runs` timed runs of the whole analysis (detect + plan + report). */
export function measureAnalysisTime(scale: number, runs: number, warmup: number): AnalysisTiming {
  const { snapshot, now, generateMs } = generate(scale);
  collectGarbage();
  const before = memory();
  const firstStarted = performance.now();
  let report = analyzeNow(snapshot, now);
  const firstRunMs = performance.now() - firstStarted;
  for (let i = 1; i < warmup; i += 1) report = analyzeNow(snapshot, now);
  const samplesMs: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const started = performance.now();
    report = analyzeNow(snapshot, now);
    samplesMs.push(performance.now() - started);
  }
  return {
    scale,
    counts: countsOf(snapshot),
    generateMs,
    firstRunMs,
    warmup,
    samplesMs,
    before,
    after: memory(),
    report: digest(report),
  };
}

/** One analysis in a process that holds only the snapshot, as the CLI does. */
export async function measureAnalysisMemory(scale: number): Promise<AnalysisMemory> {
  const { snapshot, now } = generate(scale);
  collectGarbage();
  const baseline = memory();
  const sampler = await startRssSampler();
  const started = performance.now();
  const report = analyzeNow(snapshot, now);
  const analysisMs = performance.now() - started;
  const peakRssDuringAnalysis = await sampler.stop();
  const heapAfter = process.memoryUsage().heapUsed;
  return {
    baseline,
    peakRssDuringAnalysis,
    heapAfter,
    processMaxRss: maxRssBytes(),
    analysisMs,
    findings: report.findings.length,
  };
}

export function writeCapture(scale: number, dir: string, format: KubectlFormat = 'json'): CaptureWrite {
  const snapshot = syntheticCluster({ scale });
  const started = performance.now();
  const files = writeCaptureFiles(snapshot, dir, format);
  return {
    files: files.length,
    bytes: files.reduce((sum, f) => sum + f.bytes, 0),
    writeMs: performance.now() - started,
    counts: countsOf(snapshot),
  };
}

/** `loadSnapshot` of a capture directory, then one analysis of what it loaded. */
export async function measureLoad(scale: number, dir: string): Promise<CaptureLoad> {
  const now = new Date(resolveOptions({ scale }).now);
  const started = performance.now();
  const loaded = await loadSnapshot([dir]);
  const loadMs = performance.now() - started;
  const maxRssAfterLoad = maxRssBytes();
  const analysisStarted = performance.now();
  const report = analyzeNow(loaded.snapshot, now);
  const analysisMs = performance.now() - analysisStarted;
  return {
    files: loaded.files,
    notices: loaded.notices,
    loadMs,
    counts: countsOf(loaded.snapshot),
    maxRssAfterLoad,
    analysisMs,
    maxRssAfterAnalysis: maxRssBytes(),
    report: digest(report),
  };
}
