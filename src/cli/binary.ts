/**
 * The entry of the single executable (`npm run build:binary`, scripts/build-cli.ts): a Node SEA,
 * bundled as CommonJS, usually installed as `kubectl-sentinel` so that kubectl runs it as a plugin.
 *
 * The CLI reads a few files beside its sources (examples/ for the demo, docs/ the help names,
 * the simulator's TLS material, package.json for --version). The binary carries them as one SEA asset and unpacks
 * them once per version into a private folder under the temporary directory; the build points
 * the bundle's `import.meta.url` at that folder, so every such read finds its file.
 */
import { programName } from './program-name.ts';
import { randomBytes } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { getAsset } from 'node:sea';
import { pathToFileURL } from 'node:url';

/** `<version>-<hash of the files>`, set by the build: a new build never reuses older files. */
declare const __SENTINEL_FILES_ID__: string;

/** What the asset holds: file contents by path relative to the package root. */
type BundledFiles = Record<string, string>;

const FILES_ASSET = 'files.json';
const COMPLETE = '.complete';

function unpack(root: string): void {
  const files = JSON.parse(getAsset(FILES_ASSET, 'utf8')) as BundledFiles;
  for (const [relative, content] of Object.entries(files)) {
    const file = join(root, ...relative.split('/'));
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
  writeFileSync(join(root, COMPLETE), '');
}

/** Ours alone: a real folder (no link) owned by this user that no one else may write to. */
function isPrivate(folder: string): boolean {
  try {
    const s = lstatSync(folder);
    const uid = process.getuid?.();
    return s.isDirectory() && (uid === undefined || s.uid === uid) && (s.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

/** The unpacked files' root: reused across runs; a fresh folder per run if the shared one cannot be trusted. */
function filesRoot(): string {
  const parent = join(tmpdir(), `kubectl-sentinel-${process.getuid?.() ?? 'user'}`);
  const root = join(parent, __SENTINEL_FILES_ID__);
  try {
    mkdirSync(parent, { recursive: true, mode: 0o700 });
  } catch {
    // judged below
  }
  if (isPrivate(parent)) {
    if (existsSync(join(root, COMPLETE))) return root;
    const staging = join(parent, `unpack-${randomBytes(6).toString('hex')}`);
    try {
      mkdirSync(staging, { mode: 0o700 });
      unpack(staging);
      renameSync(staging, root);
      return root;
    } catch {
      rmSync(staging, { recursive: true, force: true });
      // Another run unpacked the same files meanwhile.
      if (existsSync(join(root, COMPLETE))) return root;
    }
  }
  const once = mkdtempSync(join(tmpdir(), 'kubectl-sentinel-'));
  process.on('exit', () => rmSync(once, { recursive: true, force: true }));
  unpack(once);
  return once;
}

async function main(): Promise<number> {
  const root = filesRoot();
  (globalThis as Record<string, unknown>).__karpenterSentinelBundleUrl = pathToFileURL(
    join(root, 'dist', 'cli', 'kubectl-sentinel.cjs'),
  ).href;
  // Only now: the CLI's modules read the bundle's URL as they evaluate.
  const { runCli } = await import('./main.ts');
  const { processIO } = await import('./io.ts');
  return runCli(process.argv.slice(2), processIO(), {}, { program: programName(process.execPath) });
}

void main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`karpenter-sentinel: internal error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 2;
  },
);
