import { describe, expect, it } from 'vitest';
import { readTerminalEnvironment } from '../../../src/config.ts';
import { DEFAULT_WIDTH, outputWidth, type OutputStream } from '../../../src/cli/io.ts';

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
