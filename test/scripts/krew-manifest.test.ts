/**
 * The krew manifest (krew/sentinel.yaml) has krew's shape, names the archives the release step
 * packs from what `npm run build:binary` writes, and is filled with each archive's real sha256.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { BINARY } from '../../scripts/build-cli.ts';
import { REPO_ROOT } from '../../scripts/functions.ts';
import {
  archiveName,
  fillManifest,
  hostPlatform,
  KREW_TEMPLATE,
  packArchive,
  PLUGIN_BINARY,
  RELEASE_PLATFORMS,
  sha256Of,
} from '../../scripts/krew-manifest.ts';

interface Platform {
  selector?: { matchLabels?: { os?: string; arch?: string } };
  uri?: string;
  sha256?: string;
  bin?: string;
  files?: { from?: string; to?: string }[];
}
interface Manifest {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string };
  spec?: { version?: string; homepage?: string; shortDescription?: string; description?: string; platforms?: Platform[] };
}

const template = () => readFile(path.join(REPO_ROOT, KREW_TEMPLATE), 'utf8');
const SHA = (n: number) => String(n).repeat(64).slice(0, 64);
const filled = async () =>
  fillManifest(await template(), {
    repository: 'https://github.com/acme/karpenter-sentinel',
    version: 'v0.1.0',
    sha256: Object.fromEntries(RELEASE_PLATFORMS.map((p, i) => [archiveName(p.os, p.arch), SHA(i + 1)])),
  });
let scratch: string | undefined;
afterEach(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
  scratch = undefined;
});

describe('krew/sentinel.yaml', () => {
  it("has krew's required fields, named for the file, for `kubectl sentinel`", async () => {
    const manifest = parse(await filled()) as Manifest;

    expect(manifest.apiVersion).toBe('krew.googlecontainertools.github.com/v1alpha2');
    expect(manifest.kind).toBe('Plugin');
    expect(`${manifest.metadata?.name}.yaml`).toBe(path.basename(KREW_TEMPLATE));
    expect(manifest.spec?.version).toBe('v0.1.0');
    expect(manifest.spec?.homepage).toBe('https://github.com/acme/karpenter-sentinel');
    expect(manifest.spec?.shortDescription?.length).toBeGreaterThan(0);
    expect(manifest.spec?.description?.length).toBeGreaterThan(0);
  });

  it('has one platform per release archive, each selecting its os/arch and installing the built binary', async () => {
    const platforms = (parse(await filled()) as Manifest).spec?.platforms ?? [];

    expect(PLUGIN_BINARY).toBe(path.basename(BINARY));
    expect(platforms.map((p) => p.selector?.matchLabels)).toEqual(RELEASE_PLATFORMS.map((p) => ({ ...p })));
    platforms.forEach((p, i) => {
      const { os, arch } = RELEASE_PLATFORMS[i]!;
      expect(p.uri).toBe(`https://github.com/acme/karpenter-sentinel/releases/download/v0.1.0/${archiveName(os, arch)}`);
      expect(p.sha256).toBe(SHA(i + 1));
      expect(p.bin).toBe(PLUGIN_BINARY);
      expect(p.files?.map((f) => f.from)).toEqual([PLUGIN_BINARY, 'LICENSE']);
    });
    // The machine building releases today is one of them.
    expect(RELEASE_PLATFORMS).toContainEqual(hostPlatform());
  });

  it('is never left with a placeholder, and refuses a missing sha256 or a version without its v', async () => {
    expect(await filled()).not.toMatch(/REPOSITORY|VERSION|SHA256/);
    await expect(
      (async () => fillManifest(await template(), { repository: 'https://github.com/a/b', version: 'v1.0.0', sha256: {} }))(),
    ).rejects.toThrow('no sha256 for kubectl-sentinel-linux-amd64.tar.gz: build and pack it first');
    expect(() => fillManifest('', { repository: 'https://github.com/a/b', version: '1.0.0', sha256: {} })).toThrow(
      'must be v and a semantic version',
    );
  });

  it('the release archive holds the binary and LICENSE, and its sha256 is what the manifest gets', async () => {
    scratch = await mkdtemp(path.join(tmpdir(), 'krew-release-'));
    await mkdir(path.join(scratch, 'dist'));
    await writeFile(path.join(scratch, 'dist', PLUGIN_BINARY), '#!/bin/sh\necho built\n');
    await writeFile(path.join(scratch, 'LICENSE'), 'Apache-2.0\n');

    const packed = await packArchive(scratch);

    const { stdout } = await promisify(execFile)('tar', ['-tzf', packed.file]);
    expect(stdout.split('\n').filter(Boolean).sort()).toEqual(['LICENSE', PLUGIN_BINARY]);
    expect(path.basename(packed.file)).toBe(archiveName(hostPlatform().os, hostPlatform().arch));
    expect(packed.sha256).toBe(await sha256Of(packed.file));
  });
});
