/**
 * Samples the process's resident set size every millisecond from a worker thread, so the peak
 * during a synchronous piece of work (which blocks the main thread) can be seen.
 * `process.resourceUsage().maxRSS` only gives the high-water mark of the whole process life.
 */
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
