/**
 * `npm run package` as a function, for the template test and the bundle benchmark: bundle every
 * function (scripts/bundle.ts), then `osls package`. osls packages offline with no AWS credentials.
 *
 * `serviceDir` other than the repository packages a copy (serverless.yml, infra/, fresh bundles in
 * its dist/): osls always uses `<service>/.serverless` as scratch space and empties it, so a test
 * packaging in the repository would delete the artifacts of the last `npm run package`, and two
 * packagings of one directory cannot run at once.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { bundleFunctions } from './bundle.ts';
import { REPO_ROOT } from './functions.ts';

const run = promisify(execFile);

export interface PackageOptions {
  /** The service directory osls runs in; default the repository. */
  serviceDir?: string;
  /** Where osls writes the zips and the CloudFormation templates; default `<serviceDir>/.serverless`. */
  packageDir?: string;
  /** osls params (`--param name=value`), e.g. `{ slackWebhookParameter: '/karpenter-sentinel/slack-webhook' }`. */
  params?: Record<string, string>;
  /** Reuse the bundles of this service directory instead of bundling again. */
  bundlesFrom?: string;
}

export interface PackageResult {
  serviceDir: string;
  packageDir: string;
  bundleMs: number;
  oslsMs: number;
}

/** Generous: a cold osls loads a few hundred modules. */
const OSLS_TIMEOUT_MS = 180_000;

export async function packageService(options: PackageOptions = {}): Promise<PackageResult> {
  const serviceDir = path.resolve(options.serviceDir ?? REPO_ROOT);
  const packageDir = options.packageDir ?? path.join(serviceDir, '.serverless');
  if (serviceDir !== REPO_ROOT) await copyServiceDefinition(serviceDir);

  let started = performance.now();
  if (options.bundlesFrom) {
    await cp(path.join(options.bundlesFrom, 'dist'), path.join(serviceDir, 'dist'), { recursive: true });
  } else {
    await bundleFunctions({ root: serviceDir, entriesDir: path.join(REPO_ROOT, 'functions') });
  }
  const bundleMs = performance.now() - started;

  const args = [path.join(REPO_ROOT, 'node_modules', 'osls', 'bin', 'serverless.js'), 'package', '--package', packageDir];
  for (const [name, value] of Object.entries(options.params ?? {})) args.push('--param', `${name}=${value}`);
  started = performance.now();
  try {
    await run(process.execPath, args, { cwd: serviceDir, timeout: OSLS_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message?: string };
    const output = [e.stderr, e.stdout].filter((s) => s && s.trim() !== '').join('\n');
    throw new Error(`osls package failed: ${output.trim() || e.message}`, { cause: error });
  }
  return { serviceDir, packageDir, bundleMs, oslsMs: performance.now() - started };
}

async function copyServiceDefinition(serviceDir: string): Promise<void> {
  await mkdir(serviceDir, { recursive: true });
  await cp(path.join(REPO_ROOT, 'serverless.yml'), path.join(serviceDir, 'serverless.yml'));
  await cp(path.join(REPO_ROOT, 'infra'), path.join(serviceDir, 'infra'), { recursive: true });
}
