/**
 * The table on a real terminal: every finding the bundled examples make, in one report, at 60, 80
 * and 120 columns. Prose wraps; steps (commands, YAML) come out exactly as the report has them.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLES_NOW } from '../../../../src/cli/commands/demo.ts';
import { describeResource } from '../../../../src/cli/render/format.ts';
import { ANSI_STYLE } from '../../../../src/cli/render/style.ts';
import { renderTable } from '../../../../src/cli/render/table.ts';
import { displayWidth } from '../../../../src/cli/render/wrap.ts';
import type { Finding } from '../../../../src/domain/finding.ts';
import { buildReport, type Report } from '../../../../src/domain/report.ts';
import { CLI_ACTIONS, DEFAULT_DETECTION } from '../../../../src/domain/settings.ts';
import { setAsideGap } from '../../../../src/domain/snapshot.ts';
import { loadSnapshot } from '../../../../src/snapshot/load.ts';
import { analyze } from '../../../../src/usecases/analyze.ts';
import { orphan } from './report-fixtures.ts';

const EXAMPLES = fileURLToPath(new URL('../../../../examples/', import.meta.url));
const NOW = new Date(EXAMPLES_NOW);

let report: Report;

beforeAll(async () => {
  const findings: Finding[] = [orphan];
  for (const name of readdirSync(EXAMPLES, { withFileTypes: true }).filter((e) => e.isDirectory())) {
    const { snapshot } = await loadSnapshot([join(EXAMPLES, name.name)]);
    findings.push(...analyze(snapshot, { detection: DEFAULT_DETECTION, actions: CLI_ACTIONS, now: NOW }).findings);
  }
  report = buildReport({ cluster: 'aws-2026-eks', now: NOW, gaps: [setAsideGap('pods', 2)], findings });
});

/** A step as the table shows it: its number, then each further line under the same indent. */
function stepBlock(step: string, i: number): string[] {
  const number = `    ${i + 1}. `;
  return step.split('\n').map((line, j) => (j === 0 ? number : line === '' ? '' : ' '.repeat(number.length)) + line);
}

function overviewRows(text: string): string[] {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => /^\d+ findings:$/.test(l));
  const end = lines.indexOf('', start);
  return lines.slice(start + 1, end);
}

describe.each([60, 80, 120])('the table at %i columns', (width) => {
  it('has no line wider than the terminal but a step’s or one word too long to break', () => {
    const text = renderTable(report, { width });

    const stepLines = new Set(report.findings.flatMap((f) => (f.remediation?.steps ?? []).flatMap(stepBlock)));
    const tooWide = text.split('\n').filter((l) => displayWidth(l) > width && !stepLines.has(l));
    // What is left over is a single word (an ARN, a URL) under its indent or list mark.
    for (const line of tooWide) expect(line.trim().replace(/^- /, '')).not.toContain(' ');
    expect(report.findings.length).toBeGreaterThan(15);
  });

  it('prints every step unbroken and identical to the report’s, numbered, in order', () => {
    const text = renderTable(report, { width });

    for (const finding of report.findings) {
      for (const [i, step] of (finding.remediation?.steps ?? []).entries()) {
        expect(text).toContain(stepBlock(step, i).join('\n'));
      }
    }
  });

  it('wraps prose only at spaces: each cause and evidence line reads back whole', () => {
    const text = renderTable(report, { width });

    // A break is a newline and the hanging indent where a space was: six spaces under an evidence
    // item, four under a title or cause (where a step's number or an item's dash starts no break).
    const unwrapped = text.replace(/\n {6}(?! )/g, ' ').replace(/\n {4}(?! |\d+\. |- )/g, ' ');
    for (const finding of report.findings) {
      expect(unwrapped).toContain(`${finding.title}\n`);
      if (finding.cause) expect(unwrapped).toContain(`  cause: ${finding.cause.code} — ${finding.cause.detail}\n`);
      for (const fact of finding.evidence.slice(0, 7)) expect(unwrapped).toContain(`    - ${fact}\n`);
    }
  });

  it('fits the overview to the width, breaking no word: a shortened cell ends in …', () => {
    const text = renderTable(report, { width });
    const words = new Set(
      report.findings.flatMap((f) =>
        [f.severity.toUpperCase(), f.code, describeResource(f.resource), f.cause?.code ?? '-', f.remediation?.action ?? '']
          .join(' ')
          .split(' '),
      ),
    );
    words.add('cause').add('remediation').add('·').add('manual').add('none').add('proposed').add('planned').add('SKIPPED');

    const rows = overviewRows(text);

    expect(rows.length).toBeGreaterThanOrEqual(report.findings.length);
    for (const row of rows) {
      expect(displayWidth(row)).toBeLessThanOrEqual(width);
      for (const word of row.trim().split(/ +/)) if (!word.endsWith('…')) expect(words).toContain(word);
    }
  });

  it('measures coloured lines by what shows, and lets no colour run past a line', () => {
    const text = renderTable(report, { width, style: ANSI_STYLE });

    const plain = renderTable(report, { width });
    // eslint-disable-next-line no-control-regex
    const sgr = /\u001b\[[0-9;]*m/g;
    expect(text.replace(sgr, '').replace(/\n +/g, ' ')).toBe(plain.replace(/\n +/g, ' '));
    for (const line of overviewRows(text)) expect(displayWidth(line)).toBeLessThanOrEqual(width);
    // A line's last colour code closes (22 bold/dim, 39 colour, 0 all): nothing bleeds into the next.
    for (const line of text.split('\n')) expect(line.match(sgr)?.at(-1) ?? '\u001b[0m').toMatch(/\[(22|39|0)m$/);
  });
});

it('at 60 columns stacks the overview: a resource too long is shortened at a word, whole in its block below', () => {
  const text = renderTable(report, { width: 60 });

  const rows = overviewRows(text);
  const crd = rows.findIndex((row) => row.startsWith('  CRITICAL  CRD_CONVERSION_WEBHOOK_BROKEN'));
  expect(rows.slice(crd, crd + 3)).toEqual([
    '  CRITICAL  CRD_CONVERSION_WEBHOOK_BROKEN',
    '            CustomResourceDefinition …',
    '            cause SERVICE_MISSING · manual',
  ]);
  expect(text).toContain(
    '\nCRITICAL CRD_CONVERSION_WEBHOOK_BROKEN\n         CustomResourceDefinition\n         ec2nodeclasses.karpenter.k8s.aws\n',
  );
});

describe('the table without a width (a caller that asks for none)', () => {
  it('wraps nothing: each cause on one line', () => {
    const text = renderTable(report);

    for (const finding of report.findings) {
      if (finding.cause) expect(text).toContain(`  cause: ${finding.cause.code} — ${finding.cause.detail}\n`);
    }
  });
});
