import { describe, expect, it } from 'vitest';
import { InputError, SentinelError } from '../../../src/domain/errors.ts';
import { snapshotOf } from '../../factories/aws.ts';
import { run } from './cli-harness.ts';

const failingLoader = (err: unknown) => ({
  loadSnapshot: async () => {
    throw err;
  },
});

describe('runCli: commands and help', () => {
  it('prints the usage on stderr and exits 2 when no command is given', async () => {
    const result = await run([]);

    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('Usage: karpenter-sentinel <command>');
  });

  it.each([[['--help']], [['-h']], [['help']], [['help', 'help']]])(
    'prints the usage on stdout and exits 0 for %j',
    async (argv) => {
      const result = await run(argv);

      expect(result.code).toBe(0);
      expect(result.stdout).toContain('Usage: karpenter-sentinel <command>');
      expect(result.stdout).toMatch(/scan\s+find, explain/);
      expect(result.stderr).toBe('');
    },
  );

  it.each([[['help', 'scan']], [['scan', '--help']], [['scan', '--from', 'x', '-h']]])(
    'shows the scan options for %j',
    async (argv) => {
      const result = await run(argv);

      expect(result.code).toBe(0);
      expect(result.stdout).toContain('--controller-pending DUR');
      expect(result.stdout).toContain('(default 5m)');
      expect(result.stdout).toContain('--fail-on SEVERITY');
    },
  );

  it('prints the package version', async () => {
    const result = await run(['--version']);

    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^karpenter-sentinel \d+\.\d+\.\d+\n$/);
  });

  it('rejects an unknown command in one line naming it and the commands that exist', async () => {
    const result = await run(['scna', '--from', 'x']);

    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      "karpenter-sentinel: unknown command 'scna'; did you mean scan? (commands: scan, snapshot, capture-script, cleanup, demo, sandbox, help)\n",
    );
  });

  it('rejects an option before the command', async () => {
    const result = await run(['--output', 'json', 'scan']);

    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^karpenter-sentinel: unknown option --output; a command comes first/);
  });

  it('rejects help for an unknown command', async () => {
    const result = await run(['help', 'nope']);

    expect(result.code).toBe(2);
    expect(result.stderr).toContain("unknown command 'nope'");
  });
});

describe('runCli: cleanup checks its flags before connecting anywhere', () => {
  it('an unknown option is one line, exit 2', async () => {
    const result = await run(['cleanup', '--cluster', 'prod', '--outdir', 'cap']);

    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      "karpenter-sentinel: unknown option --outdir for 'cleanup' (see karpenter-sentinel help cleanup)\n",
    );
  });
});

describe('runCli: errors are one line, never a stack trace', () => {
  const snapshot = snapshotOf({ pods: [] });

  it('prints an input error as the loader worded it, naming the file, exit 2', async () => {
    const services = failingLoader(new InputError('/tmp/cap/pods.json', 'not JSON or YAML: Unexpected token } at line 3'));

    const result = await run(['scan', '--from', '/tmp/cap'], { services });

    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('karpenter-sentinel: /tmp/cap/pods.json: not JSON or YAML: Unexpected token } at line 3\n');
  });

  it('keeps only the first line of a multi-line message (parser code frames)', async () => {
    const services = failingLoader(new InputError('a.yaml', 'bad indentation at line 2, column 3:\n\n  foo: bar\n  ^^^'));

    const result = await run(['scan', '--from', 'a.yaml'], { services });

    expect(result.stderr).toBe('karpenter-sentinel: a.yaml: bad indentation at line 2, column 3:\n');
  });

  it('turns a file system error that escaped the loader into an input error naming the path', async () => {
    const enoent = Object.assign(new Error("ENOENT: no such file or directory, open '/nope'"), {
      code: 'ENOENT',
      path: '/nope',
      syscall: 'open',
    });

    const result = await run(['scan', '--from', '/nope'], { services: failingLoader(enoent) });

    expect(result.code).toBe(2);
    expect(result.stderr).toBe('karpenter-sentinel: /nope: no such file or directory\n');
  });

  it('reports a bug as an internal error in one line, exit 2, with the stack only under --debug', async () => {
    const services = failingLoader(new TypeError("Cannot read properties of undefined (reading 'items')"));

    const plain = await run(['scan', '--from', 'cap'], { services });
    const debug = await run(['scan', '--debug', '--from', 'cap'], { services });

    expect(plain.code).toBe(2);
    expect(plain.stderr).toBe(
      "karpenter-sentinel: internal error: Cannot read properties of undefined (reading 'items') (run with --debug for the stack)\n",
    );
    expect(debug.code).toBe(2);
    expect(debug.stderr).toMatch(/^karpenter-sentinel: internal error: Cannot read properties/);
    expect(debug.stderr).toMatch(/\n {4}at /);
  });

  it('never lets an error exit 1, which means "findings at or above --fail-on"', async () => {
    class Flaky extends SentinelError {}

    const result = await run(['scan', '--from', 'cap'], { services: failingLoader(new Flaky('cluster endpoint unreachable')) });

    expect(result.code).toBe(2);
    expect(result.stderr).toBe('karpenter-sentinel: cluster endpoint unreachable\n');
  });

  it('accepts --debug anywhere before -- without it reaching the command', async () => {
    const services = { loadSnapshot: async () => ({ snapshot, notices: [], files: 1 }) };

    const result = await run(['--debug', 'scan', '--from', 'cap', '--fail-on', 'never', '--now', '2026-01-01T00:00:00Z'], {
      services,
    });

    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
  });
});
