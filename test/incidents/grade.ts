/**
 * How an answer to a public incident is graded (test/incidents/README.md, "Grading"): right, partly,
 * wrong or missed, from the report's findings, the incident's `expected.json`, and everything the
 * scan printed. Pure: the caller runs the scan and renders it.
 */
import { SEVERITY_RANK } from '../../src/domain/codes.ts';
import type { Finding } from '../../src/domain/finding.ts';

/** Worst first: advice the capture contradicts is worse than no answer (issue 20). */
export const GRADES = ['wrong', 'missed', 'partly', 'right'] as const;
export type Grade = (typeof GRADES)[number];

export function gradeRank(grade: Grade): number {
  return GRADES.indexOf(grade);
}

export function isGrade(value: unknown): value is Grade {
  return typeof value === 'string' && (GRADES as readonly string[]).includes(value);
}

/** A finding code with, optionally, its cause: `{ finding }` alone matches any cause. */
interface FindingArea {
  finding: string;
  cause?: string;
}

/** `expected.json` of one incident (the fields are described in test/incidents/README.md). */
export interface IncidentExpectation {
  source: string;
  now: string;
  established: string;
  kinds: string[];
  expect: { finding: string; cause: string; newFinding?: boolean; newCause?: boolean; mentions: string[] };
  partly: FindingArea[];
  mustNotSay: string[];
  /** The grade the tool earned when it was last recorded: the test fails below it. */
  grade: Grade;
  /** Why an incident is not `right` yet; it names every `mustNotSay` string the tool still prints. */
  knownGap?: string;
}

export interface Verdict {
  grade: Grade;
  /** One line: why this grade. */
  reason: string;
  /** The `mustNotSay` strings found in what was printed. */
  contradicted: string[];
}

/** Every string a finding carries (title, resource, cause, evidence, steps), lower-cased, for `mentions`. */
function findingText(finding: Finding): string {
  const strings: string[] = [];
  const collect = (value: unknown): void => {
    if (typeof value === 'string') strings.push(value);
    else if (Array.isArray(value)) value.forEach(collect);
    else if (value !== null && typeof value === 'object') Object.values(value).forEach(collect);
  };
  collect([finding.title, finding.resource, finding.cause, finding.evidence, finding.remediation?.steps]);
  return strings.join('\n').toLowerCase();
}

function inArea(finding: Finding, area: FindingArea): boolean {
  return finding.code === area.finding && (area.cause === undefined || finding.cause?.code === area.cause);
}

export function describeFinding(finding: Pick<Finding, 'code' | 'cause'>): string {
  return `${finding.code}/${finding.cause?.code ?? '-'}`;
}

/**
 * - wrong: something in `mustNotSay` is printed, or findings at warning or above name none of the
 *   right area (a confident answer about something else);
 * - right: a finding of the expected code and cause whose text names every `mentions` entry;
 * - partly: a finding of the expected code (another cause, or names missing), or of a `partly` area;
 * - missed: nothing in the right area, and nothing else at warning or above.
 * `printed` is everything the user reads: the table, the Markdown, the JSON report's steps.
 */
export function gradeAnswer(expected: IncidentExpectation, findings: readonly Finding[], printed: readonly string[]): Verdict {
  const contradicted = expected.mustNotSay.filter((phrase) => printed.some((text) => text.includes(phrase)));
  if (contradicted.length > 0) {
    return { grade: 'wrong', reason: `prints ${contradicted.map((p) => JSON.stringify(p)).join(', ')}`, contradicted };
  }
  const { finding, cause, mentions } = expected.expect;
  const expectedArea = findings.filter((f) => inArea(f, { finding, cause }));
  const named = expectedArea.find((f) => mentions.every((m) => findingText(f).includes(m.toLowerCase())));
  if (named) return { grade: 'right', reason: `${describeFinding(named)} names ${mentions.join(', ')}`, contradicted };
  if (expectedArea.length > 0) {
    const text = expectedArea.map(findingText).join('\n');
    const missing = mentions.filter((m) => !text.includes(m.toLowerCase()));
    return { grade: 'partly', reason: `${finding}/${cause} without ${missing.join(', ')}`, contradicted };
  }
  const near = findings.find((f) => f.code === finding || expected.partly.some((area) => inArea(f, area)));
  if (near) return { grade: 'partly', reason: `${describeFinding(near)}: the right area, not ${cause}`, contradicted };
  const serious = findings.filter((f) => SEVERITY_RANK[f.severity] >= SEVERITY_RANK.warning);
  if (serious.length > 0) {
    return { grade: 'wrong', reason: `names only ${serious.map(describeFinding).join(', ')}`, contradicted };
  }
  return { grade: 'missed', reason: findings.length === 0 ? 'no findings' : 'no finding at warning or above', contradicted };
}
