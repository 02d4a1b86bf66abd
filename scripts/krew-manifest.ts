/**
 * The release step of the kubectl plugin (docs/usage.md, "Releasing the plugin"). krew installs
 * from archives named in a manifest with their sha256, so a release:
 *
 * 1. on each platform of krew/sentinel.yaml: `npm run build:binary`, then
 *    `node scripts/krew-manifest.ts --archive` packs dist/kubectl-sentinel and LICENSE into
 *    dist/kubectl-sentinel-<os>-<arch>.tar.gz (the binary is the Node of the machine that built it);
 * 2. with every archive in one dist/: `node scripts/krew-manifest.ts --repo URL --version vX.Y.Z`
 *    writes dist/sentinel.yaml, the template filled with the repository, the version and each
 *    archive's sha256; the archives are attached to the GitHub release of that tag.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { REPO_ROOT } from './functions.ts';

const run = promisify(execFile);

export const KREW_TEMPLATE = path.join('krew', 'sentinel.yaml');
/** The binary `npm run build:binary` writes (scripts/build-cli.ts BINARY), and krew's `bin`. */
export const PLUGIN_BINARY = 'kubectl-sentinel';

/** The platforms a release builds: Linux, where `build:binary` makes a working single executable. */
export const RELEASE_PLATFORMS = [
  { os: 'linux', arch: 'amd64' },
  { os: 'linux', arch: 'arm64' },
] as const;

export function archiveName(os: string, arch: string): string {
  return `${PLUGIN_BINARY}-${os}-${arch}.tar.gz`;
}

/** krew's names for this machine (Go's GOOS/GOARCH). */
export function hostPlatform(platform: string = process.platform, arch: string = process.arch): { os: string; arch: string } {
  const goArch: Record<string, string> = { x64: 'amd64', arm64: 'arm64', arm: 'arm', ia32: '386' };
  return { os: platform === 'win32' ? 'windows' : platform, arch: goArch[arch] ?? arch };
}

/** Step 1: `root`/dist/kubectl-sentinel and `root`/LICENSE as this platform's archive; its path and sha256. */
export async function packArchive(root: string = REPO_ROOT): Promise<{ file: string; sha256: string }> {
  const { os, arch } = hostPlatform();
  if (!RELEASE_PLATFORMS.some((p) => p.os === os && p.arch === arch)) {
    throw new Error(`${os}/${arch} is not a release platform of ${KREW_TEMPLATE}`);
  }
  const file = path.join(root, 'dist', archiveName(os, arch));
  const staging = await mkdtemp(path.join(tmpdir(), 'krew-archive-'));
  try {
    await copyFile(path.join(root, 'dist', PLUGIN_BINARY), path.join(staging, PLUGIN_BINARY));
    await copyFile(path.join(root, 'LICENSE'), path.join(staging, 'LICENSE'));
    await run('tar', ['-czf', file, '-C', staging, PLUGIN_BINARY, 'LICENSE']);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return { file, sha256: await sha256Of(file) };
}

export async function sha256Of(file: string): Promise<string> {
  return createHash('sha256')
    .update(await readFile(file))
    .digest('hex');
}

export interface ManifestValues {
  /** `https://github.com/OWNER/NAME`: the homepage, and where the release archives are. */
  repository: string;
  /** The release tag, `v` and a semantic version (krew requires the `v`). */
  version: string;
  /** sha256 of each archive, by archive name. */
  sha256: Readonly<Record<string, string>>;
}

/** Step 2: the template with every REPOSITORY, VERSION and SHA256 filled in; a value missing is an error. */
export function fillManifest(template: string, values: ManifestValues): string {
  if (!/^https:\/\/github\.com\/[\w.-]+\/[\w.-]+$/.test(values.repository)) {
    throw new Error(`--repo must be https://github.com/OWNER/NAME (got ${values.repository})`);
  }
  if (!/^v\d+\.\d+\.\d+(?:-[\w.]+)?$/.test(values.version)) {
    throw new Error(`--version must be v and a semantic version, e.g. v0.1.0 (got ${values.version})`);
  }
  let archive: string | undefined;
  const lines = template.split('\n').map((line) => {
    // The comment lines name the placeholders: they go, the manifest is filled.
    const filled = line.replaceAll('REPOSITORY', values.repository).replaceAll('VERSION', values.version);
    const uri = /^\s*uri: \S+\/([^/\s]+)$/.exec(filled);
    if (uri) archive = uri[1];
    if (!/^\s*sha256: (["'])SHA256\1/.test(filled)) return filled;
    const sha = archive === undefined ? undefined : values.sha256[archive];
    if (sha === undefined || !/^[0-9a-f]{64}$/.test(sha))
      throw new Error(`no sha256 for ${archive ?? 'a platform'}: build and pack it first`);
    return filled.replace('SHA256', sha);
  });
  return lines.filter((line) => !line.startsWith('#')).join('\n');
}

async function main(argv: readonly string[]): Promise<number> {
  try {
    const { values } = parseArgs({
      args: [...argv],
      options: { archive: { type: 'boolean' }, repo: { type: 'string' }, version: { type: 'string' } },
    });
    if (values.archive) {
      const packed = await packArchive();
      console.log(`${path.relative(process.cwd(), packed.file)}  sha256 ${packed.sha256}`);
      return 0;
    }
    const sha256: Record<string, string> = {};
    for (const { os, arch } of RELEASE_PLATFORMS) {
      const name = archiveName(os, arch);
      sha256[name] = await sha256Of(path.join(REPO_ROOT, 'dist', name)).catch(() => {
        throw new Error(`dist/${name} is missing: run --archive on ${os}/${arch} and copy it here`);
      });
    }
    const template = await readFile(path.join(REPO_ROOT, KREW_TEMPLATE), 'utf8');
    const manifest = fillManifest(template, { repository: values.repo ?? '', version: values.version ?? '', sha256 });
    await writeFile(path.join(REPO_ROOT, 'dist', 'sentinel.yaml'), manifest);
    console.log('wrote dist/sentinel.yaml');
    return 0;
  } catch (error) {
    console.error(`krew-manifest: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

if (import.meta.main) process.exitCode = await main(process.argv.slice(2));
