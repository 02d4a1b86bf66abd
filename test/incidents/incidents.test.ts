/**
 * The public-incident corpus (test/incidents/README.md): every incident is scanned as a user would
 * scan it and graded. A grade below the one recorded in its expected.json fails; a higher one passes
 * with a note to raise the record (`npm run incidents -- --record`). Advice the capture contradicts
 * (`mustNotSay`) fails unless it is the recorded reason the incident is graded `wrong`.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeFinding, gradeRank, isGrade } from './grade.ts';
import { INCIDENTS, incidentSlugs, readExpectation, runIncident, type IncidentRun } from './run.ts';

const SLUGS = incidentSlugs();

// Loading and analysis are pure: each incident is scanned once and shared by its tests.
const runs = new Map<string, Promise<IncidentRun>>();
function run(slug: string): Promise<IncidentRun> {
  let result = runs.get(slug);
  if (!result) {
    result = runIncident(slug);
    runs.set(slug, result);
  }
  return result;
}

function said(incident: IncidentRun): string {
  const findings = incident.report.findings.map(describeFinding);
  return findings.length > 0 ? findings.join(', ') : 'no findings';
}

describe('public incidents', () => {
  it('the corpus is there: at least 25 incidents', () => {
    expect(SLUGS.length).toBeGreaterThanOrEqual(25);
  });

  describe.each(SLUGS)('%s', (slug) => {
    const expected = readExpectation(slug);

    it('has its SOURCE.md and an expected.json with a recorded grade, and a known gap unless right', () => {
      // Assess
      expect(existsSync(join(INCIDENTS, slug, 'SOURCE.md'))).toBe(true);
      expect(isGrade(expected.grade), `"grade" in ${slug}/expected.json: right, partly, wrong or missed`).toBe(true);
      expect(expected.mustNotSay).toEqual(expect.any(Array));
      if (expected.grade === 'right') expect(expected.knownGap, 'a right incident has no known gap: remove it').toBeUndefined();
      else expect(expected.knownGap, `why is ${slug} graded ${expected.grade}? Say it in "knownGap"`).toMatch(/\S/);
    });

    it(`is graded at least ${expected.grade}`, async () => {
      // Act
      const incident = await run(slug);

      // Assess
      const { grade, reason } = incident.verdict;
      expect(gradeRank(grade), `graded ${grade} (${reason}); the tool said: ${said(incident)}`).toBeGreaterThanOrEqual(
        gradeRank(expected.grade),
      );
      // Better than recorded passes, and says so in the test output (the docs test then fails on the changed table).
      if (grade !== expected.grade)
        console.warn(`${slug} is now ${grade}, recorded ${expected.grade}: raise "grade" in its expected.json`);
    });

    it('prints nothing the capture contradicts, unless that is its recorded known gap', async () => {
      // Act
      const incident = await run(slug);

      // Assess
      const known = (phrase: string) => expected.grade === 'wrong' && (expected.knownGap ?? '').includes(phrase);
      const unknown = incident.verdict.contradicted.filter((phrase) => !known(phrase));
      expect(unknown, 'printed, though the capture contradicts it (not a recorded known gap of a wrong grade)').toEqual([]);
    });
  });
});
