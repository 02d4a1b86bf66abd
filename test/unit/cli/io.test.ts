import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readTerminalEnvironment } from '../../../src/config.ts';
import { DEFAULT_WIDTH, outputWidth, writeNote, type CliContext, type OutputStream } from '../../../src/cli/io.ts';
import { run } from './cli-harness.ts';

const terminal = (env: NodeJS.ProcessEnv) => readTerminalEnvironment(env);
const tty = (columns: number | undefined): OutputStream => ({ write: () => true, isTTY: true, columns });
const pipe: OutputStream = { write: () => true };

describe('outputWidth: the width prose is wrapped to', () => {
  it('is COLUMNS when it is a positive integer, over the terminal’s own width', () => {
    expect(outputWidth(tty(200), terminal({ COLUMNS: '72' }))).toBe(72);
    expect(outputWidth(pipe, terminal({ COLUMNS: '72' }))).toBe(72);
  });

  it('is the terminal’s width when COLUMNS is unset or not a positive integer', () => {
    expect(outputWidth(tty(132), terminal({}))).toBe(132);
    expect(outputWidth(tty(132), terminal({ COLUMNS: '0' }))).toBe(132);
    expect(outputWidth(tty(132), terminal({ COLUMNS: 'wide' }))).toBe(132);
  });

  it(`is ${DEFAULT_WIDTH} when nothing says: a pipe, a file, a terminal that gives no width`, () => {
    expect(DEFAULT_WIDTH).toBe(80);
    expect(outputWidth(pipe, terminal({}))).toBe(80);
    expect(outputWidth({ write: () => true, isTTY: false, columns: 60 }, terminal({}))).toBe(80);
    expect(outputWidth(tty(undefined), terminal({}))).toBe(80);
    expect(outputWidth(tty(0), terminal({}))).toBe(80);
  });
});

describe('a note on stderr', () => {
  it('keeps its label on the line of a first word too long to fit (a capture file with a CloudFormation-named rule)', async () => {
    // Prepare: examples/healthy with one rule's file broken; its path alone is wider than 80 columns.
    const dir = await mkdtemp(join(tmpdir(), 'sentinel-note-'));
    await cp(fileURLToPath(new URL('../../../examples/healthy/', import.meta.url)), dir, { recursive: true });
    const file = join(dir, 'events-rule-Karpenter-aws-2026-eks-InstanceStateChangeRule-6ARB9F0MUE4YW.json');
    await writeFile(file, '0\n');

    // Act
    const result = await run(['scan', '--from', dir, '--now', '2026-01-01T01:00:00Z'], { terminal: { columns: 80 } }).finally(
      () => rm(dir, { recursive: true, force: true }),
    );

    // Assess
    const lines = result.stderr.split('\n').filter(Boolean);
    expect(lines[0]).toBe(`note: ${file}:`);
    expect(lines[1]).toMatch(/^ {2}not a kubectl or aws CLI output this tool understands/);
  });
});

describe('writeNote: a note on stderr', () => {
  const noteLines = (text: string, columns: string) => {
    const out: string[] = [];
    const ctx = {
      io: { stderr: { write: (s: string) => out.push(s) }, terminal: readTerminalEnvironment({ COLUMNS: columns }) },
    } as unknown as CliContext;
    writeNote(ctx, text);
    return out.join('').split('\n').filter(Boolean);
  };

  it('keeps `note:` on the line of a first word too long for the width (a long capture path)', () => {
    // Prepare
    const path = 'examples/admission-webhook-broken-stale-after-v1-upgrade/webhookconfigurations.json:';

    // Act
    const lines = noteLines(`note: ${path} object set aside`, '80');

    // Assert
    expect(lines).toEqual([`note: ${path}`, '  object set aside']);
  });

  it('wraps the rest under a two-space indent, as before', () => {
    const lines = noteLines(`note: ${'word '.repeat(40).trim()}`, '60');
    expect(lines.length).toBeGreaterThan(2);
    expect(lines[0]).toMatch(/^note: word word/);
    for (const line of lines.slice(1)) expect(line).toMatch(/^ {2}word/);
    expect(lines.every((line) => line.length <= 60)).toBe(true);
  });
});
