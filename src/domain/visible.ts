/**
 * Text from a capture, a cluster or an event, made safe to show: every character that would act
 * on the terminal or the reader instead of being read is written out as an escape. That covers C0
 * and C1 controls and DEL (ESC starts colour codes, cursor moves, title changes), the bidi marks,
 * embeddings, overrides and isolates (U+202E shows `exe.txt` as `txt.exe`), and the line and
 * paragraph separators some renderers break lines at. Every renderer and alert formatter shows
 * data through these two functions, so only escapes we chose reach a terminal or a chat.
 */

// eslint-disable-next-line no-control-regex
const INVISIBLE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
// A lone carriage return is no line break but an overwrite: it stays escaped (`\x0d`).
const LINE_BREAK = /\r\n|[\n\u0085\u2028\u2029]/g;

/** `\x1b`, `\u202e`: what a character looks like written out. */
function escaped(c: string): string {
  const code = c.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** Text that may span lines (steps, descriptions): line feeds stay, every other such character is escaped. */
export function visibleText(text: string): string {
  return text.replace(INVISIBLE, escaped);
}

/**
 * A value shown on one line (a name, a title, a note): its line breaks become spaces, so a value
 * cannot forge a line of its own, and every other such character is escaped.
 */
export function visibleLine(text: string): string {
  return visibleText(text.replace(LINE_BREAK, ' '));
}

/** True when the text holds nothing `visibleText` would escape. */
export function isVisible(text: string): boolean {
  return !new RegExp(INVISIBLE.source).test(text);
}

/** Every string inside a parsed JSON value through `visibleText`, keys included. */
export function visibleStrings(value: unknown): unknown {
  if (typeof value === 'string') return visibleText(value);
  if (Array.isArray(value)) return value.map(visibleStrings);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [visibleText(k), visibleStrings(v)]));
  }
  return value;
}
