/**
 * Hostile capture files: gzip bombs and a huge file, each next to a good file in a capture folder,
 * given to the real command line (`bin/karpenter-sentinel.js scan --from DIR`) in a fresh Node
 * process. Measured: wall time from spawning it to its exit, its peak RSS (`maxRSS`, reported by a
 * preloaded module when it exits), its exit code and what it printed on stderr. A watchdog kills it
 * past WATCHDOG_RSS_BYTES or WATCHDOG_MS, so a regression cannot take the machine's memory.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync, createWriteStream, statSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { createGzip } from 'node:zlib';
import { watchChild } from './rss-sampler.ts';

const BIN = fileURLToPath(new URL('../bin/karpenter-sentinel.js', import.meta.url));
const GOOD_FILE = fileURLToPath(new URL('../examples/healthy/cluster.json', import.meta.url));
/** Written by the preloaded module at exit: the process's peak RSS. */
const MAX_RSS_MARK = 'bench-max-rss-kib:';
const PRELOAD = `data:text/javascript,process.on('exit',()=>process.stderr.write('\\n${MAX_RSS_MARK}'+process.resourceUsage().maxRSS+'\\n'))`;
const WATCHDOG_RSS_BYTES = 4 * 1024 ** 3;
const WATCHDOG_MS = 120_000;
const MiB = 1024 ** 2;
const GiB = 1024 ** 3;

export interface BombCase {
  name: string;
  /** The hostile file's name in the capture folder. */
  file: string;
  /** Its size on disk. */
  bytes: number;
  /** What it holds, unpacked. */
  unpackedBytes: number;
  /** Building it (not measured against a target). */
  buildMs: number;
  ms: number;
  maxRssBytes: number | undefined;
  exitCode: number | null;
  signal: string | null;
  /** stderr without the preload's line. */
  stderr: string;
  /** What the watchdog did, if anything. */
  killed?: string;
}

export interface BoundedReadBench {
  cases: BombCase[];
  /** The size limit the command ran with (its default). */
  limitBytes: number;
}

interface Bomb {
  name: string;
  file: string;
  /** Writes the file; resolves to what it holds, unpacked. */
  write(path: string): Promise<number>;
}

/**
 * One pod as `kubectl get -o json` prints a List's item (4-space indented, inside `items`), then
 * 16 KiB of whitespace: valid JSON that compresses about 650:1, so 2.2 GiB of it is a 3–4 MB file.
 */
const POD_ITEM = `${JSON.stringify(
  {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'inflate-5cf78d58f6-x7k2p', namespace: 'default' },
    spec: { containers: [{ name: 'inflate', image: 'public.ecr.aws/eks-distro/kubernetes/pause:3.7' }] },
    status: { phase: 'Pending' },
  },
  null,
  4,
).replaceAll('\n', '\n        ')},\n${' '.repeat(16 * 1024)}`;

/** The least a PodList item can be and still be kept: millions of objects for V8 to hold. */
const TINY_POD = '{"metadata":{"name":"p","namespace":"d"}},';

const BOMBS: readonly Bomb[] = [
  {
    name: '`kubectl get pods -o json | gzip` of one pod repeated, whitespace between, past 2 GiB',
    file: 'pods.json.gz',
    write: (path) =>
      gzipOf(
        path,
        '{\n    "apiVersion": "v1",\n    "items": [\n        ',
        POD_ITEM,
        2.2 * GiB,
        '{}\n    ],\n    "kind": "List"\n}\n',
      ),
  },
  {
    name: 'a List of one tiny pod repeated, gzip, just under 1 GiB (within the size limit)',
    file: 'pods.json.gz',
    write: (path) =>
      gzipOf(path, '{"apiVersion":"v1","kind":"PodList","items":[', TINY_POD, 1000 * MiB, '{"metadata":{"name":"p"}}]}'),
  },
  {
    name: '`items: [{},{},…]`, one YAML flow sequence of 28 million entries, 80 MB (within the size limit)',
    file: 'pods.yaml',
    write: (path) => plainOf(path, 'apiVersion: v1\nkind: PodList\nitems: [', '{},', 80 * MiB, '{}]\n'),
  },
  {
    name: 'controller log of zeros, gzip, past 2 GiB',
    file: 'karpenter.log.gz',
    write: (path) => gzipOf(path, '', '\0', 2.2 * GiB, ''),
  },
  {
    name: 'controller log of blank lines, gzip, past 2 GiB',
    file: 'karpenter.log.gz',
    write: (path) => gzipOf(path, '', '\n', 2.2 * GiB, ''),
  },
  {
    name: 'a 2 GiB file on disk (sparse)',
    file: 'pods.json',
    write: async (path) => {
      writeFileSync(path, '');
      truncateSync(path, 2 * GiB);
      return 2 * GiB;
    },
  },
];

/** `head`, then `unit` repeated to about `bytes`, then `tail`, gzipped (level 9) to `path`; resolves to the unpacked size. */
function gzipOf(path: string, head: string, unit: string, bytes: number, tail: string): Promise<number> {
  return repeatedFile(path, head, unit, bytes, tail, true);
}

/** The same written as it is. */
function plainOf(path: string, head: string, unit: string, bytes: number, tail: string): Promise<number> {
  return repeatedFile(path, head, unit, bytes, tail, false);
}

async function repeatedFile(path: string, head: string, unit: string, bytes: number, tail: string, gzip: boolean) {
  const block = Buffer.from(unit.repeat(Math.floor(MiB / unit.length)));
  const blocks = Math.ceil(bytes / block.length);
  async function* content() {
    yield Buffer.from(head);
    for (let i = 0; i < blocks; i++) yield block;
    yield Buffer.from(tail);
  }
  const file = createWriteStream(path);
  await (gzip ? pipeline(content(), createGzip({ level: 9 }), file) : pipeline(content(), file));
  return Buffer.byteLength(head) + blocks * block.length + Buffer.byteLength(tail);
}

export async function measureBoundedRead(limitBytes: number): Promise<BoundedReadBench> {
  const cases: BombCase[] = [];
  for (const bomb of BOMBS) {
    const dir = mkdtempSync(join(os.tmpdir(), 'karpenter-sentinel-bomb-'));
    try {
      writeFileSync(join(dir, 'cluster.json'), readFileSync(GOOD_FILE));
      const path = join(dir, bomb.file);
      process.stderr.write(`bench: bounded read: building ${bomb.file} (${bomb.name})…\n`);
      const built = performance.now();
      const unpackedBytes = await bomb.write(path);
      const buildMs = performance.now() - built;
      process.stderr.write(`bench: bounded read: scan --from a folder holding it…\n`);
      const run = await runCli(['scan', '--from', dir]);
      cases.push({
        name: bomb.name,
        file: bomb.file,
        bytes: statSync(path).size,
        unpackedBytes,
        buildMs,
        ...run,
        stderr: run.stderr.replaceAll(dir, 'DIR'),
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return { cases, limitBytes };
}

type CliRun = Pick<BombCase, 'ms' | 'maxRssBytes' | 'exitCode' | 'signal' | 'stderr' | 'killed'>;

function runCli(args: string[]): Promise<CliRun> {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', '--import', PRELOAD, BIN, ...args], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-8000);
    });
    const watchdog = watchChild(child, { ms: WATCHDOG_MS, rssBytes: WATCHDOG_RSS_BYTES });
    let ms = 0;
    child.on('exit', () => {
      ms = performance.now() - started;
      watchdog.stop();
    });
    // After 'exit' and the end of stderr.
    child.on('close', (exitCode, signal) => {
      const mark = stderr.lastIndexOf(MAX_RSS_MARK);
      const maxRssKib = mark < 0 ? undefined : Number.parseInt(stderr.slice(mark + MAX_RSS_MARK.length), 10);
      resolve({
        ms,
        maxRssBytes: maxRssKib === undefined ? undefined : maxRssKib * 1024,
        exitCode,
        signal,
        stderr: (mark < 0 ? stderr : stderr.slice(0, mark)).trim(),
        ...(watchdog.killed ? { killed: watchdog.killed } : {}),
      });
    });
  });
}
