/**
 * Issue 21: a capture analysed a week later gives the same findings as on the day. Each public
 * incident's capture, scanned without --now with the wall clock a week past its `now`, is judged
 * at the capture's own time: here the newest timestamp in its files, as none records when it was
 * taken (docs/capture.md "The capture's time"); the two that hold no time at all have no finding
 * that depends on one.
 */
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Report } from '../../src/domain/report.ts';
import { run as runCli } from '../unit/cli/cli-harness.ts';
import { INCIDENTS, incidentSlugs, readExpectation } from './run.ts';

const WEEK_MS = 7 * 86_400_000;

/**
 * Captures whose files hold no time close to their capture: only the pods' creation, no node
 * heartbeat, event or log. Judged at that lower bound, their pods look younger than they were, and
 * the scan says so in a note rather than guess at the wall clock.
 */
const NO_RECENT_TIME = new Set(['fargate-taint-karpenter-pods-pending']);

async function scan(slug: string, clock: Date, now?: string) {
  const capture = mkdtempSync(join(tmpdir(), `incident-${slug}-`));
  try {
    for (const entry of readdirSync(join(INCIDENTS, slug))) {
      if (entry !== 'SOURCE.md' && entry !== 'expected.json')
        cpSync(join(INCIDENTS, slug, entry), join(capture, entry), { recursive: true });
    }
    const result = await runCli(['scan', '--from', capture, '-o', 'json', ...(now ? ['--now', now] : [])], {
      services: { clock: () => clock },
    });
    return { report: JSON.parse(result.stdout) as Report, stderr: result.stderr };
  } finally {
    rmSync(capture, { recursive: true, force: true });
  }
}

const diagnosis = (report: Report) =>
  report.findings.map((f) => ({ code: f.code, cause: f.cause?.code, severity: f.severity, resource: f.resource }));

describe('public incidents scanned a week later, without --now', () => {
  it.each(incidentSlugs().filter((slug) => !NO_RECENT_TIME.has(slug)))('%s: the findings of the day', async (slug) => {
    const { now } = readExpectation(slug);

    const onTheDay = await scan(slug, new Date(now), now);
    const later = await scan(slug, new Date(Date.parse(now) + WEEK_MS));

    expect(diagnosis(later.report)).toEqual(diagnosis(onTheDay.report));
  });

  it.each([...NO_RECENT_TIME])('%s: judged at its newest timestamp, with a note that ages may be longer', async (slug) => {
    const { now } = readExpectation(slug);

    const later = await scan(slug, new Date(Date.parse(now) + WEEK_MS));

    expect(later.report.timeSource?.source).toBe('newest-timestamp');
    expect(Date.parse(later.report.generatedAt)).toBeLessThanOrEqual(Date.parse(now));
    expect(later.stderr).toContain('ages may be longer than shown');
  });
});
