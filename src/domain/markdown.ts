/**
 * Values from the data inside Markdown (the CLI's `--output markdown`, the alert text chat
 * clients render): shown literally, never turned into emphasis, HTML, links, mentions, headings,
 * lists or table columns. Code (steps, ids) goes into code spans and fences, whose content is
 * literal, so only the backtick run around it is chosen.
 */

/**
 * A value on one line, every character that means something to CommonMark or GitHub escaped
 * with a backslash: `*`, `_` at a word edge, `` ` ``, `\`, `<`, `[`, `]`, `](`, `|`, `~`, `&`
 * (an entity like `&#8238;` would turn into the character it names). `_` inside a word
 * (`TERMINATE_INSTANCE`) cannot start emphasis, so it stays readable.
 */
export function markdownText(value: string): string {
  return value
    .replace(/\r\n|[\r\n\u2028\u2029]/g, ' ')
    .replace(/[\\`*<>[\]|~&]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])/g, '\\$&')
    .replace(/\]\(/g, ']\\(');
}

/** `markdownText`, and a leading `#`, `>`, `-`, `+`, `=` or `1.` must not start a heading, a quote or a list. */
export function markdownParagraph(value: string): string {
  return markdownText(value)
    .replace(/^(\s*)(\d+)([.)])/, '$1$2\\$3')
    .replace(/^(\s*)([#>+=-])/, '$1\\$2');
}

/** The longest run of backticks in `text`. */
function longestBacktickRun(text: string): number {
  return Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
}

/** A code span showing exactly `value` (on one line): its backtick run is longer than any inside. */
export function markdownCode(value: string): string {
  const flat = value.replace(/\r\n|[\r\n]/g, ' ');
  const ticks = '`'.repeat(longestBacktickRun(flat) + 1);
  // A space on each side is taken off again by the reader; it keeps an edge backtick from the run.
  const pad = /^[`\s]|[`\s]$/.test(flat) ? ' ' : '';
  return `${ticks}${pad}${flat}${pad}${ticks}`;
}

/** A fenced block showing exactly `body`: a fence longer than any backtick run inside (at least three). */
export function markdownFence(language: string, body: string): string[] {
  const fence = '`'.repeat(Math.max(3, longestBacktickRun(body) + 1));
  return [`${fence}${language}`, body, fence];
}
