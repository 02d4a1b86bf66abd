/** Runs a built artifact as a user would: a real process, outside the checkout, with only the environment given. */
import { execFile } from 'node:child_process';
import { cp, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { REPO_ROOT } from '../../../scripts/functions.ts';
import type { Report } from '../../../src/domain/report.ts';

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

export function runProcess(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: Record<string, string>; timeoutMs?: number },
): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      command,
      [...args],
      { cwd: options.cwd, env: options.env, timeout: options.timeoutMs ?? 60_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr: error && code === -1 ? `${stderr}${error.message}` : stderr });
      },
    );
  });
}

/**
 * The example every artifact scans offline, and what it must find there. Its cause needs the aws-auth
 * `mapRoles` parsed by js-yaml: a bundle that left it to be found in node_modules at run time would
 * say "mapRoles is not valid YAML (Cannot find module 'js-yaml')".
 */
const EXAMPLE = 'nodes-not-registering-aws-auth';
export const EXAMPLE_FINDINGS = ['NODECLAIM_NOT_REGISTERED because NODE_ROLE_NOT_MAPPED'];

/** A copy of the example in `dir`, so the scan reads nothing of the checkout. */
export async function copyExample(dir: string): Promise<string> {
  const target = path.join(dir, 'capture');
  await cp(path.join(REPO_ROOT, 'examples', EXAMPLE), target, { recursive: true });
  return target;
}

/**
 * The one note a scan of the example prints, lines unwrapped: it records no capture time, so it
 * is judged at its newest timestamp (docs/capture.md "The capture's time").
 */
export function isExampleTimeNote(stderr: string): boolean {
  return /^note: no capture time recorded \(.*\): judged at the newest timestamp in the capture, .*\(--now sets the time\)$/.test(
    stderr.replace(/\n +/g, ' ').trim(),
  );
}

/** Each finding of a JSON report as `CODE because CAUSE`. */
export function findingsOf(stdout: string): string[] {
  return (JSON.parse(stdout) as Report).findings.map((f) => `${f.code} because ${f.cause?.code ?? 'no known cause'}`);
}

/** How many examples the demo must get through (one simulated cluster each). */
export async function exampleCount(): Promise<number> {
  const entries = await readdir(path.join(REPO_ROOT, 'examples'), { withFileTypes: true });
  return entries.filter((e) => e.isDirectory() && !e.name.startsWith('.')).length;
}

export async function packageVersion(): Promise<string> {
  return (JSON.parse(await readFile(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}
