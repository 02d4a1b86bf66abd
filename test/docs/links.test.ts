/**
 * The README and docs/ are read at the moment of need: every relative link must lead somewhere,
 * every `#anchor` must name a heading of its file (GitHub's slugs), the README must stay short and
 * open with the two commands a newcomer needs, and its symptom map must lead to every finding.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CAUSES_BY_FINDING, FINDING_CODES } from '../../src/domain/codes.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DOCS = join(ROOT, 'docs');
const MARKDOWN = [
  join(ROOT, 'README.md'),
  ...readdirSync(DOCS)
    .filter((f) => f.endsWith('.md'))
    .map((f) => join(DOCS, f)),
];

/** The text outside fenced code blocks: links and headings in code are not links and headings. */
function prose(text: string): string {
  let fenced = false;
  return text
    .split('\n')
    .map((line) => {
      if (/^\s*(```|~~~)/.test(line)) {
        fenced = !fenced;
        return '';
      }
      return fenced ? '' : line;
    })
    .join('\n');
}

/** GitHub's heading anchor: lower case, punctuation dropped (not `-` or `_`), spaces to `-`, repeats numbered. */
function slugs(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const [, heading = ''] of prose(markdown).matchAll(/^#{1,6}\s+(.*?)\s*#*\s*$/gm)) {
    const text = heading.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    result.add(n === 0 ? base : `${base}-${n}`);
  }
  return result;
}

/** Every inline link target `[text](target)` outside code (inline code spans removed too). */
function links(markdown: string): string[] {
  const text = prose(markdown).replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1] ?? '');
}

const read = (file: string) => readFileSync(file, 'utf8');

describe('documentation links', () => {
  it('finds the README and the docs', () => {
    expect(MARKDOWN.map((f) => relative(ROOT, f))).toEqual(expect.arrayContaining(['README.md', 'docs/findings.md']));
  });

  for (const file of MARKDOWN) {
    const name = relative(ROOT, file);

    it(`${name}: every relative link leads to a file or folder, and every #anchor to a heading`, () => {
      const broken: string[] = [];
      for (const target of links(read(file))) {
        if (/^[a-z][a-z+.-]*:/i.test(target)) continue; // https:, mailto:
        const [path = '', anchor] = target.split('#', 2);
        const into = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
        if (!existsSync(into)) {
          broken.push(`${target}: ${relative(ROOT, into)} does not exist`);
          continue;
        }
        if (anchor === undefined) continue;
        if (!statSync(into).isFile() || !into.endsWith('.md')) {
          broken.push(`${target}: an anchor into something not Markdown`);
          continue;
        }
        if (!slugs(read(into)).has(anchor)) broken.push(`${target}: no heading #${anchor} in ${relative(ROOT, into)}`);
      }
      expect(broken).toEqual([]);
    });
  }

  it('computes GitHub slugs for code, punctuation and repeats', () => {
    const s = slugs(
      '# A\n## `KARPENTER_CONTROLLER_PENDING`\n## Scanning captured files: `scan --from`\n```sh\n# not a heading\n```\n## A\n',
    );
    expect([...s]).toEqual(['a', 'karpenter_controller_pending', 'scanning-captured-files-scan---from', 'a-1']);
  });
});

describe('README', () => {
  const readme = read(join(ROOT, 'README.md'));

  it('is at most 300 lines', () => {
    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(300);
  });

  it('starts with the two commands a newcomer needs: the demo and the tests', () => {
    const firstBlock = /^# [^\n]+\n\n```bash\n([^]*?)```/.exec(readme)?.[1] ?? '';
    const commands = firstBlock
      .split('\n')
      .filter(Boolean)
      .map((line) => line.replace(/\s+#.*$/, ''));
    expect(commands).toEqual(['npm ci && npm run demo', 'npm ci && npm test']);
  });

  it('never tells users to run the product by name through npx (it is not on the npm registry)', () => {
    for (const file of MARKDOWN) expect(read(file), relative(ROOT, file)).not.toMatch(/npx\s+(--\S+\s+)*karpenter-sentinel/);
  });

  it('maps a symptom to every finding code, linked to its section in docs/findings.md', () => {
    const map = readme.slice(readme.indexOf('## Symptom'));
    for (const code of FINDING_CODES) expect(map).toContain(`(docs/findings.md#${code.toLowerCase()})`);
  });
});

describe('docs/findings.md', () => {
  const findings = read(join(DOCS, 'findings.md'));

  it('has one section per finding code, naming each of its causes', () => {
    const sections = findings.split(/^## /m);
    for (const code of FINDING_CODES) {
      const section = sections.find((s) => s.startsWith(`\`${code}\``));
      expect(section, code).toBeDefined();
      for (const cause of CAUSES_BY_FINDING[code]) expect(section, `${code} / ${cause}`).toContain(`\`${cause}\``);
    }
  });
});
