/**
 * The Lambda artifacts: per function, the zipped artifact osls deploys, the bundle inside it, and
 * how long Node 22 takes to import the bundle (what a cold start pays before the handler runs:
 * module evaluation and top-level config/SDK client construction, no network).
 *
 * Each import runs in a fresh process so nothing is cached; the time is taken inside the child,
 * around `await import(...)` alone, so Node's own start-up is not counted.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type { Metafile } from 'esbuild';
import { bundleFileOf } from '../scripts/bundle.ts';
import { LAMBDA_FUNCTIONS, REPO_ROOT } from '../scripts/functions.ts';
import { PLACEHOLDER_ENV } from '../scripts/invoke-local/local.ts';
import { packageService } from '../scripts/package-service.ts';

const run = promisify(execFile);

export interface BundleMeasurement {
  name: string;
  /** `.serverless/<fn>.zip`: what is uploaded (target: under 1 MB). */
  zipBytes: number;
  /** `dist/<fn>/index.mjs`, the only file in the zip. */
  bundleBytes: number;
  importSamplesMs: number[];
  /** What the bundle is made of, from esbuild's metafile (`dist/<fn>/meta.json`). */
  composition: BundleComposition;
}

export interface BundleComposition {
  /** Modules esbuild resolved for the bundle (its import graph). */
  inputs: number;
  /** Of those, modules from src/adapters/kubernetes/ or a @kubernetes/ package. */
  kubernetesInputs: number;
  /** Their bytes in the bundle (minified). */
  kubernetesBytes: number;
  /** The `@aws-sdk/client-*` packages with code in the bundle, sorted. */
  sdkClients: string[];
  /** The module contributing most bytes to the bundle: a path from the repository or from node_modules/; its size before bundling. */
  largestInput: { path: string; bytes: number; sourceBytes: number } | undefined;
}

export interface BundleMeasurements {
  nodeVersion: string;
  functions: BundleMeasurement[];
  /** Set when this call packaged the service itself (no artifacts yet, or `repackage`). */
  packaging?: { bundleMs: number; oslsMs: number };
}

export interface MeasureBundlesOptions {
  /** Imports per function (fresh process each); default 7. */
  runs?: number;
  /** Always package first; otherwise only when an artifact is missing. */
  repackage?: boolean;
}

/**
 * What each function's top-level code needs to pass its config check (src/config.ts): the
 * placeholders `npm run invoke` uses. No credentials: importing must not call AWS, and the child
 * gets nothing else.
 */
export const DUMMY_FUNCTION_ENV: Readonly<Record<string, string>> = { ...PLACEHOLDER_ENV, AWS_EC2_METADATA_DISABLED: 'true' };

/** Where `npm run package` writes the zips. */
const PACKAGE_DIR = path.join(REPO_ROOT, '.serverless');

export async function measureBundles(options: MeasureBundlesOptions = {}): Promise<BundleMeasurements> {
  const runs = options.runs ?? 7;
  const missing = LAMBDA_FUNCTIONS.some((fn) => !existsSync(zipOf(fn)) || !existsSync(bundleFileOf(fn)));
  let packaging: BundleMeasurements['packaging'];
  if (options.repackage || missing) {
    const { bundleMs, oslsMs } = await packageService({ packageDir: PACKAGE_DIR });
    packaging = { bundleMs, oslsMs };
  }

  const functions: BundleMeasurement[] = [];
  for (const name of LAMBDA_FUNCTIONS) {
    const file = bundleFileOf(name);
    const [zip, bundle] = await Promise.all([stat(zipOf(name)), stat(file)]);
    const importSamplesMs: number[] = [];
    for (let i = 0; i < runs; i++) importSamplesMs.push(await importOnce(file));
    const metafile = JSON.parse(await readFile(path.join(path.dirname(file), 'meta.json'), 'utf8')) as Metafile;
    functions.push({
      name,
      zipBytes: zip.size,
      bundleBytes: bundle.size,
      importSamplesMs,
      composition: bundleComposition(metafile),
    });
  }
  return { nodeVersion: process.version, functions, ...(packaging ? { packaging } : {}) };
}

const KUBERNETES_INPUT = /(?:^|\/)src\/adapters\/kubernetes\/|(?:^|\/)node_modules\/@kubernetes\//;
const SDK_CLIENT = /(?:^|\/)node_modules\/(@aws-sdk\/client-[^/]+)\//;

/** `node_modules/@aws-sdk/x/y.js` → `@aws-sdk/x/y.js`; repository paths as they are. */
export function inputName(input: string): string {
  const at = input.lastIndexOf('node_modules/');
  return at === -1 ? input.replace(/^(?:\.\.\/)+/, '') : input.slice(at + 'node_modules/'.length);
}

/** What one function's bundle holds, from the metafile scripts/bundle.ts writes beside it. */
export function bundleComposition(metafile: Metafile): BundleComposition {
  const bundle = Object.entries(metafile.outputs).find(([file]) => file.endsWith('.mjs') || file.endsWith('.js'))?.[1];
  const inBundle = Object.entries(bundle?.inputs ?? {});
  const kubernetes = Object.keys(metafile.inputs).filter((input) => KUBERNETES_INPUT.test(input));
  const kubernetesBytes = inBundle
    .filter(([input]) => KUBERNETES_INPUT.test(input))
    .reduce((sum, [, { bytesInOutput }]) => sum + bytesInOutput, 0);
  const sdkClients = new Set<string>();
  for (const [input, { bytesInOutput }] of inBundle) {
    const client = SDK_CLIENT.exec(input)?.[1];
    if (client && bytesInOutput > 0) sdkClients.add(client);
  }
  const [largest] = [...inBundle].sort(([, a], [, b]) => b.bytesInOutput - a.bytesInOutput);
  return {
    inputs: Object.keys(metafile.inputs).length,
    kubernetesInputs: kubernetes.length,
    kubernetesBytes,
    sdkClients: [...sdkClients].sort(),
    largestInput: largest && {
      path: inputName(largest[0]),
      bytes: largest[1].bytesInOutput,
      sourceBytes: metafile.inputs[largest[0]]?.bytes ?? 0,
    },
  };
}

function zipOf(name: string): string {
  return path.join(PACKAGE_DIR, `${name}.zip`);
}

const IMPORT_TIMER = [
  'const started = performance.now();',
  'await import(process.argv[1]);',
  'process.stdout.write(String(performance.now() - started));',
].join(' ');

async function importOnce(file: string): Promise<number> {
  const env = { ...DUMMY_FUNCTION_ENV, PATH: process.env.PATH ?? '' };
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', IMPORT_TIMER, pathToFileURL(file).href], {
    env,
    timeout: 60_000,
  });
  const ms = Number(stdout.trim());
  if (!Number.isFinite(ms)) throw new Error(`importing ${file} printed ${JSON.stringify(stdout)} instead of a duration`);
  return ms;
}
