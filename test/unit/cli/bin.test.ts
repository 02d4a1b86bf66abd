/** The installed command, run as users run it: a real process on this Node (22, see vitest.config.ts). */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../../src/domain/report.ts';

const BIN = fileURLToPath(new URL('../../../bin/karpenter-sentinel.js', import.meta.url));
const STACK_FRAME = /^\s+at /m;

async function runBin(args: string[], nodeOptions: string[] = []): Promise<{ code: number; stdout: string; stderr: string }> {
  const { NO_COLOR: _noColor, FORCE_COLOR: _forceColor, ...env } = process.env;
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [...nodeOptions, BIN, ...args], { env });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/** A module hook that refuses client-node and the AWS SDK: any static import of them fails the start. */
const REFUSING_HOOKS = `export async function resolve(specifier, context, next) {
  if (/^@(kubernetes|aws-sdk|smithy)[/]/.test(specifier)) throw new Error('cold start loaded ' + specifier);
  return next(specifier, context);
}`;
const REGISTER_HOOKS = `import { register } from 'node:module';
register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(REFUSING_HOOKS)}`)});`;
const HEAVY_MODULES_REFUSED = `--import=data:text/javascript,${encodeURIComponent(REGISTER_HOOKS)}`;

let capture: string;
beforeAll(async () => {
  capture = await mkdtemp(join(tmpdir(), 'sentinel-bin-'));
  await writeFile(join(capture, 'pods.json'), JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [] }));
});
afterAll(async () => {
  await rm(capture, { recursive: true, force: true });
});

describe('bin/karpenter-sentinel.js', () => {
  it('prints the JSON report and exits 0 with --fail-on never', async () => {
    const result = await runBin([
      'scan',
      '--from',
      capture,
      '--cluster',
      'demo',
      '--now',
      '2026-01-01T00:00:00Z',
      '--output',
      'json',
      '--fail-on',
      'never',
    ]);

    expect(result.code).toBe(0);
    expect((JSON.parse(result.stdout) as Report).generatedAt).toBe('2026-01-01T00:00:00Z');
  });

  it('names a missing capture in one line, no stack trace, exit 2', async () => {
    const missing = join(capture, 'nope.json');

    const result = await runBin(['scan', '--from', missing]);

    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`karpenter-sentinel: ${missing}: no such file or directory\n`);
    expect(result.stderr).not.toMatch(STACK_FRAME);
  });

  it('rejects an unknown flag in one line, exit 2', async () => {
    const result = await runBin(['scan', '--form', capture]);

    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      "karpenter-sentinel: unknown option --form for 'scan'; did you mean --from? (see karpenter-sentinel help scan)\n",
    );
  });

  it('starts --version, --help and scan --from without loading client-node or the AWS SDK', async () => {
    for (const args of [
      ['--version'],
      ['--help'],
      ['scan', '--from', capture, '--cluster', 'demo', '--fail-on', 'never', '--now', '2026-01-01T00:00:00Z'],
    ]) {
      const result = await runBin(args, [HEAVY_MODULES_REFUSED]);

      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
    }
  });

  it('refuses --apply on an offline capture, exit 2', async () => {
    const result = await runBin(['scan', '--from', capture, '--apply']);

    expect(result.code).toBe(2);
    expect(result.stderr).toBe('karpenter-sentinel: offline captures cannot be changed; --apply needs --cluster or --simulate\n');
  });
});
