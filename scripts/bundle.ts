/**
 * Bundles each Lambda function into one ESM file: `functions/<fn>.ts` → `dist/<fn>/index.mjs`.
 * Everything is bundled, the AWS SDK included (a pinned SDK, not whatever the runtime ships).
 * serverless.yml packages only `dist/<fn>/index.mjs`; the source map and the metafile stay beside
 * it for debugging and size analysis (`npx esbuild --analyze` reads meta.json, or esbuild.github.io/analyze).
 *
 * Usage: `npm run bundle` (or `npx node scripts/bundle.ts [fn...]`).
 */
import { existsSync } from 'node:fs';
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { build, type Metafile } from 'esbuild';
import { NODE_ESM_BUNDLE } from './esbuild-node.ts';
import { isLambdaFunction, LAMBDA_FUNCTIONS, REPO_ROOT } from './functions.ts';

/** For the infra tests, which read these from here. */
export { LAMBDA_FUNCTIONS, REPO_ROOT, type LambdaFunctionName } from './functions.ts';

export interface BundleOptions {
  /** Directory holding `functions/` and receiving `dist/`; default the repository. */
  root?: string;
  /** Where the entries are; default `<root>/functions`. */
  entriesDir?: string;
  /** Default every function. */
  only?: readonly string[];
}

export interface BundleResult {
  name: string;
  /** `dist/<fn>/index.mjs`, absolute. */
  file: string;
  bytes: number;
  mapBytes: number;
  /** The input that contributes most to the bundle, for a first look at size. */
  largestInputs: { path: string; bytes: number }[];
}

class BundleError extends Error {}

function entryOf(name: string, entriesDir: string): string {
  return path.join(entriesDir, `${name}.ts`);
}

export function bundleFileOf(name: string, root: string = REPO_ROOT): string {
  return path.join(root, 'dist', name, 'index.mjs');
}

export async function bundleFunctions(options: BundleOptions = {}): Promise<BundleResult[]> {
  const root = options.root ?? REPO_ROOT;
  const entriesDir = options.entriesDir ?? path.join(root, 'functions');
  const names = options.only && options.only.length > 0 ? [...options.only] : [...LAMBDA_FUNCTIONS];
  const unknown = names.filter((n) => !isLambdaFunction(n));
  if (unknown.length > 0)
    throw new BundleError(`unknown function ${unknown.join(', ')}: expected one of ${LAMBDA_FUNCTIONS.join(', ')}`);
  const missing = names.filter((n) => !existsSync(entryOf(n, entriesDir)));
  if (missing.length > 0) {
    const files = missing.map((n) => shown(entryOf(n, entriesDir))).join(', ');
    throw new BundleError(`missing Lambda entry ${files}: each function needs functions/<fn>.ts exporting "handler"`);
  }
  return Promise.all(names.map((name) => bundleOne(name, root, entriesDir)));
}

async function bundleOne(name: string, root: string, entriesDir: string): Promise<BundleResult> {
  const file = bundleFileOf(name, root);
  const outDir = path.dirname(file);
  // A stale file from an earlier build must never be packaged.
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  const result = await build({
    entryPoints: [entryOf(name, entriesDir)],
    outfile: file,
    ...NODE_ESM_BUNDLE,
    // External: the map is written for debugging but not linked from, or packaged with, the bundle.
    sourcemap: 'external',
    metafile: true,
  }).catch((error: unknown) => {
    throw new BundleError(`bundling ${name} failed: ${error instanceof Error ? error.message : String(error)}`);
  });
  await writeFile(path.join(outDir, 'meta.json'), JSON.stringify(result.metafile));
  const output = outputOf(result.metafile, file, root);
  if (!output?.exports.includes('handler')) {
    throw new BundleError(`${shown(entryOf(name, entriesDir))} does not export "handler" (serverless.yml names index.handler)`);
  }
  const [bytes, mapBytes] = await Promise.all([stat(file), stat(`${file}.map`)]);
  return { name, file, bytes: bytes.size, mapBytes: mapBytes.size, largestInputs: largestInputs(output, 3) };
}

/** A path as a user would type it: relative to the repository when inside it. */
function shown(file: string): string {
  const relative = path.relative(REPO_ROOT, file);
  return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
}

function outputOf(metafile: Metafile, file: string, root: string): Metafile['outputs'][string] | undefined {
  const wanted = path.resolve(file);
  const key = Object.keys(metafile.outputs).find((k) => path.resolve(root, k) === wanted || path.resolve(k) === wanted);
  return key === undefined ? undefined : metafile.outputs[key];
}

/** Inputs grouped by package (node_modules/<pkg>), largest first. */
function largestInputs(output: Metafile['outputs'][string], count: number): { path: string; bytes: number }[] {
  const byPackage = new Map<string, number>();
  for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
    const key = match?.[1] ?? 'project source';
    byPackage.set(key, (byPackage.get(key) ?? 0) + bytesInOutput);
  }
  return [...byPackage.entries()]
    .map(([p, bytes]) => ({ path: p, bytes }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, count);
}

function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(2)} MB` : `${(bytes / 1024).toFixed(1)} kB`;
}

async function main(argv: readonly string[]): Promise<number> {
  const started = performance.now();
  try {
    const results = await bundleFunctions({ only: argv });
    for (const r of results) {
      const top = r.largestInputs.map((i) => `${i.path} ${formatBytes(i.bytes)}`).join(', ');
      console.log(`${r.name.padEnd(14)} ${formatBytes(r.bytes).padStart(9)}  (map ${formatBytes(r.mapBytes)}; largest: ${top})`);
    }
    console.log(`bundled ${results.length} functions into dist/ in ${Math.round(performance.now() - started)} ms`);
    return 0;
  } catch (error) {
    console.error(`bundle: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

if (import.meta.main) process.exitCode = await main(process.argv.slice(2));
