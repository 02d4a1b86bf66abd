/** `--help` fits the terminal: every help screen, at 80 and 60 columns, with flags still in line. */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/main.ts';
import { wrapHelp } from '../../../src/cli/render/help.ts';

async function help(argv: string[], columns: number | undefined, program?: string): Promise<string> {
  const out: string[] = [];
  const stream = { write: (s: string) => out.push(s), isTTY: false };
  const terminal = { noColor: true, forceColor: false, ...(columns === undefined ? {} : { columns }) };
  await runCli(argv, { stdout: stream, stderr: stream, terminal }, {}, program ? { program } : {});
  return out.join('');
}

/** The commands the general help lists: a command added later is checked too. */
async function commandNames(): Promise<string[]> {
  const text = await help(['--help'], 1000);
  const listed = text.slice(text.indexOf('Commands:\n') + 'Commands:\n'.length).split('\n\n')[0] ?? '';
  return listed.split('\n').map((line) => line.trim().split(' ')[0] as string);
}

/** Lines wider than `width`, but for one word too long to fit anywhere (a doc's absolute path), kept whole by design. */
const overWidth = (text: string, width: number) =>
  text.split('\n').filter((line) => [...line].length > width && line.trim().includes(' '));

const indentOf = (line: string) => line.length - line.trimStart().length;

/**
 * Lines broken too early: a line followed by more of its paragraph whose first word would have fit
 * on it. Paragraphs are prose lines (not indented; a `Label: ` line starts its own) and a flag's
 * description continued under its column; command examples and Usage lines are left alone.
 */
function raggedLines(text: string, width: number): string[] {
  const lines = text.split('\n');
  return lines.flatMap((line, i) => {
    const next = lines[i + 1] ?? '';
    if (line.trim() === '' || next.trim() === '' || line.endsWith(':')) return [];
    const prose = indentOf(line) === 0 && indentOf(next) === 0 && !/^[A-Z][a-z]+(?: [a-z]+)*: /.test(next);
    const entry = /^( +\S(?:.*?\S)?( {2,}))\S/.exec(line);
    const description = indentOf(next) > 2 && (indentOf(line) === indentOf(next) || entry?.[1]?.length === indentOf(next));
    if (!prose && !description) return [];
    const word = next.trimStart().split(' ')[0] ?? '';
    return [...line].length + 1 + [...word].length <= width ? [`${line}⏎${next}`] : [];
  });
}

describe('help wrapped to the terminal', () => {
  it.each([80, 60])('no line of any help screen is wider than %i columns, under either program name', async (width) => {
    const names = await commandNames();
    expect(names).toEqual(expect.arrayContaining(['scan', 'snapshot', 'capture-script', 'cleanup', 'demo', 'help']));
    for (const program of ['karpenter-sentinel', 'kubectl sentinel']) {
      for (const argv of [['--help'], ...names.map((name) => ['help', name])]) {
        expect({ argv, program, over: overWidth(await help(argv, width, program), width) }).toEqual({ argv, program, over: [] });
      }
    }
  });

  it.each([80, 60])('re-flows hand-wrapped prose: no line at %i columns ends before a word that fits', async (width) => {
    const names = await commandNames();
    for (const argv of [['--help'], ...names.map((name) => ['help', name])]) {
      expect({ argv, ragged: raggedLines(await help(argv, width), width) }).toEqual({ argv, ragged: [] });
    }
  });

  it('keeps every word and flag whole: the wrapped text has the same words as the wide one', async () => {
    const names = await commandNames();
    for (const name of names) {
      const wide = await help(['help', name], 1000);
      const narrow = await help(['help', name], 60);
      expect(narrow.split(/\s+/)).toEqual(wide.split(/\s+/));
    }
  });

  it('continues a wrapped description under the description column, so the flags stay in line', async () => {
    const text = await help(['help', 'scan'], 80);
    const lines = text.split('\n');
    const at = lines.findIndex((line) => line.startsWith('  --cluster NAME '));
    const column = lines[at]!.indexOf('live:');

    expect(column).toBe(31);
    expect(lines[at + 1]).toMatch(new RegExp(`^ {${column}}\\S`));
    expect(lines.find((line) => line.startsWith('  --from PATH... '))!.indexOf('files')).toBe(column);
  });

  it('is 80 columns wide when neither COLUMNS nor a terminal gives a width (a pipe)', async () => {
    const text = await help(['help', 'scan'], undefined);

    expect(overWidth(text, 80)).toEqual([]);
    expect(overWidth(text, 79).length).toBeGreaterThan(0);
  });

  it('a report piped without COLUMNS wraps its prose at the width help does: one default for both', async () => {
    const example = fileURLToPath(new URL('../../../examples/termination-stuck-pdb', import.meta.url));
    const helpText = await help(['help', 'scan'], undefined);
    const report = await help(['scan', '--from', example, '--fail-on', 'never'], undefined);
    // Fix-step commands never wrap (a wrapped command pastes as two); everything else is prose.
    const prose = report.split('\n').filter((line) => !/^\s+kubectl /.test(line));

    expect(overWidth(helpText, 80)).toEqual([]);
    expect(overWidth(prose.join('\n'), 80)).toEqual([]);
    expect(overWidth(prose.join('\n'), 79).length).toBeGreaterThan(0);
  });

  it('puts a description under its entry when beside it would leave too little room', () => {
    expect(wrapHelp('  karpenter-sentinel scan --cluster NAME        live: an EKS cluster', 40).split('\n')).toEqual([
      '  karpenter-sentinel scan --cluster NAME',
      '      live: an EKS cluster',
    ]);
  });
});
