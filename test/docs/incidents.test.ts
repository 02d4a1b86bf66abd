/**
 * docs/incidents.md reports the tool's accuracy on the public-incident corpus: its table, totals and
 * known gaps must be what `npm run incidents` prints now, so a detector change cannot leave it stale.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { accuracyMarkdown, generatedSection, INCIDENTS_DOC } from '../incidents/accuracy.ts';
import { incidentSlugs, runIncident } from '../incidents/run.ts';

describe('docs/incidents.md', () => {
  it('holds the accuracy table, totals and known gaps that npm run incidents prints now', async () => {
    // Prepare
    const runs = await Promise.all(incidentSlugs().map(runIncident));

    // Act
    const generated = await accuracyMarkdown(runs);

    // Assess
    const committed = generatedSection(readFileSync(INCIDENTS_DOC, 'utf8'));
    expect(committed, 'docs/incidents.md is stale: run npm run incidents -- --write').toBe(generated);
  });

  it('lists every incident in its table, and one known gap per incident not graded right', async () => {
    // Act
    const section = generatedSection(readFileSync(INCIDENTS_DOC, 'utf8')) ?? '';

    // Assess
    const [table = '', gaps = ''] = section.split('## Known gaps');
    for (const slug of incidentSlugs()) expect(table).toContain(`[${slug}](../test/incidents/${slug}/SOURCE.md)`);
    const notRight = table.split('\n').filter((row) => /\*\*(partly|wrong|missed)\*\*/.test(row)).length;
    expect(gaps.split('\n').filter((line) => line.startsWith('- ['))).toHaveLength(notRight);
  });
});
