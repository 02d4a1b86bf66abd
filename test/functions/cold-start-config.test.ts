/**
 * A function whose settings are wrong fails its cold start (Lambda reports the init error), and what
 * Lambda logs is one line naming the variable and the value shape expected. Each case is a fresh
 * Node process importing functions/<fn>.ts with that environment, which reports the rejection as
 * the Lambda Node.js runtime logs an init error: errorType, errorMessage, and `stack` split into lines.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The import, and the init error as the runtime puts it in the log (one JSON object on stdout). */
const COLD_START = `
import(process.argv[1]).then(
  () => console.log(JSON.stringify({ loaded: true })),
  (error) => {
    console.log(JSON.stringify({ errorType: error.name, errorMessage: error.message, stack: String(error.stack).split('\\n') }));
    process.exitCode = 1;
  },
);`;

interface InitReport {
  loaded?: true;
  errorType?: string;
  errorMessage?: string;
  stack?: string[];
}

function coldStart(fn: string, env: Record<string, string>): Promise<{ code: number; report: InitReport; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--input-type=module', '-e', COLD_START, `${REPO_ROOT}functions/${fn}.ts`],
      { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? '', AWS_REGION: 'eu-west-1', ...env }, timeout: 30_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, report: JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as InitReport, stderr });
      },
    );
  });
}

const SCAN_ENV = { STATE_TABLE: 'state', ALERT_TOPIC_ARN: 'arn:aws:sns:eu-west-1:111122223333:alerts' };

describe('a configuration error at cold start', () => {
  it.each([
    [
      'scan',
      { ...SCAN_ENV, TERMINATE_INSTANCE_MODE: 'yes' },
      'invalid configuration: TERMINATE_INSTANCE_MODE must be one of off, dry-run, apply (got "yes")',
    ],
    ['scan-dispatch', {}, 'invalid configuration: SCAN_QUEUE_URL is required but not set'],
    [
      'interruptions',
      { ...SCAN_ENV, SURGE_WINDOW: 'often' },
      'invalid configuration: SURGE_WINDOW must be a duration like 90s, 15m or 4h (got "often")',
    ],
    [
      'cleanup',
      { CLUSTERS: 'shop-prod,Shop Prod!' },
      'invalid configuration: CLUSTERS holds "Shop Prod!", not EKS cluster names',
    ],
  ])('%s: fails the init with one line naming the variable and the shape expected, no stack frames', async (fn, env, line) => {
    const { code, report } = await coldStart(fn, env);

    expect(code).toBe(1);
    expect(report.errorType).toBe('ConfigError');
    expect(report.errorMessage).toBe(line);
    expect(report.stack).toEqual([`ConfigError: ${line}`]);
  });

  it('a huge value is cut in the line, which stays one line', async () => {
    const { report } = await coldStart('scan', { ...SCAN_ENV, SCAN_LEASE_DURATION: `${'9'.repeat(50_000)}\nparsecs` });

    expect(report.stack).toHaveLength(1);
    expect(report.errorMessage).toMatch(
      /^invalid configuration: SCAN_LEASE_DURATION must be a duration like 90s, 15m or 4h \(got "9+…$/,
    );
    expect(report.errorMessage!.length).toBeLessThan(400);
  });

  it('valid settings load (the same harness)', async () => {
    const { code, report } = await coldStart('scan', SCAN_ENV);

    expect(code).toBe(0);
    expect(report).toEqual({ loaded: true });
  });
});
