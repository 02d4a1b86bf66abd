/**
 * `npm run invoke` logs exactly as the deployed function: the same keys on each line as the
 * deployed composition root's logger (src/service/compose/scan-dispatch.ts, over moto_server on
 * 127.0.0.1 for EKS and SQS), the same upper-case levels, the same `effective configuration` line.
 */
import { execFile } from 'node:child_process';
import type { ScheduledEvent } from 'aws-lambda';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readDispatchConfig, readLoggingConfig } from '../../src/config.ts';
import { composeScanDispatch } from '../../src/service/compose/scan-dispatch.ts';
import { createScanDispatchHandler } from '../../src/service/handlers/scan-dispatch.ts';
import { lambdaContext, sampleEvent } from '../support/lambda.ts';
import { startMoto, type Moto } from '../support/moto.ts';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCRIPT = fileURLToPath(new URL('../../scripts/invoke-local.ts', import.meta.url));

type Line = Record<string, unknown>;

let moto: Moto;
beforeAll(async () => {
  moto = await startMoto();
}, 20_000);
afterAll(() => moto?.close());

/** The log lines of a local invoke (stderr), without the EMF documents. */
function localInvokeLines(): Promise<Line[]> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [SCRIPT, 'scan-dispatch', 'events/scan-dispatch.schedule.json'],
      { cwd: REPO_ROOT, timeout: 30_000, env: { PATH: process.env.PATH ?? '' } },
      (error, _stdout, stderr) => {
        if (error) reject(error);
        else resolve(jsonLines(stderr));
      },
    );
  });
}

const jsonLines = (text: string): Line[] =>
  text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Line)
    .filter((l) => !('_aws' in l));

/** The deployed composition root, its logger writing where Lambda collects it (stdout and stderr). */
async function deployedLines(): Promise<Line[]> {
  const written: string[] = [];
  const capture = (chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  };
  vi.stubEnv('AWS_ENDPOINT_URL', moto.endpoint);
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDEXAMPLE');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'not-a-secret');
  vi.stubEnv('AWS_LAMBDA_INITIALIZATION_TYPE', 'on-demand');
  const out = vi.spyOn(process.stdout, 'write').mockImplementation(capture);
  const err = vi.spyOn(process.stderr, 'write').mockImplementation(capture);
  try {
    const env = { AWS_REGION: 'eu-west-1', SCAN_QUEUE_URL: `${moto.endpoint}/111122223333/karpenter-sentinel-local-scan` };
    const handler = createScanDispatchHandler(composeScanDispatch(readDispatchConfig(env), readLoggingConfig({})));
    await handler(sampleEvent<ScheduledEvent>('scan-dispatch.schedule'), lambdaContext());
  } finally {
    out.mockRestore();
    err.mockRestore();
    vi.unstubAllEnvs();
  }
  return jsonLines(written.join(''));
}

const keysOf = (line: Line | undefined) => Object.keys(line ?? {}).sort();
const byMessage = (lines: Line[], message: string) => lines.find((l) => l.message === message);

describe('npm run invoke logs as deployed', () => {
  it('the same keys on the configuration line and the closing line, the same levels, in the same order', async () => {
    const [local, deployed] = [await localInvokeLines(), await deployedLines()];

    expect(local.map((l) => `${String(l.level)} ${String(l.message)}`)).toEqual(
      deployed.map((l) => `${String(l.level)} ${String(l.message)}`),
    );
    expect(local.map((l) => l.level)).toEqual(['INFO', 'INFO']);
    expect(keysOf(byMessage(local, 'effective configuration'))).toEqual(keysOf(byMessage(deployed, 'effective configuration')));
    expect(keysOf(byMessage(local, 'invocation done'))).toEqual(keysOf(byMessage(deployed, 'invocation done')));
    expect(byMessage(local, 'invocation done')).toMatchObject({
      cold_start: true,
      function_name: 'karpenter-sentinel-local-scan-dispatch',
      function_request_id: expect.any(String),
      service: 'karpenter-sentinel',
    });
  });
});
