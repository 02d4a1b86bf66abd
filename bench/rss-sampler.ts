/**
 * Resident set size, measured. startRssSampler samples this process's every millisecond from a
 * worker thread, so the peak during a synchronous piece of work (which blocks the main thread) can
 * be seen (`process.resourceUsage().maxRSS` only gives the high-water mark of the whole process
 * life); watchChild keeps a measured child process within bounds.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';

const SAMPLER_SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
const cells = new Int32Array(workerData);
const sample = () => {
  const kib = Math.round(process.memoryUsage.rss() / 1024);
  if (kib > Atomics.load(cells, 1)) Atomics.store(cells, 1, kib);
};
sample();
parentPort.postMessage('ready');
while (Atomics.load(cells, 0) === 0) {
  sample();
  Atomics.wait(cells, 0, 0, 1);
}
sample();
`;

export interface RssSampler {
  /** Stops sampling; resolves to the highest RSS seen, in bytes. */
  stop(): Promise<number>;
}

export async function startRssSampler(): Promise<RssSampler> {
  // cells[0]: stop flag; cells[1]: peak RSS in KiB.
  const shared = new SharedArrayBuffer(8);
  const cells = new Int32Array(shared);
  const worker = new Worker(SAMPLER_SOURCE, { eval: true, workerData: shared });
  await new Promise<void>((resolve, reject) => {
    worker.once('message', () => resolve());
    worker.once('error', reject);
  });
  return {
    async stop() {
      Atomics.store(cells, 0, 1);
      Atomics.notify(cells, 0);
      await new Promise((resolve) => worker.once('exit', resolve));
      return Atomics.load(cells, 1) * 1024;
    },
  };
}

/** The resident set size of a running process (Linux /proc), in bytes; undefined where /proc does not say. */
function rssOfProcess(pid: number): number | undefined {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match?.[1] ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

export interface ChildWatchdog {
  /** Why it was killed, once it was. */
  readonly killed: string | undefined;
  /** Stops watching (call when the child has exited). */
  stop(): void;
}

/**
 * Kills a measured child (SIGKILL) once it runs longer than `ms` or its RSS passes `rssBytes`,
 * checked every 50 ms: a regression must not take the machine's memory or hang the bench.
 */
export function watchChild(child: ChildProcess, limits: { ms: number; rssBytes: number }): ChildWatchdog {
  const started = performance.now();
  let killed: string | undefined;
  const kill = (why: string) => {
    killed ??= why;
    child.kill('SIGKILL');
  };
  const timer = setInterval(() => {
    if (performance.now() - started > limits.ms) kill(`killed after ${limits.ms / 1000} s`);
    const rss = child.pid === undefined ? undefined : rssOfProcess(child.pid);
    if (rss !== undefined && rss > limits.rssBytes) kill(`killed at ${(rss / 1024 ** 3).toFixed(1)} GiB RSS`);
  }, 50);
  return {
    get killed() {
      return killed;
    },
    stop: () => clearInterval(timer),
  };
}
