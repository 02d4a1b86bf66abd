/**
 * Accuracy on the public-incident corpus (test/incidents/): scans every incident as `scan --from`
 * does, grades it (test/incidents/README.md, "Grading") and prints the Markdown table, the totals and
 * the known gaps that docs/incidents.md holds.
 *
 * Usage: `npm run incidents [-- --write] [-- --record]`
 *   --write   replace the generated section of docs/incidents.md with what is printed
 *   --record  set each expected.json's "grade" to today's grade (then review its "knownGap": a right
 *             incident has none, any other says why)
 * Each incident whose grade differs from the recorded one is named on stderr.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { accuracyMarkdown, INCIDENTS_DOC, withSection } from '../test/incidents/accuracy.ts';
import { INCIDENTS, incidentSlugs, runIncident, type IncidentRun } from '../test/incidents/run.ts';

/** expected.json with its "grade" set, edited as text so the rest keeps its layout. */
function recordGrade(run: IncidentRun): void {
  const file = join(INCIDENTS, run.slug, 'expected.json');
  const text = readFileSync(file, 'utf8');
  const grade = JSON.stringify(run.verdict.grade);
  const updated = /"grade":\s*"[a-z]*"/.test(text)
    ? text.replace(/"grade":\s*"[a-z]*"/, `"grade": ${grade}`)
    : text.replace(/\s*}\s*$/, `,\n  "grade": ${grade}\n}\n`);
  writeFileSync(file, updated);
}

const { values } = parseArgs({ options: { write: { type: 'boolean' }, record: { type: 'boolean' } } });
const runs: IncidentRun[] = [];
for (const slug of incidentSlugs()) runs.push(await runIncident(slug));

for (const run of runs) {
  if (run.verdict.grade === run.expected.grade) continue;
  process.stderr.write(
    `${run.slug}: ${run.verdict.grade} today, recorded ${run.expected.grade ?? 'none'} (${run.verdict.reason})\n`,
  );
  if (values.record) recordGrade(run);
}

const section = await accuracyMarkdown(runs);
process.stdout.write(section);
if (values.write) writeFileSync(INCIDENTS_DOC, withSection(readFileSync(INCIDENTS_DOC, 'utf8'), section));
