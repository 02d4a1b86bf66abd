/**
 * `npm run bench [-- --scale N] [--runs N] [--warmup N] [--write] [--keep-capture]`
 *
 * Measures, each in a fresh child process: analysis wall time (warm-up, then median / p95),
 * analysis memory, writing and loading the cluster as capture files, and analysis time at 2x and
 * 4x the scale (linearity). Prints a table; `--write` rewrites BENCHMARKS.md.
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { measureAnalysisMemory, measureAnalysisTime, measureLoad, writeCapture } from './measure.ts';
import type { AnalysisMemory, AnalysisTiming, CaptureLoad, CaptureWrite } from './measure.ts';
import { renderConsole, renderMarkdown, targets, type BenchResults, type Outcome } from './render.ts';
import { DEFAULT_SYNTHETIC_CLUSTER } from './synthetic-cluster.ts';

const SELF = fileURLToPath(import.meta.url);
const BENCHMARKS_MD = fileURLToPath(new URL('../BENCHMARKS.md', import.meta.url));
const LINEARITY_FACTORS = [2, 4];

const { values } = parseArgs({
  options: {
    scale: { type: 'string', default: '1' },
    runs: { type: 'string', default: '20' },
    warmup: { type: 'string', default: '5' },
    write: { type: 'boolean', default: false },
    'keep-capture': { type: 'boolean', default: false },
    child: { type: 'string' },
    dir: { type: 'string' },
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

if (values.child) await runChild(values.child);
else await main();

async function runChild(mode: string): Promise<void> {
  let outcome: Outcome<unknown>;
  try {
    const dir = values.dir ?? '';
    const value =
      mode === 'time'
        ? measureAnalysisTime(scale, runs, warmup)
        : mode === 'memory'
          ? await measureAnalysisMemory(scale)
          : mode === 'write'
            ? writeCapture(scale, dir)
            : mode === 'load'
              ? await measureLoad(scale, dir)
              : undefined;
    outcome = value === undefined ? { ok: false, error: `unknown child mode ${mode}` } : { ok: true, value };
  } catch (error) {
    outcome = { ok: false, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
  process.send?.(outcome, () => process.disconnect());
}

function inChild<T>(label: string, args: string[]): Promise<Outcome<T>> {
  process.stderr.write(`bench: ${label}…\n`);
  return new Promise((resolve) => {
    const child = fork(SELF, args, {
      execPath: process.execPath,
      execArgv: ['--expose-gc', '--disable-warning=ExperimentalWarning'],
      stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
    });
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

async function main(): Promise<void> {
  const started = performance.now();
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
  let write: Outcome<CaptureWrite>;
  let load: Outcome<CaptureLoad>;
  try {
    write = await inChild<CaptureWrite>(`writing capture files to ${dir}`, ['--child', 'write', ...common, '--dir', dir]);
    load = write.ok
      ? await inChild<CaptureLoad>('loading the capture files', ['--child', 'load', ...common, '--dir', dir])
      : { ok: false, error: 'nothing was written' };
  } finally {
    if (!values['keep-capture']) rmSync(dir, { recursive: true, force: true });
  }

  const linearity: BenchResults['linearity'] = [{ factor: 1, timing }];
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

  const results: BenchResults = {
    machine: {
      cpu: os.cpus()[0]?.model.trim() ?? 'unknown',
      cores: os.availableParallelism(),
      memoryBytes: os.totalmem(),
      os: `${os.type()} ${os.release()} ${os.arch()}`,
      node: process.version,
    },
    date: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    scale,
    seed: DEFAULT_SYNTHETIC_CLUSTER.seed,
    runs,
    warmup,
    timing,
    memory,
    write,
    load,
    linearity,
    totalMs: performance.now() - started,
  };
  process.stdout.write(`${renderConsole(results)}\n`);
  if (values.write) {
    writeFileSync(BENCHMARKS_MD, renderMarkdown(results));
    process.stdout.write(`\nwrote ${BENCHMARKS_MD}\n`);
  }
  const failed = [timing, memory, write, load, ...linearity.map((l) => l.timing)].some((o) => !o.ok);
  if (failed || targets(results).some((t) => t.pass === false)) process.exitCode = 1;
}
