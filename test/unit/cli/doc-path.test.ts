/**
 * Every doc the command line names can be opened where the command runs: the help gives the
 * absolute path of a file that exists, and every `docs/*.md` the sources print is in the package
 * `npm pack` makes (the binary carries docs/ too: test/scripts/build-cli/binary.test.ts).
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../scripts/functions.ts';
import { run } from './cli-harness.ts';

/** `docs/x.md` named in code (not in a comment), or through docReference('x.md'), under src/. */
function docsNamedBySources(): string[] {
  const named = new Set<string>();
  for (const entry of readdirSync(path.join(REPO_ROOT, 'src'), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    for (const line of readFileSync(path.join(entry.parentPath, entry.name), 'utf8').split('\n')) {
      if (/^\s*(\/\/|\*|\/\*)/.test(line)) continue;
      for (const [, doc] of line.matchAll(/(?<![\w/.])docs\/([\w-]+\.md)/g)) named.add(`docs/${doc}`);
      for (const [, doc] of line.matchAll(/docReference\('([\w-]+\.md)'\)/g)) named.add(`docs/${doc}`);
    }
  }
  return [...named].sort();
}

describe('the docs the command line names', () => {
  it('are all in the package npm pack makes', async () => {
    const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: REPO_ROOT,
      maxBuffer: 64 * 1024 * 1024,
    });
    const packed = new Set((JSON.parse(stdout) as [{ files: { path: string }[] }])[0].files.map((f) => f.path));
    const named = docsNamedBySources();

    expect(named).toEqual(expect.arrayContaining(['docs/usage.md', 'docs/cleanup.md']));
    expect(named.filter((doc) => !packed.has(doc))).toEqual([]);
  }, 60_000);

  it.each([['scan'], ['snapshot'], ['cleanup']])('%s --help gives the absolute path of a doc that exists', async (command) => {
    const { stdout } = await run([command, '--help']);

    const paths = [...stdout.matchAll(/(\S+\/docs\/[\w-]+\.md)/g)].map((m) => m[1]!);
    expect(paths.length).toBeGreaterThan(0);
    for (const doc of paths) {
      expect(path.isAbsolute(doc)).toBe(true);
      expect(existsSync(doc)).toBe(true);
    }
  });
});
