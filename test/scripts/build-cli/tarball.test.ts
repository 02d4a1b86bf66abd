/**
 * The packed tarball, installed the way the README says (`npm install -g ./karpenter-sentinel-<v>.tgz`),
 * works outside the checkout: `npm pack` builds the bundle (prepack), the install fetches nothing
 * (every dependency is in the bundle) and the command runs on plain JavaScript, which is the
 * point: Node never strips TypeScript types under node_modules.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../scripts/functions.ts';
import { findingsOf, isExampleTimeNote, copyExample, EXAMPLE_FINDINGS, exampleCount, packageVersion, runProcess } from './run.ts';

let work = '';
let tarball = '';
let installed = '';
let capture = '';
/** Node 22 on PATH for the command's `#!/usr/bin/env node`, and nothing of npm's own run. */
let env: Record<string, string> = {};

function withoutNpmVariables(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && !/^npm_/i.test(e[0])),
  );
}

beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'sentinel-tarball-'));
  const npmEnv = {
    ...withoutNpmVariables(),
    PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`,
  };
  const packed = await runProcess('npm', ['pack', '--pack-destination', work], {
    cwd: REPO_ROOT,
    env: npmEnv,
    timeoutMs: 150_000,
  });
  if (packed.code !== 0) throw new Error(`npm pack failed: ${packed.stderr}`);
  const name = (await readdir(work)).find((f) => f.endsWith('.tgz'));
  if (!name) throw new Error(`npm pack wrote no tarball: ${packed.stdout}`);
  tarball = path.join(work, name);
  const prefix = path.join(work, 'prefix');
  const install = await runProcess(
    'npm',
    ['install', '--global', '--prefix', prefix, '--offline', '--no-audit', '--no-fund', tarball],
    { cwd: work, env: npmEnv, timeoutMs: 60_000 },
  );
  if (install.code !== 0) throw new Error(`npm install -g failed: ${install.stderr}`);
  installed = path.join(prefix, 'bin', 'karpenter-sentinel');
  const elsewhere = path.join(work, 'elsewhere');
  await mkdir(elsewhere);
  capture = await copyExample(elsewhere);
  env = { PATH: `${path.dirname(process.execPath)}${path.delimiter}/usr/bin${path.delimiter}/bin`, HOME: work, NO_COLOR: '1' };
}, 240_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('the packed tarball', () => {
  it('holds the licence, the bundle, its TLS files and the examples, and none of the TypeScript sources', async () => {
    const { stdout } = await promisify(execFile)('tar', ['-tzf', tarball]);
    const files = stdout.split('\n').filter(Boolean);

    expect(files).toContain('package/LICENSE');
    expect(files).toContain('package/bin/karpenter-sentinel.js');
    expect(files).toContain('package/dist/cli/karpenter-sentinel.mjs');
    expect(files).toContain('package/dist/cli/tls/server.crt');
    expect(files).toContain('package/examples/nodes-not-registering-aws-auth/aws-auth.yaml');
    expect(files.filter((f) => f.endsWith('.ts'))).toEqual([]);
    expect((await stat(tarball)).size).toBeLessThan(5 * 1024 * 1024);
  });

  it('is the size the README says, within 10%', async () => {
    const readme = await readFile(path.join(REPO_ROOT, 'README.md'), 'utf8');
    const stated = Number(/karpenter-sentinel-[\d.]+\.tgz \(about ([\d.]+) MB\)/.exec(readme)?.[1]);

    expect(Math.abs((await stat(tarball)).size / 1e6 - stated) / stated).toBeLessThan(0.1);
  });

  it('installs globally without fetching a single dependency', () => {
    const pkg = path.join(path.dirname(path.dirname(installed)), 'lib', 'node_modules', 'karpenter-sentinel');

    expect(existsSync(path.join(pkg, 'dist', 'cli', 'karpenter-sentinel.mjs'))).toBe(true);
    expect(existsSync(path.join(pkg, 'node_modules'))).toBe(false);
  });
});

describe('the installed karpenter-sentinel, run outside the checkout', () => {
  it('prints its version', async () => {
    const result = await runProcess(installed, ['--version'], { cwd: work, env });

    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(`karpenter-sentinel ${await packageVersion()}\n`);
  });

  it('points its help at docs it ships: an absolute path inside the installed package', async () => {
    const result = await runProcess(installed, ['scan', '--help'], { cwd: work, env });
    const pkg = path.join(path.dirname(path.dirname(installed)), 'lib', 'node_modules', 'karpenter-sentinel');

    const doc = /(\S+\/docs\/usage\.md)/.exec(result.stdout)?.[1] ?? '';
    expect(doc).toBe(path.join(pkg, 'docs', 'usage.md'));
    expect(existsSync(doc)).toBe(true);
  });

  it('scans a capture offline and prints the JSON report', async () => {
    const result = await runProcess(installed, ['scan', '--from', capture, '-o', 'json', '--fail-on', 'never'], {
      cwd: path.dirname(capture),
      env,
    });

    expect(isExampleTimeNote(result.stderr), result.stderr).toBe(true);
    expect(result.code).toBe(0);
    expect(findingsOf(result.stdout)).toEqual(EXAMPLE_FINDINGS);
  });

  it('runs the demo on the examples it ships: a simulated cluster each, then the cleanup', async () => {
    const result = await runProcess(installed, ['demo'], { cwd: work, env, timeoutMs: 120_000 });

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`${await exampleCount()} simulated clusters scanned`);
    expect(result.stdout).toMatch(/Cleaned up after a partial destroy: [1-9]\d* NodePool/);
  }, 120_000);
});
