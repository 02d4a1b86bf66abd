import type { TerminalEnvironment } from '../../config.ts';
import type { Severity } from '../../domain/codes.ts';
import type { OutputStream } from '../io.ts';

export interface Style {
  severity(severity: Severity, text: string): string;
  dim(text: string): string;
  bold(text: string): string;
  warn(text: string): string;
}

const sgr = (open: number, close: number) => (text: string) => `\u001b[${open}m${text}\u001b[${close}m`;
const red = sgr(31, 39);
const yellow = sgr(33, 39);
const blue = sgr(34, 39);
const bold = sgr(1, 22);

export const PLAIN_STYLE: Style = {
  severity: (_severity, text) => text,
  dim: (text) => text,
  bold: (text) => text,
  warn: (text) => text,
};

export const ANSI_STYLE: Style = {
  severity: (severity, text) => bold(severity === 'critical' ? red(text) : severity === 'warning' ? yellow(text) : blue(text)),
  dim: sgr(2, 22),
  bold,
  warn: (text) => bold(yellow(text)),
};

/** Colour only on a terminal, unless NO_COLOR (always wins) or FORCE_COLOR says otherwise. */
export function colourEnabled(stream: OutputStream, terminal: TerminalEnvironment): boolean {
  if (terminal.noColor) return false;
  return terminal.forceColor || stream.isTTY === true;
}
