/**
 * What a user installs: the packed tarball (`npm pack`, which builds the bundle) and the single
 * executable (`npm run build:binary`), both built into a temporary folder. Then start-up: wall time
 * from spawning to exit of `--version` and of `scan --from` on a small example (one capture folder,
 * JSON output), each in a fresh process, for the checkout's bin (TypeScript sources, type stripping),
 * the installed tarball (the ESM bundle) and the binary (Node SEA; its files unpacked by a warm-up run).
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { buildBinary, buildCli } from '../scripts/build-cli.ts';
import { REPO_ROOT } from '../scripts/functions.ts';

/** A small example: three capture files. */
export const DISTRIBUTION_EXAMPLE = 'ami-selector-no-match';

export type Artifact = 'checkout' | 'tarball' | 'binary';

export interface StartSamples {
  artifact: Artifact;
  versionMs: number[];
  scanMs: number[];
}

export interface DistributionBench {
  tarballBytes: number;
  /** The ESM bundle inside it. */
  bundleBytes: number;
  binaryBytes: number;
  /** Building the bundle (`npm run build`, what prepack runs) and the binary (`npm run build:binary`). */
  buildMs: { bundle: number; binary: number };
  example: string;
  starts: StartSamples[];
}

interface Spawned {
  ms: number;
  code: number;
  stderr: string;
}

function timed(command: string, args: readonly string[], cwd: string, env: Record<string, string>): Promise<Spawned> {
  const started = performance.now();
  return new Promise((resolve) => {
    execFile(command, [...args], { cwd, env, maxBuffer: 64 * 1024 * 1024 }, (error, _stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({ ms: performance.now() - started, code, stderr });
    });
  });
}

function withoutNpmVariables(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && !/^npm_/i.test(e[0])),
  );
}

async function mustRun(command: string, args: readonly string[], cwd: string, env: Record<string, string>): Promise<void> {
  const result = await timed(command, args, cwd, env);
  if (result.code !== 0) throw new Error(`${path.basename(command)} ${args.join(' ')} failed: ${result.stderr.trim()}`);
}

export async function measureDistribution(runs: number): Promise<DistributionBench> {
  const work = await mkdtemp(path.join(os.tmpdir(), 'sentinel-bench-dist-'));
  try {
    const nodeDir = path.dirname(process.execPath);
    const npmEnv = { ...withoutNpmVariables(), PATH: `${nodeDir}${path.delimiter}${process.env.PATH ?? ''}` };

    let started = performance.now();
    const bundle = await buildCli();
    const bundleMs = performance.now() - started;
    await mustRun('npm', ['pack', '--pack-destination', work], REPO_ROOT, npmEnv);
    const tarball = path.join(work, (await readdir(work)).find((f) => f.endsWith('.tgz')) ?? 'missing.tgz');
    const prefix = path.join(work, 'prefix');
    await mustRun(
      'npm',
      ['install', '--global', '--prefix', prefix, '--offline', '--no-audit', '--no-fund', tarball],
      work,
      npmEnv,
    );

    started = performance.now();
    const binary = await buildBinary({ out: path.join(work, 'bin', 'kubectl-sentinel') });
    const binaryMs = performance.now() - started;

    const capture = path.join(work, 'capture');
    await cp(path.join(REPO_ROOT, 'examples', DISTRIBUTION_EXAMPLE), capture, { recursive: true });
    const scratch = path.join(work, 'tmp');
    await mkdir(scratch);
    const env = { PATH: `${nodeDir}${path.delimiter}/usr/bin${path.delimiter}/bin`, HOME: work, TMPDIR: scratch, NO_COLOR: '1' };
    const commands: Record<Artifact, { command: string; args: string[]; env: Record<string, string> }> = {
      checkout: { command: process.execPath, args: [path.join(REPO_ROOT, 'bin', 'karpenter-sentinel.js')], env },
      tarball: { command: path.join(prefix, 'bin', 'karpenter-sentinel'), args: [], env },
      // No Node.js on its PATH.
      binary: { command: binary.file, args: [], env: { ...env, PATH: path.dirname(binary.file) } },
    };
    const scan = ['scan', '--from', capture, '-o', 'json', '--fail-on', 'never'];
    const starts: StartSamples[] = [];
    for (const artifact of ['checkout', 'tarball', 'binary'] as const) {
      const { command, args, env: childEnv } = commands[artifact];
      const once = async (extra: string[]): Promise<number> => {
        const result = await timed(command, [...args, ...extra], work, childEnv);
        if (result.code !== 0) throw new Error(`${artifact} ${extra.join(' ')} exited ${result.code}: ${result.stderr.trim()}`);
        return result.ms;
      };
      // Warm-up: the page cache, and the binary's one-time unpacking of its files.
      await once(['--version']);
      await once(scan);
      const samples: StartSamples = { artifact, versionMs: [], scanMs: [] };
      for (let i = 0; i < runs; i += 1) {
        samples.versionMs.push(await once(['--version']));
        samples.scanMs.push(await once(scan));
      }
      starts.push(samples);
    }
    return {
      tarballBytes: (await stat(tarball)).size,
      bundleBytes: bundle.bytes,
      binaryBytes: binary.bytes,
      buildMs: { bundle: bundleMs, binary: binaryMs },
      example: DISTRIBUTION_EXAMPLE,
      starts,
    };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
