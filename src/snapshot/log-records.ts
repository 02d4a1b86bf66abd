/**
 * A controller log as records, not lines. One record can span several lines: a Go panic and its
 * stack trace (`panic: …`, a blank line, `goroutine 1 [running]:`, function lines, tab-indented
 * file lines), a zap console entry whose error goes on over tab-indented lines (the AWS SDK's
 * `\tstatus code: 403, request id: …`) or carries a stack trace, and a JSON entry pretty-printed
 * over many lines (`{`, indented fields, `}`). Reading such a log line by line quotes a stack
 * frame or `"error": "…",` as if it were the entry; joined, the record is matched whole and quoted
 * by its first line and that line's number.
 *
 * A record starts at a line that opens an entry: an RFC 3339 time at the start (zap's console
 * format, `kubectl logs --timestamps`), a JSON object (`{`), Go's `panic:` / `fatal error:`, or a
 * klog header (`E0102 15:04:05.000000 …`). Lines after it that cannot open an entry of their own
 * belong to it: indented lines, `goroutine N [...]:`, Go's function lines (`main.main()`,
 * `created by …`), `[signal …`, the AWS SDK's `caused by: …`; after a line that is `{` alone (a pretty-printed object), its
 * indented lines up to the `}` that closes it.
 * Blank lines are skipped and end nothing (a panic has one before its goroutine). Any other line
 * is a record of its own, as before: a log pasted without times stays one record per line.
 *
 * A record is bounded: at MAX_RECORD_LINES lines or MAX_RECORD_CHARS characters the next line
 * starts a new record whatever it looks like, so a hostile log (no times, every line indented)
 * never becomes one giant record; a JSON object cut there is read as text.
 */

/** At most this many lines in one record (a Go stack trace of a busy controller is ~100). */
export const MAX_RECORD_LINES = 200;
/** At most this many characters in one record (64 KiB): a record past it is no entry anyone wrote. */
export const MAX_RECORD_CHARS = 64 * 1024;

export interface LogRecord {
  /** The record's first line, as read. */
  head: string;
  /** The number of its first line in the file. */
  lineNumber: number;
  /** The lines that followed and belong to it (without blank lines). */
  rest: string[];
  /** It opened a JSON object: head and rest joined are one JSON text (unless cut at the bound). */
  json: boolean;
}

export const KUBECTL_PREFIX = /^\[(?:pod\/)?[^\]\s/]+\/[^\]\s]+\] ?/; // kubectl logs --prefix
/** Colours from a terminal (zap's development encoder, stern, `kubectl logs` piped through a pager). */
// eslint-disable-next-line no-control-regex
export const ANSI_ESCAPE = /\u001b\[[0-9;?]*[ -/]*[@-~]/g;
/** `stern karpenter -n karpenter`: pod and container names before each JSON line. */
const STERN_JSON = /^[a-z0-9][a-z0-9.-]* [a-z0-9][a-z0-9-]* \{/;
const ENTRY_START = /^(?:\{|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d|panic: |fatal error: |[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+ )/;
/** An indented line that is an entry of its own: a time or a level word first (a log pasted with a margin). */
const INDENTED_ENTRY = /^\s+(?:\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d|(?:DEBUG|INFO|WARN|WARNING|ERROR|DPANIC|PANIC|FATAL)\s)/;
const GO_TRACE =
  /^(?:goroutine \d+ \[[^\]]*\]:$|created by \S|caused by: |\[signal |[\w.\-/@%+~]+\.[\w.\-*()[\]{}<>]+\(.*\)$|\.\.\. \d+ more|\.\.\.additional frames elided\.\.\.)/;

/** The line as its entry is judged: kubectl's `--prefix` and terminal colours taken off. */
function bare(line: string): string {
  const plain = line.includes('\u001b') ? line.replace(ANSI_ESCAPE, '') : line;
  return plain.replace(KUBECTL_PREFIX, '');
}

/** `kubectl logs --timestamps`: an RFC 3339 time (captured) and a space before each line as the container wrote it. */
export const KUBECTL_TIMESTAMP = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)) /;

/** The line after kubectl's time, when it has one. */
function stampOf(line: string): string | undefined {
  const stamp = KUBECTL_TIMESTAMP.exec(line);
  return stamp ? line.slice(stamp[0].length) : undefined;
}

function opensEntry(line: string): boolean {
  return ENTRY_START.test(line) || STERN_JSON.test(line);
}

function continues(line: string): boolean {
  if (INDENTED_ENTRY.test(line)) return false;
  return /^\s/.test(line) || GO_TRACE.test(line);
}

/** Whether the text is a whole JSON object (a pretty-printed record is read up to its closing brace). */
function closesJson(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

/** Lines in, records out; push every line in order, then `finish`. */
export class RecordJoiner {
  readonly #records: LogRecord[] = [];
  #current: (LogRecord & { chars: number; open: boolean; joins: boolean }) | undefined;

  push(raw: string, lineNumber: number): void {
    const line = raw.replace(/\r$/, '');
    if (line.trim() === '') return;
    const text = bare(line);
    const c = this.#current;
    const room = c !== undefined && c.rest.length + 1 < MAX_RECORD_LINES && c.chars + text.length < MAX_RECORD_CHARS;
    // `kubectl logs --timestamps` puts a time before every line, continuations too: judge what follows it.
    const judged = stampOf(text) ?? text;
    if (judged.trim() === '') return;
    const inJson = c?.open === true && (/^\s/.test(judged) || /^[}\]]/.test(judged));
    if (c && room && (inJson || (c.joins && !opensEntry(judged) && continues(judged)))) {
      c.rest.push(text);
      c.chars += text.length + 1;
      if (c.open && /^[}\]]/.test(text)) c.open = !closesJson([c.head, ...c.rest].join('\n'));
      return;
    }
    this.#end();
    const json = /^\{/.test(stampOf(text) ?? text);
    this.#current = {
      head: line,
      lineNumber,
      rest: [],
      json,
      chars: text.length,
      // Only a line that is `{` alone opens a pretty-printed object: a broken one-line JSON never swallows what follows.
      open: (stampOf(text) ?? text).trim() === '{',
      joins: opensEntry(text),
    };
  }

  finish(): LogRecord[] {
    this.#end();
    return this.#records;
  }

  #end(): void {
    const c = this.#current;
    if (c) this.#records.push({ head: c.head, lineNumber: c.lineNumber, rest: c.rest, json: c.json });
    this.#current = undefined;
  }
}
