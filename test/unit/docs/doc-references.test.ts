/**
 * The project's comments point into its own docs, never at a design file a clone does not have,
 * and every `docs/<doc>.md#<anchor>` they cite is a heading of that doc (GitHub's anchor for it).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../scripts/functions.ts';

/** Every file of the project, tracked or new, as git sees it (no node_modules, .git or build output). */
const FILES = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
  cwd: REPO_ROOT,
  encoding: 'utf8',
})
  .split('\n')
  .filter((f) => f !== '' && existsSync(path.join(REPO_ROOT, f)));

const CODE_FOLDERS = ['src/', 'functions/', 'scripts/', 'bench/', 'test/', 'infra/'];
const TEXT = /\.(ts|js|mjs|cjs|json|ya?ml|md|sh|tf|txt)$/;

/** Spelled in pieces, so this file does not name what it forbids. */
const FORBIDDEN = ['DESIGN' + '.md', '..' + '/shared'];

function read(file: string): string {
  return readFileSync(path.join(REPO_ROOT, file), 'utf8');
}

/** GitHub's anchor of a Markdown heading: lower case, punctuation but `-` and `_` dropped, spaces to `-`. */
export function githubAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a doc's headings, code fences left out (a `# comment` in a shell block is no heading). */
function anchorsOf(doc: string): Set<string> {
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of read(doc).split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*)$/.exec(line);
    if (heading) anchors.add(githubAnchor(heading[1]!));
  }
  return anchors;
}

describe('references to the design', () => {
  it('no file of the project names a design file outside it', () => {
    const offending = FILES.filter((f) => TEXT.test(f)).filter((f) => FORBIDDEN.some((word) => read(f).includes(word)));

    expect(offending).toEqual([]);
  });

  it('every docs/<doc>.md#<anchor> the code cites is a heading of that doc', () => {
    const cited = FILES.filter(
      (f) => TEXT.test(f) && (CODE_FOLDERS.some((d) => f.startsWith(d)) || f === 'serverless.yml'),
    ).flatMap((f) =>
      [...read(f).matchAll(/\bdocs\/([\w-]+\.md)#([\w-]+)/g)].map((m) => ({ file: f, doc: `docs/${m[1]}`, anchor: m[2]! })),
    );
    const missing = cited
      .filter(({ doc, anchor }) => !existsSync(path.join(REPO_ROOT, doc)) || !anchorsOf(doc).has(anchor))
      .map(({ file, doc, anchor }) => `${file}: ${doc}#${anchor}`);

    expect(cited.length).toBeGreaterThan(10);
    expect(missing).toEqual([]);
  });

  it('reads anchors as GitHub makes them', () => {
    expect(githubAnchor('`KARPENTER_CONTROLLER_UNHEALTHY`')).toBe('karpenter_controller_unhealthy');
    expect(githubAnchor('Scanning captured files: `scan --from`')).toBe('scanning-captured-files-scan---from');
    expect(githubAnchor('The `cleanup` function')).toBe('the-cleanup-function');
  });
});
