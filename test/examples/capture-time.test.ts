/**
 * Issue 21: a capture analysed a week (a year) later gives the same findings as on the day. Every
 * bundled example, scanned as a user does, without --now and with the wall clock moved on, is
 * judged at the capture's own time (docs/capture.md "The capture's time").
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { EXAMPLES_NOW } from '../../src/cli/commands/demo.ts';
import type { Report } from '../../src/domain/report.ts';
import { run } from '../unit/cli/cli-harness.ts';

const EXAMPLES = fileURLToPath(new URL('../../examples/', import.meta.url));
const DAY_MS = 86_400_000;
const names = readdirSync(EXAMPLES, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort();

async function scan(name: string, clock: Date, now?: string): Promise<Report> {
  const result = await run(['scan', '--from', `${EXAMPLES}${name}`, '-o', 'json', ...(now ? ['--now', now] : [])], {
    services: { clock: () => clock },
  });
  return JSON.parse(result.stdout) as Report;
}

/** What a reader acts on: each finding's code, cause, severity, resource and what is done about it. */
const diagnosis = (report: Report) =>
  report.findings.map((f) => ({
    code: f.code,
    cause: f.cause?.code,
    severity: f.severity,
    resource: f.resource,
    remediation: f.remediation?.status,
  }));

describe('bundled examples scanned later, without --now', () => {
  it('are read from the examples folder', () => {
    expect(names.length).toBeGreaterThanOrEqual(37);
  });

  it.each(names)('%s: a week and a year later, the findings of the day', async (name) => {
    const onTheDay = await scan(name, new Date(EXAMPLES_NOW), EXAMPLES_NOW);

    for (const later of [7 * DAY_MS, 365 * DAY_MS]) {
      const report = await scan(name, new Date(Date.parse(EXAMPLES_NOW) + later));

      expect(diagnosis(report)).toEqual(diagnosis(onTheDay));
      expect(report.timeSource?.source).not.toBe('wall-clock');
    }
  });
});
