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
import { ANSI_STYLE, PLAIN_STYLE } from '../../../../src/cli/render/style.ts';
import { findingBlock } from '../../../../src/cli/render/table-finding.ts';
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

/**
 * The lines of a step a shell runs: the first unless it is a `# why` comment or a one-line step
 * that names no program first (prose), and every line after the first that is not a comment
 * (continuations, YAML, JSON to paste). Written apart from the renderer's own rule on purpose.
 */
function commandLines(step: string): string[] {
  const lines = step.split('\n');
  const isCommand = (line: string, j: number) =>
    !line.startsWith('# ') &&
    line !== '' &&
    (j > 0 || lines.length > 1 || /^(kubectl|aws|eksctl|helm|[A-Za-z_]\w*=)\s/.test(line));
  return lines.filter(isCommand);
}

/** The lines the table prints for step `i` of `finding` at `width` (number and indent removed). */
function renderedStep(finding: Finding, i: number, width: number): string[] {
  const number = `    ${i + 1}. `;
  const lines = findingBlock(finding, PLAIN_STYLE, width);
  const first = lines.findIndex((l) => l.startsWith(number));
  const rest = lines.slice(first + 1);
  const end = rest.findIndex((l) => !l.startsWith(' '.repeat(number.length)));
  return [lines[first]!, ...rest.slice(0, end === -1 ? rest.length : end)].map((l) => l.slice(number.length));
}

/** A step read as one line: line breaks, `# ` at the start of a line and runs of spaces gone. */
const flat = (text: string) => text.replace(/\n(# )?/g, ' ').replace(/ +/g, ' ');

function overviewRows(text: string): string[] {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => /^\d+ findings:$/.test(l));
  const end = lines.indexOf('', start);
  return lines.slice(start + 1, end);
}

describe.each([60, 80, 120])('the table at %i columns', (width) => {
  it('has no line wider than the terminal but a command or one word too long to break', () => {
    const text = renderTable(report, { width });

    const commands = new Set(report.findings.flatMap((f) => (f.remediation?.steps ?? []).flatMap(commandLines)));
    const tooWide = text
      .split('\n')
      .filter((l) => displayWidth(l) > width && !commands.has(l.trimStart().replace(/^\d+\. /, '')));
    // What is left over is a single word (an ARN, a URL) under its indent, list mark or `# `.
    for (const line of tooWide) expect(line.trim().replace(/^(- |# )/, '')).not.toContain(' ');
    expect(report.findings.length).toBeGreaterThan(15);
  });

  it('prints every command of every step whole, its `# why` wrapped into `# ` lines, so it still pastes', () => {
    for (const finding of report.findings) {
      for (const [i, step] of (finding.remediation?.steps ?? []).entries()) {
        const rendered = renderedStep(finding, i, width);
        const commands = commandLines(step);
        // Commands come out whole and in order, as the report has them.
        expect(rendered.filter((l) => commands.includes(l))).toEqual(commands);
        // Nothing but line breaks (and `# ` to start a comment line) was added or lost.
        expect(flat(rendered.join('\n'))).toBe(flat(step));
        // A wrapped comment stays a comment: every line before the command starts with `# `.
        if (step.startsWith('# ')) {
          const command = rendered.indexOf(commands[0] ?? '');
          for (const line of rendered.slice(0, command)) expect(line).toMatch(/^# /);
        }
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
