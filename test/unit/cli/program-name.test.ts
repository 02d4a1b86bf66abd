/** As a kubectl plugin the CLI is typed `kubectl sentinel ...`: usage and hints say so. */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/main.ts';

async function runAs(program: string | undefined, argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const io = {
    stdout: { write: (s: string) => out.push(s), isTTY: false },
    stderr: { write: (s: string) => err.push(s), isTTY: false },
    terminal: { noColor: true, forceColor: false },
  };
  const code = await runCli(argv, io, {}, program === undefined ? {} : { program });
  return { code, stdout: out.join(''), stderr: err.join('') };
}

describe('runCli: the program name in usage and hints', () => {
  it('shows the usage with the command a kubectl user types', async () => {
    const result = await runAs('kubectl sentinel', ['--help']);

    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: kubectl sentinel <command> [options]');
    expect(result.stdout).toContain('  kubectl sentinel scan --from ./capture ');
    expect(result.stdout).not.toMatch(/karpenter-sentinel (scan|demo|snapshot|cleanup)/);
  });

  it("names it in a command's usage and in an error's hint", async () => {
    const help = await runAs('kubectl sentinel', ['scan', '--help']);
    const wrong = await runAs('kubectl sentinel', ['scan', '--form', 'x']);

    expect(help.stdout).toContain('kubectl sentinel scan --from PATH...');
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toBe(
      "karpenter-sentinel: unknown option --form for 'scan'; did you mean --from? (see kubectl sentinel help scan)\n",
    );
  });

  it('keeps the product name in --version and says karpenter-sentinel by default', async () => {
    const version = await runAs('kubectl sentinel', ['--version']);
    const plain = await runAs(undefined, ['--help']);

    expect(version.stdout).toMatch(/^karpenter-sentinel \d+\.\d+\.\d+\n$/);
    expect(plain.stdout).toContain('Usage: karpenter-sentinel <command> [options]');
  });
});

describe('programName: one rule for the npm bin and the single executable', () => {
  it('names the kubectl plugin by what kubectl users type, whatever the file ends in', async () => {
    const { programName } = await import('../../../src/cli/main.ts');

    expect(programName('/usr/lib/node_modules/karpenter-sentinel/bin/kubectl-sentinel')).toBe('kubectl sentinel');
    expect(programName('/usr/local/bin/kubectl-sentinel.js')).toBe('kubectl sentinel');
    expect(programName('C:\\tools\\kubectl-sentinel.exe'.replaceAll('\\', '/'))).toBe('kubectl sentinel');
    expect(programName('/opt/kubectl-my_plugin')).toBe('kubectl my-plugin');
    expect(programName('/usr/local/bin/karpenter-sentinel.js')).toBe('karpenter-sentinel');
  });
});
