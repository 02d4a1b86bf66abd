/**
 * Prose fitted to the terminal: lines break at spaces, continuation lines hang under an indent so
 * a wrapped cause still reads as one item. Commands and YAML never come through here: a command
 * split over two lines no longer pastes. A word longer than the width stays whole.
 */

/** No wrapping at all (Markdown, JSON, a renderer called without a width). */
export const NO_WRAP = Number.POSITIVE_INFINITY;

/** Narrower than this, hanging indents leave no room for words; wrapping stops getting narrower. */
const MIN_WIDTH = 20;

// Only the renderers' own colour codes can reach here: data is escaped by domain/visible.ts.
// eslint-disable-next-line no-control-regex
const SGR = /\u001b\[[0-9;]*m/g;
const RESET = '\u001b[0m';

/** The columns a line takes on screen: its colour codes take none. */
export function displayWidth(text: string): number {
  return [...text.replace(SGR, '')].length;
}

/**
 * `line` (its own leading spaces kept) broken at spaces into lines of at most `width` columns,
 * every line after the first starting with `hang`. Colour open at a break is closed at the end of
 * the line and reopened after the indent, so the indent is never coloured and nothing bleeds.
 */
export function wrapLine(line: string, width: number, hang: string): string[] {
  if (displayWidth(line) <= width) return [line];
  const room = Math.max(width, MIN_WIDTH);
  const indent = /^ */.exec(line)?.[0] ?? '';
  const words = line.slice(indent.length).split(' ');
  const lines: string[] = [];
  let current = indent;
  let empty = true;
  let open: string[] = [];
  for (const word of words) {
    if (empty) {
      current += word;
      empty = word === '';
    } else if (displayWidth(current) + 1 + displayWidth(word) <= room) {
      current += ` ${word}`;
    } else if (word === '') {
      continue; // a run of spaces at a break: the break is the space
    } else {
      lines.push(open.length > 0 ? current + RESET : current);
      current = hang + open.join('') + word;
    }
    open = stillOpen(open, word);
  }
  lines.push(current);
  return lines;
}

/** Every line of `lines` wrapped under the same hanging indent. */
export function wrapLines(lines: readonly string[], width: number, hang: string): string[] {
  return lines.flatMap((line) => wrapLine(line, width, hang));
}

/**
 * Prose that ends in a command (`run again: karpenter-sentinel cleanup ...`): one line when it
 * fits, else the prose wrapped and the command whole on a line of its own, so it still pastes.
 */
export function wrapBeforeCommand(prose: string, command: string, width: number, hang: string): string[] {
  const line = `${prose} ${command}`;
  if (displayWidth(line) <= width) return [line];
  return [...wrapLine(prose, width, hang), hang + command];
}

/**
 * `text` cut to at most `width` columns at a word boundary, `…` marking the cut. A first word
 * that alone is too long is cut inside (the ellipsis still says so): the terminal would otherwise
 * break it at a random letter. Only for plain text (overview cells).
 */
export function shorten(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  if (width <= 1) return '…'.slice(0, Math.max(width, 0));
  const chars = [...text];
  const cut = chars.slice(0, width - 1).join('');
  const space = cut.lastIndexOf(' ');
  if (space > 0) return `${cut.slice(0, space).trimEnd()} …`.slice(0, width);
  return `${cut}…`;
}

/** The opening codes still in force after `word`, given those open before it. */
function stillOpen(open: string[], word: string): string[] {
  let result = open;
  for (const [code] of word.matchAll(SGR)) {
    const params = code.slice(2, -1).split(';');
    if (params.includes('0') || params.includes('')) result = [];
    else if (params.every((p) => p === '22' || p === '39')) {
      // 22 ends bold and dim, 39 ends a foreground colour: drop the codes they end.
      result = result.filter((o) => !(params as string[]).includes(closerOf(o)));
    } else result = [...result, code];
  }
  return result;
}

function closerOf(code: string): string {
  const p = code.slice(2, -1);
  return p === '1' || p === '2' ? '22' : '39';
}
