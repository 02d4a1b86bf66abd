/**
 * Builds the command line for people who do not work on this repository:
 *
 * - `npm run build` (also run by `npm pack`, prepack): `dist/cli/karpenter-sentinel.mjs`, the CLI and
 *   every dependency in one plain-JavaScript ESM file, plus `dist/cli/tls/` (the simulator's
 *   certificates, read beside the bundle). bin/karpenter-sentinel.js loads it when the TypeScript
 *   sources are absent, i.e. in an installed tarball (Node never strips types under node_modules).
 * - `npm run build:binary`: `dist/kubectl-sentinel`, a Node single-executable application made
 *   from the project's own Node 22 (node@22 devDependency): no Node.js needed on the machine, and
 *   a kubectl plugin by its name (`kubectl sentinel scan ...`). SEA in Node 22 runs one CommonJS
 *   script, so the CLI is bundled again as CJS; the files it reads beside its sources (examples/,
 *   docs/, the TLS material, package.json) travel as one SEA asset that src/cli/binary.ts unpacks.
 *
 * Usage: `node scripts/build-cli.ts [--binary] [--out FILE]`.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, copyFile, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { NODE_ESM_BUNDLE } from './esbuild-node.ts';
import { REPO_ROOT } from './functions.ts';

const run = promisify(execFile);

/** What the SEA's CommonJS bundle reads instead of `import.meta.url` (set by src/cli/binary.ts). */
const BUNDLE_URL_GLOBAL = '__karpenterSentinelBundleUrl';
/** The SEA blob's resource name and the fuse postject flips: both fixed by Node. */
const SEA_RESOURCE = 'NODE_SEA_BLOB';
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
/** The one asset of the binary; its shape is src/cli/binary.ts's `BundledFiles`. */
export const FILES_ASSET = 'files.json';
export const TLS_FILES = ['ca.crt', 'server.crt', 'server.key'] as const;

export const CLI_BUNDLE = path.join('dist', 'cli', 'karpenter-sentinel.mjs');
export const BINARY = path.join('dist', 'kubectl-sentinel');

class BuildError extends Error {}

export interface BuiltFile {
  file: string;
  bytes: number;
}

async function version(root: string): Promise<string> {
  const pkg = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as { version?: unknown };
  if (typeof pkg.version !== 'string') throw new BuildError('package.json has no version');
  return pkg.version;
}

/** `npm run build`: the ESM bundle and the TLS files beside it. */
export async function buildCli(options: { root?: string } = {}): Promise<BuiltFile> {
  const root = options.root ?? REPO_ROOT;
  const file = path.join(root, CLI_BUNDLE);
  const outDir = path.dirname(file);
  // A stale file from an earlier build must never be packed.
  await rm(outDir, { recursive: true, force: true });
  await mkdir(path.join(outDir, 'tls'), { recursive: true });
  await build({
    entryPoints: [path.join(REPO_ROOT, 'src', 'cli', 'main.ts')],
    outfile: file,
    ...NODE_ESM_BUNDLE,
  }).catch(rethrow('bundling the CLI'));
  // kube-api-server.ts reads `./tls/` beside itself: beside the bundle now.
  const tls = path.join(REPO_ROOT, 'src', 'simulator', 'tls');
  await Promise.all(TLS_FILES.map((f) => copyFile(path.join(tls, f), path.join(outDir, 'tls', f))));
  return { file, bytes: (await stat(file)).size };
}

/** Every file the binary reads at run time, by its path relative to a package root. */
async function bundledFiles(root: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  const pkg = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as { name: string; version: string };
  files['package.json'] = `${JSON.stringify({ name: pkg.name, version: pkg.version })}\n`;
  for (const f of TLS_FILES) {
    files[`dist/cli/tls/${f}`] = await readFile(path.join(REPO_ROOT, 'src', 'simulator', 'tls', f), 'utf8');
  }
  // The examples for the demo and scan; the docs the help names (src/cli/doc-path.ts).
  for (const folder of ['examples', 'docs']) {
    for (const entry of await readdir(path.join(REPO_ROOT, folder), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const full = path.join(entry.parentPath, entry.name);
      files[path.relative(REPO_ROOT, full).split(path.sep).join('/')] = await readFile(full, 'utf8');
    }
  }
  return files;
}

/** The Node the binary is made of: the project's node@22, the one running this script under npm. */
function projectNode(): string {
  return process.execPath;
}

/** postject: the devDependency, or one on PATH (`npm exec` puts node_modules/.bin there). */
function postjectCommand(): { command: string; args: string[] } {
  try {
    const cli = path.join(path.dirname(createRequire(import.meta.url).resolve('postject/package.json')), 'dist', 'cli.js');
    if (existsSync(cli)) return { command: process.execPath, args: [cli] };
  } catch {
    // not installed beside this script: try PATH
  }
  return { command: 'postject', args: [] };
}

/** `npm run build:binary`: the single executable. */
export async function buildBinary(options: { root?: string; out?: string } = {}): Promise<BuiltFile> {
  const root = options.root ?? REPO_ROOT;
  const out = path.resolve(options.out ?? path.join(root, BINARY));
  const work = await mkdtemp(path.join(tmpdir(), 'sentinel-sea-'));
  try {
    const files = await bundledFiles(root);
    const filesJson = JSON.stringify(files);
    const filesHash = createHash('sha256').update(filesJson).digest('hex').slice(0, 16);
    const script = path.join(work, 'kubectl-sentinel.cjs');
    await build({
      entryPoints: [path.join(REPO_ROOT, 'src', 'cli', 'binary.ts')],
      outfile: script,
      bundle: true,
      platform: 'node',
      target: 'node22',
      format: 'cjs',
      mainFields: ['module', 'main'],
      minify: true,
      keepNames: true,
      legalComments: 'eof',
      // Where the unpacked files are: src/cli/binary.ts sets it before the CLI's modules evaluate.
      define: {
        'import.meta.url': BUNDLE_URL_GLOBAL,
        __SENTINEL_FILES_ID__: JSON.stringify(`${await version(root)}-${filesHash}`),
      },
      logLevel: 'silent',
    }).catch(rethrow('bundling the binary'));
    const asset = path.join(work, FILES_ASSET);
    await writeFile(asset, filesJson);
    const blob = path.join(work, 'sea.blob');
    const config = path.join(work, 'sea-config.json');
    await writeFile(
      config,
      JSON.stringify({
        main: script,
        output: blob,
        disableExperimentalSEAWarning: true,
        useCodeCache: true,
        assets: { [FILES_ASSET]: asset },
      }),
    );
    await run(projectNode(), ['--experimental-sea-config', config]).catch(rethrow('node --experimental-sea-config'));
    await mkdir(path.dirname(out), { recursive: true });
    await rm(out, { force: true });
    await copyFile(projectNode(), out);
    await chmod(out, 0o755);
    const postject = postjectCommand();
    await run(postject.command, [...postject.args, out, SEA_RESOURCE, blob, '--sentinel-fuse', SEA_FUSE], {
      maxBuffer: 16 * 1024 * 1024,
    }).catch(rethrow('postject (npm ci installs it, a devDependency)'));
    return { file: out, bytes: (await stat(out)).size };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

function rethrow(what: string): (error: unknown) => never {
  return (error: unknown) => {
    const e = error as { message?: string; stderr?: string };
    const detail = (e.stderr ?? '').trim() || (e.message ?? String(error));
    throw new BuildError(`${what} failed: ${detail}`);
  };
}

function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${(bytes / 1024).toFixed(1)} kB`;
}

async function main(argv: readonly string[]): Promise<number> {
  const started = performance.now();
  try {
    const { values } = parseArgs({ args: [...argv], options: { binary: { type: 'boolean' }, out: { type: 'string' } } });
    const built = values.binary ? await buildBinary({ out: values.out }) : await buildCli();
    const shown = path.relative(process.cwd(), built.file) || built.file;
    console.log(`built ${shown} (${formatBytes(built.bytes)}) in ${Math.round(performance.now() - started)} ms`);
    return 0;
  } catch (error) {
    console.error(`build: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

if (import.meta.main) process.exitCode = await main(process.argv.slice(2));
