/**
 * A bundled example can be named from any folder: `scan --from healthy` (or `examples/healthy`, as
 * the docs and the demo print it) run in an empty temporary folder finds the example, and says so.
 * A real process, started in that folder, as a user would.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLES_NOW } from '../../../src/cli/commands/demo.ts';
import type { Report } from '../../../src/domain/report.ts';

const BIN = fileURLToPath(new URL('../../../bin/karpenter-sentinel.js', import.meta.url));
const EXAMPLES = fileURLToPath(new URL('../../../examples/', import.meta.url));

let elsewhere = '';

beforeAll(async () => {
  elsewhere = await mkdtemp(join(tmpdir(), 'sentinel-elsewhere-'));
});

afterAll(async () => {
  if (elsewhere) await rm(elsewhere, { recursive: true, force: true });
});

function runIn(cwd: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const { NO_COLOR: _noColor, FORCE_COLOR: _forceColor, ...env } = process.env;
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd, env }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
    });
  });
}

const scan = (from: string) => ['scan', '--from', from, '--now', EXAMPLES_NOW, '-o', 'json', '--fail-on', 'never'];

describe('a bundled example named from another folder', () => {
  it.each([['fargate-bootstrap-deadlock'], ['examples/fargate-bootstrap-deadlock'], ['fargate-bootstrap-deadlock/']])(
    'scan --from %s finds it and says which folder it read',
    async (given) => {
      const result = await runIn(elsewhere, scan(given));

      expect(result.code).toBe(0);
      const report = JSON.parse(result.stdout) as Report;
      expect(report.findings.map((f) => f.code)).toContain('KARPENTER_CONTROLLER_PENDING');
      // The note wraps to the width (a pipe's here): read it as one line.
      expect(result.stderr.replace(/\n {2}/g, ' ')).toBe(
        `note: no file or folder ${given} here: using the bundled example ${join(EXAMPLES, 'fargate-bootstrap-deadlock')}\n`,
      );
    },
  );

  it('never shadows a folder of that name that does exist here', async () => {
    const own = join(elsewhere, 'healthy');
    await mkdir(own);
    await writeFile(join(own, 'nodes.json'), '{"apiVersion":"v1","kind":"List","items":[]}');

    const result = await runIn(elsewhere, scan('healthy'));

    expect(result.stderr).not.toContain('bundled example');
    expect((JSON.parse(result.stdout) as Report).findings).toEqual([]);
  });

  it('leaves a name that is neither a path nor an example to the one-line error', async () => {
    const result = await runIn(elsewhere, scan('no-such-example'));

    expect(result.code).toBe(2);
    expect(result.stderr).toBe('karpenter-sentinel: no-such-example: no such file or directory\n');
  });
});
