/**
 * `--help` fitted to the terminal (docs/usage.md, "Help and width"). Help texts are written as
 * two columns, a flag or command and, after two or more spaces, what it does; a line too wide is
 * broken at spaces only, its continuation under the description column so the flags stay in line.
 * When the description column leaves too little room, the description goes under its flag,
 * indented, as it does when a word of it (a doc's absolute path) would not fit beside the flag.
 * A single word wider than the width stays whole.
 */
import { displayWidth, wrapLine } from './wrap.ts';

/** Narrower than this beside its flag, a description goes on the lines under it. */
const MIN_DESCRIPTION = 24;
/** How far a description under its flag, or a wrapped flag column, is indented past the flag. */
const UNDER = 4;

const ENTRY = /^( *)(\S(?:.*?\S)?)( {2,})(\S.*)$/;
/** A prose line that starts a block of its own (`Exit codes: ...`), never joined to the line before. */
const LABEL = /^[A-Z][a-z]+(?: [a-z]+)*: /;

export function wrapHelp(text: string, width: number): string {
  return reflow(text.split('\n'))
    .flatMap((line) => wrapHelpLine(line, width))
    .join('\n');
}

/**
 * Joins the lines the help texts are hand-wrapped into (at about 100 columns) back into one line
 * per paragraph, so wrapping at another width does not leave a short line at each old break: a
 * prose line (not indented) joins the prose line before it, and a line indented to an entry's
 * description column joins that entry. Blank lines, a line ending in `:`, a line starting with a
 * label (`Exit codes: `), indented command examples and the entries themselves stay where they are.
 */
function reflow(lines: readonly string[]): string[] {
  const out: string[] = [];
  for (const line of lines) {
    const previous = out.at(-1);
    if (previous !== undefined && continues(previous, line)) out[out.length - 1] = `${previous} ${line.trimStart()}`;
    else out.push(line);
  }
  return out;
}

function continues(previous: string, line: string): boolean {
  if (line.trim() === '' || previous.trim() === '' || previous.endsWith(':')) return false;
  const indent = indentOf(line);
  if (indent === 0) return indentOf(previous) === 0 && !LABEL.test(line);
  const entry = indentOf(previous) > 0 ? ENTRY.exec(previous) : null;
  if (!entry) return false;
  const [, lead = '', first = '', gap = ''] = entry;
  return indent === displayWidth(lead + first + gap);
}

function indentOf(line: string): number {
  return /^ */.exec(line)?.[0].length ?? 0;
}

function wrapHelpLine(line: string, width: number): string[] {
  if (displayWidth(line) <= width) return [line];
  const entry = ENTRY.exec(line);
  const indent = /^ */.exec(line)?.[0] ?? '';
  if (!entry) {
    // A continuation indented past the room left: under its entry, as its description went.
    if (fitsBeside(indent.length, line, width)) return wrapLine(line, width, indent);
    const under = ' '.repeat(2 + UNDER);
    return wrapLine(under + line.trimStart(), width, under);
  }
  const [, lead = '', first = '', gap = '', description = ''] = entry;
  const column = displayWidth(lead + first + gap);
  if (fitsBeside(column, description, width)) return wrapLine(line, width, ' '.repeat(column));
  const under = lead + ' '.repeat(UNDER);
  return [...wrapLine(lead + first, width, under), ...wrapLine(under + description, width, under)];
}

/** Room for a description at `column`: MIN_DESCRIPTION, and its longest word (a doc's absolute path) whole. */
function fitsBeside(column: number, description: string, width: number): boolean {
  const longest = Math.max(0, ...description.trim().split(/\s+/).map(displayWidth));
  return column + Math.max(MIN_DESCRIPTION, longest) <= width;
}
