import { Buffer } from 'node:buffer';
import { formatByteSize } from '../domain/byte-size.ts';
import type { ByteReader } from './capture-content.ts';
import { ShapeError } from '../domain/shape.ts';
import { tooManyItems } from './size-limit.ts';

/**
 * JSON capture bytes → their top-level values, read and parsed a list element at a time.
 *
 * `kubectl get pods -A -o json` of a large cluster is hundreds of MB. `JSON.parse` of the whole
 * text holds the file, its text and then every object of it before anything can be dropped. Here
 * the elements of each top-level list (a List's `items`, `Reservations`, a bare array) are parsed
 * one by one as the file is read, and handed to `keep`, which returns what to hold on to: the
 * rest of each element, and the bytes already read, are garbage at once. The text is never one
 * string either, which lifts V8's ~512 MiB limit on strings.
 *
 * Also accepts several values one after another (`>>` appended outputs, paginated AWS CLI pages,
 * `jq '.items[]'`). On invalid JSON returns where it went wrong: the caller then parses the text
 * with JSON.parse for V8's error message.
 */
export function parseJsonValues(
  reader: ByteReader,
  keep: (element: unknown) => unknown,
  options: { maxElements?: number } = {},
): unknown[] | { invalidAt: number } {
  const scanner = new JsonScanner(reader, keep, options.maxElements ?? Number.POSITIVE_INFINITY);
  try {
    return scanner.values();
  } catch (error) {
    if (error instanceof NotJson || error instanceof SyntaxError) return { invalidAt: scanner.position };
    throw error;
  } finally {
    reader.close();
  }
}

class NotJson extends Error {}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const END = -1;
/** The API server refuses objects over about 1.5 MB; past this a guessed end is surely wrong. */
const MAX_GUESSED_OBJECT_BYTES = 4 * 1024 * 1024;
/**
 * The longest value parsed whole: a list element (a Kubernetes object is at most about 1.5 MB, an
 * EC2 reservation a few MB) or a member that is no list. Longer is no kubectl or AWS CLI output,
 * and holding it would take memory (and JSON.parse a string) the size of the file.
 */
const MAX_VALUE_BYTES = 64 * 1024 * 1024;
/** Longer leading whitespace is no indentation of a pretty-printer's (see #closingLineOf). */
const MAX_INDENTATION = 4096;
const NEWLINE = Buffer.from('\n');
const CLOSING_BRACE = Buffer.from('}');

/**
 * Positions are offsets in the file. The window holds the bytes from `#keepFrom` (the start of
 * what is being parsed: an element, a member) to what has been read so far.
 */
class JsonScanner {
  readonly #reader: ByteReader;
  readonly #keep: (element: unknown) => unknown;
  readonly #maxElements: number;
  #elements = 0;
  #window: Buffer = Buffer.alloc(0);
  #base = 0;
  #keepFrom = 0;
  #ended = false;
  #lineStart = -1;
  #closing: Buffer | undefined;
  /** Where the value being parsed starts: where to look when something is wrong. */
  position = 0;

  constructor(reader: ByteReader, keep: (element: unknown) => unknown, maxElements: number) {
    this.#reader = reader;
    this.#keep = keep;
    this.#maxElements = maxElements;
  }

  values(): unknown[] {
    const values: unknown[] = [];
    for (let i = this.#skipSpace(0); this.#byte(i) !== END; i = this.#skipSpace(i)) {
      this.#startAt(i);
      const first = this.#byte(i);
      let value: unknown;
      if (first === OPEN_BRACKET) [value, i] = this.#array(i);
      else if (first === OPEN_BRACE) [value, i] = this.#object(i);
      else [value, i] = this.#whole(i);
      values.push(first === OPEN_BRACE ? this.#keep(value) : value);
    }
    return values;
  }

  /** An object whose list members are parsed element by element; other members whole. */
  #object(start: number): [Record<string, unknown>, number] {
    const entries: [string, unknown][] = [];
    let i = this.#skipSpace(start + 1);
    if (this.#byte(i) === CLOSE_BRACE) return [{}, i + 1];
    for (;;) {
      this.#startAt(i);
      if (this.#byte(i) !== QUOTE) throw new NotJson();
      const keyEnd = this.#stringEnd(i);
      const key = this.#parse(i, keyEnd) as string;
      i = this.#skipSpace(keyEnd);
      if (this.#byte(i) !== COLON) throw new NotJson();
      i = this.#skipSpace(i + 1);
      const [value, valueEnd] = this.#byte(i) === OPEN_BRACKET ? this.#array(i) : this.#whole(i);
      entries.push([key, value]);
      i = this.#skipSpace(valueEnd);
      if (this.#byte(i) === CLOSE_BRACE) break;
      if (this.#byte(i) !== COMMA) throw new NotJson();
      i = this.#skipSpace(i + 1);
    }
    // Like JSON.parse: own data properties (a `__proto__` key stays a key), the last duplicate wins.
    return [Object.fromEntries(entries), i + 1];
  }

  #array(start: number): [unknown[], number] {
    const elements: unknown[] = [];
    let i = this.#skipSpace(start + 1);
    if (this.#byte(i) === CLOSE_BRACKET) return [elements, i + 1];
    for (;;) {
      const closing = this.#closingLineOf(i);
      this.#startAt(i);
      const [element, end] = (closing && this.#prettyObject(i, closing)) || this.#whole(i);
      // Each one is held: millions of tiny ones (a gzip of one repeated) would fill V8's heap.
      if (++this.#elements > this.#maxElements) {
        throw tooManyItems(this.#maxElements);
      }
      elements.push(this.#keep(element));
      i = this.#skipSpace(end);
      if (this.#byte(i) === CLOSE_BRACKET) return [elements, i + 1];
      if (this.#byte(i) !== COMMA) throw new NotJson();
      i = this.#skipSpace(i + 1);
    }
  }

  /**
   * Pretty-printed JSON (kubectl, the AWS CLI, jq) puts an object's closing brace on a line of
   * its own, indented like its opening line. When the object at `start` opens a line, the bytes
   * that would close it are `\n<indentation>}`; `#prettyObject` finds them with a native search
   * instead of following every byte. Only the preceding whitespace is looked at: returns undefined
   * when the object does not open a line.
   */
  #closingLineOf(start: number): Buffer | undefined {
    if (this.#byte(start) !== OPEN_BRACE || this.#lineStart < this.#base) return undefined;
    const next = this.#byte(start + 1);
    if (next !== 0x0a && next !== 0x0d) return undefined;
    const indentation = this.#window.subarray(this.#lineStart - this.#base, start - this.#base);
    if (this.#closing?.length !== indentation.length + 2 || !this.#closing.subarray(1, -1).equals(indentation)) {
      this.#closing = Buffer.concat([NEWLINE, indentation, CLOSING_BRACE]);
    }
    return this.#closing;
  }

  /**
   * The object at `start` parsed up to the first `closing` line after it. That is a guess (a
   * nested object indented the same would fool it), but a safe one: JSON.parse accepts the slice
   * only if the brace it ends with is the one matching `start`. Undefined when the guess is wrong.
   */
  #prettyObject(start: number, closing: Buffer): [unknown, number] | undefined {
    const at = this.#find(closing, start + 1, start + MAX_GUESSED_OBJECT_BYTES);
    if (at < 0) return undefined;
    const end = at + closing.length;
    try {
      return [this.#parse(start, end), end];
    } catch (error) {
      if (error instanceof SyntaxError) return undefined;
      throw error;
    }
  }

  /** Position of the next `pattern` from `from` on, before `limit`, reading on as needed; else -1. */
  #find(pattern: Buffer, from: number, limit: number): number {
    let at = from;
    for (;;) {
      const index = this.#window.indexOf(pattern, Math.max(0, at - this.#base));
      if (index >= 0 && this.#base + index < limit) return this.#base + index;
      const end = this.#base + this.#window.length;
      if (index >= 0 || end >= limit) return -1;
      at = Math.max(at, end - pattern.length + 1);
      if (this.#byte(end) === END) return -1;
    }
  }

  #whole(start: number): [unknown, number] {
    const end = this.#valueEnd(start);
    return [this.#parse(start, end), end];
  }

  #parse(start: number, end: number): unknown {
    if (end <= start) throw new NotJson();
    return JSON.parse(this.#window.toString('utf8', start - this.#base, end - this.#base));
  }

  /**
   * Where the value starting at `start` ends. Only brackets and strings are followed: JSON.parse
   * of the slice checks everything else.
   */
  #valueEnd(start: number): number {
    const first = this.#byte(start);
    if (first === QUOTE) return this.#stringEnd(start);
    let i = start;
    if (first !== OPEN_BRACE && first !== OPEN_BRACKET) {
      while (this.#byte(i) !== END && !isDelimiter(this.#byte(i))) i++;
      return i;
    }
    let depth = 0;
    for (;;) {
      // The hot loop: a local view of the window until it runs out.
      const window = this.#window;
      const base = this.#base;
      while (i - base < window.length) {
        const c = window[i - base] as number;
        if (c === QUOTE) {
          i = this.#stringEnd(i);
          if (this.#window !== window) break; // the window moved on while the string was read
          continue;
        }
        if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
        else if ((c === CLOSE_BRACE || c === CLOSE_BRACKET) && --depth === 0) return i + 1;
        i++;
      }
      if (this.#byte(i) === END) throw new NotJson();
    }
  }

  /** Position after the closing quote of the string starting at `start`. */
  #stringEnd(start: number): number {
    let from = start + 1;
    for (;;) {
      const window = this.#window;
      const base = this.#base;
      const quote = from - base < window.length ? window.indexOf(QUOTE, from - base) : -1;
      if (quote < 0) {
        from = Math.max(from, base + window.length);
        if (this.#byte(from) === END) throw new NotJson();
        continue;
      }
      // The whole string is in the window (it starts after #keepFrom): count the escapes.
      let backslashes = 0;
      while (window[quote - 1 - backslashes] === BACKSLASH) backslashes++;
      if (backslashes % 2 === 0) return base + quote + 1;
      from = base + quote + 1;
    }
  }

  /**
   * Skips whitespace, noting where the last line in it started (-1 when it held no line break).
   * Nothing before that line (nor, past any indentation, before the whitespace's end) is looked at
   * again: a file of mostly whitespace is never held.
   */
  #skipSpace(start: number): number {
    let i = start;
    this.#lineStart = -1;
    for (;;) {
      // The hot loop: a local view of the window until it runs out.
      const window = this.#window;
      const base = this.#base;
      let index = i - base;
      while (index < window.length) {
        const c = window[index] as number;
        if (c === 0x0a) this.#lineStart = base + index + 1;
        else if (c !== 0x20 && c !== 0x0d && c !== 0x09) return base + index;
        index++;
      }
      i = base + index;
      if (this.#lineStart >= 0 && i - this.#lineStart > MAX_INDENTATION) this.#lineStart = -1; // no pretty-printer's
      if (this.#keepFrom < i) this.#keepFrom = this.#lineStart >= 0 ? this.#lineStart : i;
      if (this.#byte(i) === END) return i;
    }
  }

  #startAt(position: number): void {
    this.#keepFrom = position;
    this.position = position;
  }

  /** The byte at `position`, reading on as needed; END past the end. */
  #byte(position: number): number {
    let index = position - this.#base;
    while (index >= this.#window.length) {
      if (this.#ended) return END;
      this.#readMore();
      index = position - this.#base;
    }
    return this.#window[index] as number;
  }

  #readMore(): void {
    const piece = this.#reader.next();
    if (piece === undefined) {
      this.#ended = true;
      return;
    }
    const end = this.#base + this.#window.length;
    const from = Math.min(this.#keepFrom, end);
    const kept = this.#window.subarray(from - this.#base);
    if (kept.length + piece.length > MAX_VALUE_BYTES + MAX_GUESSED_OBJECT_BYTES) {
      throw new ShapeError(
        `a single JSON value of more than ${formatByteSize(MAX_VALUE_BYTES)} (from byte ${from}), larger than any kubectl or aws CLI output holds: split the file`,
      );
    }
    this.#window = kept.length === 0 ? piece : Buffer.concat([kept, piece]);
    this.#base = from;
  }
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function isDelimiter(c: number): boolean {
  return (
    isSpace(c) ||
    c === COMMA ||
    c === COLON ||
    c === CLOSE_BRACE ||
    c === CLOSE_BRACKET ||
    c === OPEN_BRACE ||
    c === OPEN_BRACKET ||
    c === QUOTE
  );
}
