/**
 * The single executable (`npm run build:binary`): built once into a temporary folder, then run on
 * a PATH that holds nothing but the binary (so no Node.js), and as a kubectl plugin through the real
 * kubectl (`kubectl sentinel ...`). Its examples and TLS files travel inside it: the demo and the
 * simulator must work from an empty folder.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBinary } from '../../../scripts/build-cli.ts';
import { REPO_ROOT } from '../../../scripts/functions.ts';
import { findingsOf, isExampleTimeNote, copyExample, EXAMPLE_FINDINGS, exampleCount, packageVersion, runProcess } from './run.ts';

let work = '';
let binDir = '';
let binary = '';
let capture = '';
/** Where the binary unpacks its files (TMPDIR), so the run leaves nothing in the machine's /tmp. */
let scratch = '';
let env: Record<string, string> = {};

/** The machine's kubectl (the bench uses the same one). */
function findKubectl(): string {
  for (const dir of ['/usr/bin', '/usr/local/bin', ...(process.env.PATH ?? '').split(path.delimiter)]) {
    const candidate = path.join(dir, 'kubectl');
    if (dir && existsSync(candidate)) return candidate;
  }
  throw new Error('kubectl not found: these tests run the binary as a kubectl plugin');
}

beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'sentinel-binary-'));
  binDir = path.join(work, 'bin');
  scratch = path.join(work, 'tmp');
  await mkdir(scratch);
  ({ file: binary } = await buildBinary({ out: path.join(binDir, 'kubectl-sentinel') }));
  const elsewhere = path.join(work, 'elsewhere');
  await mkdir(elsewhere);
  capture = await copyExample(elsewhere);
  env = { PATH: binDir, HOME: work, TMPDIR: scratch, NO_COLOR: '1' };
}, 240_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('dist/kubectl-sentinel, on a machine without Node.js', () => {
  it('is the size the README says, within 2% (most of it is Node itself)', async () => {
    const readme = await readFile(path.join(REPO_ROOT, 'README.md'), 'utf8');
    const stated = Number(/dist\/kubectl-sentinel \(about ([\d.]+) MB\)/.exec(readme)?.[1]);

    expect(Math.abs((await stat(binary)).size / 1e6 - stated) / stated).toBeLessThan(0.02);
  });

  it('has nothing but itself on PATH', async () => {
    expect(await readdir(binDir)).toEqual(['kubectl-sentinel']);
  });

  it('prints its version', async () => {
    const result = await runProcess(binary, ['--version'], { cwd: work, env });

    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(`karpenter-sentinel ${await packageVersion()}\n`);
  });

  it('scans a capture offline and prints the JSON report', async () => {
    const result = await runProcess(binary, ['scan', '--from', capture, '-o', 'json', '--fail-on', 'never'], {
      cwd: path.dirname(capture),
      env,
    });

    expect(isExampleTimeNote(result.stderr), result.stderr).toBe(true);
    expect(result.code).toBe(0);
    expect(findingsOf(result.stdout)).toEqual(EXAMPLE_FINDINGS);
  });

  it('runs the demo from the examples inside it, simulator included', async () => {
    const result = await runProcess(binary, ['demo'], { cwd: work, env, timeoutMs: 120_000 });

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`${await exampleCount()} simulated clusters scanned`);
    expect(result.stdout).toMatch(/Cleaned up after a partial destroy: [1-9]\d* NodePool/);
  }, 120_000);

  it('names itself as a kubectl plugin in its usage and hints', async () => {
    const help = await runProcess(binary, ['--help'], { cwd: work, env });
    const wrong = await runProcess(binary, ['scan', '--form', capture], { cwd: work, env });

    expect(help.stdout).toContain('Usage: kubectl sentinel <command> [options]');
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toBe(
      "karpenter-sentinel: unknown option --form for 'scan'; did you mean --from? (see kubectl sentinel help scan)\n",
    );
  });

  it('points its help at docs it carries: an absolute path to a file it unpacked', async () => {
    const result = await runProcess(binary, ['cleanup', '--help'], { cwd: work, env });

    const doc = /(\S+\/docs\/cleanup\.md)/.exec(result.stdout)?.[1] ?? '';
    expect(doc.startsWith(scratch)).toBe(true);
    expect(existsSync(doc)).toBe(true);
  });

  it('unpacks its examples once, into a folder only this user may enter', async () => {
    await runProcess(binary, ['--version'], { cwd: work, env });
    const [folder, ...others] = await readdir(scratch);

    expect(others).toEqual([]);
    expect(folder).toMatch(/^kubectl-sentinel-/);
    expect((await stat(path.join(scratch, folder ?? ''))).mode & 0o077).toBe(0);
    expect((await readdir(path.join(scratch, folder ?? ''))).length).toBe(1);
  });
});

describe('kubectl sentinel (the real kubectl finding the binary on PATH)', () => {
  it('is listed by kubectl plugin list', async () => {
    const result = await runProcess(findKubectl(), ['plugin', 'list'], { cwd: work, env });

    expect(result.stdout).toContain(binary);
  });

  it('scans a capture offline', async () => {
    const result = await runProcess(findKubectl(), ['sentinel', 'scan', '--from', capture, '-o', 'json', '--fail-on', 'never'], {
      cwd: work,
      env,
    });

    expect(isExampleTimeNote(result.stderr), result.stderr).toBe(true);
    expect(result.code).toBe(0);
    expect(findingsOf(result.stdout)).toEqual(EXAMPLE_FINDINGS);
  });

  it('passes the exit code through: a usage error is 2', async () => {
    const result = await runProcess(findKubectl(), ['sentinel', 'scan', '--bogus'], { cwd: work, env });

    expect(result.code).toBe(2);
    expect(result.stderr).toContain('(see kubectl sentinel help scan)');
  });

  it('alone, scans the current context: without a kubeconfig (HOME has none) it says what to pass', async () => {
    const result = await runProcess(findKubectl(), ['sentinel'], { cwd: work, env });

    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `karpenter-sentinel: ${path.join(work, '.kube', 'config')}: kubeconfig not found: pass --kubeconfig PATH, or --cluster NAME (and --region REGION), or --from PATH... for captured files\n`,
    );
  });
});
