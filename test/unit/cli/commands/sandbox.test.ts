/**
 * `karpenter-sentinel sandbox` as a user runs it: the lines it prints work as printed, Ctrl-C
 * stops it cleanly and removes its kubeconfig, and bad input is one line and exit 2.
 */
import { execFile, spawn } from 'node:child_process';
import { access, cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../../../../bin/karpenter-sentinel.js', import.meta.url));
const run = promisify(execFile);
let home: string;

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'sandbox-cli-home-'));
});

afterAll(() => rm(home, { recursive: true, force: true }));

function sandbox(...args: string[]) {
  return sandboxIn(process.cwd(), ...args);
}

function sandboxIn(cwd: string, ...args: string[]) {
  const child = spawn(process.execPath, [BIN, 'sandbox', ...args], { cwd, env: { ...process.env, HOME: home } });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (c: Buffer) => (output.stdout += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (output.stderr += c.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output, exited };
}

describe('karpenter-sentinel sandbox', () => {
  it('serves a bundled example by name: the printed kubectl line works, Ctrl-C stops it with 0 and removes the kubeconfig', async () => {
    const { child, output, exited } = sandbox('fargate-bootstrap-deadlock');
    await until(() => output.stdout.includes('Stop with Ctrl-C.'));
    const line = /^ {2}kubectl --kubeconfig (\S+) get pods -A$/m.exec(output.stdout);
    const kubeconfig = line?.[1] ?? '';

    const { stdout } = await run('kubectl', ['--kubeconfig', kubeconfig, 'get', 'pods', '-A'], {
      env: { ...process.env, HOME: home },
      timeout: 20_000,
    });
    child.kill('SIGINT');
    const code = await exited;

    expect(output.stdout).toMatch(/^Context: sandbox-\S+$/m);
    expect(output.stdout).toContain(`export KUBECONFIG=${kubeconfig}`);
    expect(output.stdout).toMatch(/karpenter-sentinel scan --simulate \S*fargate-bootstrap-deadlock --now 2026-01-01T01:00:00Z/);
    expect(stdout).toMatch(/^NAMESPACE\s+NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE$/m);
    expect(stdout).toMatch(/karpenter\s+karpenter-\S+\s+0\/1\s+Pending/);
    expect(code).toBe(0);
    expect(output.stderr).toContain('sandbox stopped');
    await expect(access(kubeconfig)).rejects.toThrow();
  });

  it("a user's capture folder runs from the capture's own time: kubectl's AGE reads as on the day, and the printed scan line judges at that time", async () => {
    const capture = join(home, 'capture');
    await cp(fileURLToPath(new URL('../../../../examples/fargate-bootstrap-deadlock', import.meta.url)), capture, {
      recursive: true,
    });
    const { child, output, exited } = sandbox(capture);
    try {
      await until(() => output.stdout.includes('Stop with Ctrl-C.'));
      const kubeconfig = /^ {2}kubectl --kubeconfig (\S+) get pods -A$/m.exec(output.stdout)?.[1] ?? '';
      const { stdout: pods } = await run('kubectl', ['--kubeconfig', kubeconfig, 'get', 'pods', '-A'], {
        env: { ...process.env, HOME: home },
        timeout: 20_000,
      });
      const scanLine = /^ {2}(karpenter-sentinel scan --simulate .*)$/m.exec(output.stdout)?.[1] ?? '';
      const { stdout: json } = await run(
        process.execPath,
        [BIN, ...scanLine.split(' ').slice(1), '-o', 'json', '--fail-on', 'never'],
        {
          env: { ...process.env, HOME: home },
          timeout: 60_000,
        },
      );

      // The newest timestamp in the files is the FailedScheduling event's; the pods were created 35 minutes before it.
      expect(output.stdout).toMatch(/^Time: 2026-01-01T00:55:12Z, the newest timestamp in the capture\b/m);
      expect(pods).toMatch(/karpenter\s+karpenter-\S+\s+0\/1\s+Pending\s+0\s+3[5-9]m$/m);
      expect(scanLine).toBe(`karpenter-sentinel scan --simulate ${capture}`);
      expect(JSON.parse(json)).toMatchObject({ generatedAt: '2026-01-01T00:55:12Z', timeSource: { source: 'newest-timestamp' } });
    } finally {
      child.kill('SIGINT');
      await exited;
    }
  });

  it('a name that is neither a path nor an example is one line and exit 2', async () => {
    const { output, exited } = sandbox('no-such-example');

    expect(await exited).toBe(2);
    expect(output.stderr.trim().split('\n')).toEqual([
      "karpenter-sentinel: sandbox: no file or folder 'no-such-example', and no bundled example of that name (the names are the folders of examples/)",
    ]);
  });

  it.each([
    [
      ['--nwo', '2026-01-01T00:00:00Z', 'healthy'],
      "unknown option --nwo for 'sandbox'; did you mean --now? (see karpenter-sentinel help sandbox)",
    ],
    [['healthy', '--bogus'], "unknown option --bogus for 'sandbox' (see karpenter-sentinel help sandbox)"],
    [['healthy', '--now'], '--now needs a value'],
    [['healthy', '--now=2026-01-01T00:00:00Z', '--now', '2026-01-02T00:00:00Z'], "--now given more than once for 'sandbox'"],
    [['healthy', '--now=yesterday'], "--now must be an ISO-8601 time with a zone, e.g. 2026-01-01T00:00:00Z (got 'yesterday')"],
  ])('a bad flag (%j) is the one line every command gives, and exit 2', async (args, line) => {
    const { output, exited } = sandbox(...args);

    expect(await exited).toBe(2);
    expect(output.stderr).toBe(`karpenter-sentinel: ${line}\n`);
  });

  it('names a bundled example as scan --from does: examples/NAME/ typed in a folder that has no examples/', async () => {
    const { child, output, exited } = sandboxIn(home, 'examples/fargate-bootstrap-deadlock/');
    try {
      await until(() => output.stdout.includes('Stop with Ctrl-C.') || child.exitCode !== null);

      expect(output.stdout).toMatch(/^Time: 2026-01-01T01:00:00Z, when the bundled examples were captured;/m);
      expect(output.stdout).toMatch(
        /karpenter-sentinel scan --simulate \S*examples\/fargate-bootstrap-deadlock --now 2026-01-01T01:00:00Z$/m,
      );
    } finally {
      child.kill('SIGINT');
      await exited;
    }
  });

  it('without a capture it says what it needs', async () => {
    const { output, exited } = sandbox();

    expect(await exited).toBe(2);
    expect(output.stderr).toContain('sandbox needs a capture folder or a bundled example name');
  });
});

async function until(ready: () => boolean): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (ready()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('timed out waiting for the sandbox');
}
