/**
 * docs/report-json.md tells the truth about `--output json`: its sample is the real output of the
 * command it names (prose strings aside, which may be reworded), and every field a report can
 * carry is documented there. Fails when the report gains, loses or reshapes a field and the doc
 * does not follow.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { EXAMPLES_NOW } from '../../../../src/cli/commands/demo.ts';
import type { Report } from '../../../../src/domain/report.ts';
import { run } from '../cli-harness.ts';

const DOC = readFileSync(fileURLToPath(new URL('../../../../docs/report-json.md', import.meta.url)), 'utf8');
const EXAMPLES = fileURLToPath(new URL('../../../../examples/', import.meta.url));
const EXAMPLE = 'nodes-not-registering-aws-auth';

/** Words for a human, free to be reworded without the doc going stale: only their place is checked. */
const PROSE = new Set(['title', 'detail', 'evidence', 'steps']);

function withoutProse(value: unknown, key = ''): unknown {
  if (PROSE.has(key)) return Array.isArray(value) ? value.map(() => '<text>') : '<text>';
  if (Array.isArray(value)) return value.map((v) => withoutProse(v));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withoutProse(v, k)]));
  }
  return value;
}

/** Every key that occurs anywhere in `value`. */
function keysOf(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) keysOf(v, into);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) keysOf(v, into.add(k));
  }
  return into;
}

async function jsonReport(example: string): Promise<Report> {
  const result = await run([
    'scan',
    '--from',
    `${EXAMPLES}${example}`,
    '--now',
    EXAMPLES_NOW,
    '-o',
    'json',
    '--fail-on',
    'never',
  ]);
  return JSON.parse(result.stdout) as Report;
}

const SAMPLE_BLOCK = /```json\n([\s\S]*?)\n```/;
const sample = JSON.parse(SAMPLE_BLOCK.exec(DOC)?.[1] ?? 'null') as Report;
/** The doc's words, without the sample: a field the sample merely shows is not documented yet. */
const PROSE_OF_DOC = DOC.replace(SAMPLE_BLOCK, '');

describe('docs/report-json.md', () => {
  it('names the command its sample comes from', () => {
    expect(DOC).toContain(`karpenter-sentinel scan --from examples/${EXAMPLE} --now ${EXAMPLES_NOW} -o json`);
  });

  it('shows the real output of that command: every field, value and list length', async () => {
    expect(withoutProse(sample)).toEqual(withoutProse(await jsonReport(EXAMPLE)));
  });

  it('never pairs complete: true with gaps or files left out', () => {
    expect(sample.complete).toBe(sample.gaps.length === 0 && (sample.unreadFiles ?? []).length === 0);
  });

  it('documents every field a report of any bundled example has, and those of gaps and left-out files', async () => {
    const keys = new Set(['source', 'error', 'detector', 'unreadFiles']);
    for (const example of ['controller-crash-loop', 'orphans-after-destroy', 'subnet-ip-exhausted', 'healthy']) {
      keysOf(await jsonReport(example), keys);
    }

    const undocumented = [...keys].filter((key) => !PROSE_OF_DOC.includes(`\`${key}\``) && !PROSE_OF_DOC.includes(`"${key}"`));
    expect(undocumented).toEqual([]);
    expect(keys).toContain('counts');
    expect(keys).toContain('notCaptured');
  });
});
