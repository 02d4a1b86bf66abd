/**
 * Runs one public incident the way a user runs `scan --from DIR --now NOW`: its capture files (not
 * SOURCE.md nor expected.json, which are not captures) copied to a folder of their own, loaded,
 * analysed, and rendered as the table and the Markdown the CLI prints, then graded.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exitCodeFor } from '../../src/cli/offline-scan.ts';
import { renderReport } from '../../src/cli/render/index.ts';
import type { Report } from '../../src/domain/report.ts';
import { CLI_ACTIONS, DEFAULT_DETECTION } from '../../src/domain/settings.ts';
import { loadSnapshot } from '../../src/snapshot/load.ts';
import { analyze } from '../../src/usecases/analyze.ts';
import { gradeAnswer, type IncidentExpectation, type Verdict } from './grade.ts';

export const INCIDENTS = fileURLToPath(new URL('./', import.meta.url));

/** The files of an incident folder that are not part of the capture. */
const NOT_CAPTURE = new Set(['SOURCE.md', 'expected.json']);

/** Every incident folder's name, sorted. */
export function incidentSlugs(): string[] {
  return readdirSync(INCIDENTS, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/** `expected.json` as written: the test checks its `grade` is one (a new incident has none yet). */
export function readExpectation(slug: string): IncidentExpectation {
  return JSON.parse(readFileSync(join(INCIDENTS, slug, 'expected.json'), 'utf8')) as IncidentExpectation;
}

export interface IncidentRun {
  slug: string;
  expected: IncidentExpectation;
  report: Report;
  /** What the loader said about the capture files (files left out, guesses). */
  notices: string[];
  /** What the user reads: the table, the Markdown, and the JSON report's remediation steps. */
  printed: string[];
  verdict: Verdict;
}

export async function runIncident(slug: string): Promise<IncidentRun> {
  const expected = readExpectation(slug);
  const capture = mkdtempSync(join(tmpdir(), `incident-${slug}-`));
  try {
    for (const entry of readdirSync(join(INCIDENTS, slug))) {
      if (!NOT_CAPTURE.has(entry)) cpSync(join(INCIDENTS, slug, entry), join(capture, entry), { recursive: true });
    }
    const { snapshot, notices } = await loadSnapshot([capture]);
    const report = analyze(snapshot, { detection: DEFAULT_DETECTION, actions: CLI_ACTIONS, now: new Date(expected.now) });
    const outcome = { code: exitCodeFor(report, 'warning'), failOn: 'warning' as const };
    const table = renderReport(report, 'table', { colour: false, outcome });
    const markdown = renderReport(report, 'markdown', { colour: false, outcome });
    const json = JSON.parse(renderReport(report, 'json', { colour: false, outcome })) as Report;
    const steps = json.findings.flatMap((f) => f.remediation?.steps ?? []);
    const printed = [table, markdown, ...steps];
    const verdict = gradeAnswer(expected, report.findings, printed);
    return { slug, expected, report, notices: notices.map((n) => n.replaceAll(capture, slug)), printed, verdict };
  } finally {
    rmSync(capture, { recursive: true, force: true });
  }
}
