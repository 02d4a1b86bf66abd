import { Buffer, constants } from 'node:buffer';
import { formatByteSize } from '../domain/byte-size.ts';
import { gunzipSource } from './gunzip-source.ts';
import { ShapeError } from '../domain/shape.ts';
import { DEFAULT_MAX_FILE_BYTES, holdsAtMost, limitedSource, overLimit } from './size-limit.ts';
import type { ByteReader, ByteSource } from './byte-source.ts';

export type { ByteReader, ByteSource } from './byte-source.ts';

/**
 * One capture file, made UTF-8 whatever the shell or editor did to it: gzip is unpacked
 * (`kubectl get pods -A -o json | gzip > pods.json.gz` is how big captures travel), a UTF-8 byte
 * order mark dropped, UTF-16 (what Windows PowerShell's `>` writes) re-encoded. Archives and other
 * binary files are refused with a message saying what they are.
 *
 * Large captures are read piece by piece (`open`); `bytes` and `text` read them whole.
 */
export interface CaptureContent {
  /** The file name as its content is named: `pods.json.gz` → `pods.json`. */
  readonly name: string;
  /** The first bytes (all of them for a small file). */
  readonly head: Buffer;
  /** The size limit it was read under (`--max-file-size`): what a parser may make of it scales with it. */
  readonly maxBytes: number;
  open(): ByteReader;
  bytes(): Buffer;
  /** ShapeError when there is more than fits one string (about 512 MiB). */
  text(): string;
  /** Whether there are at most `limit` bytes, reading no more than needed to tell. */
  hasAtMost(limit: number): boolean;
  /** The same content with its first `end` bytes blanked out (spaces; line breaks kept). */
  blankedUpTo(end: number): CaptureContent;
}

/** How much of the start decides "binary": enough for any header, cheap for any file. */
const SNIFF_BYTES = 8192;
/** V8's longest string, in UTF-16 units: UTF-8 text of at most this many bytes always fits. */
const MAX_TEXT_BYTES = constants.MAX_STRING_LENGTH;

export interface ContentOptions {
  /** Refuse content over this many bytes, unpacked (`--max-file-size`); default 1 GiB. */
  maxBytes?: number;
}

/**
 * The content of a capture file. Too much of it (`maxBytes`) is refused before any of it is parsed
 * or held: a file on disk by its size, a gzip file by unpacking it once, keeping nothing.
 */
export function captureContent(
  name: string,
  raw: ByteSource | Uint8Array | string,
  options: ContentOptions = {},
): CaptureContent {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_FILE_BYTES;
  if (typeof raw === 'string') {
    const bytes = Buffer.from(raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw, 'utf8');
    if (bytes.length > maxBytes) throw overLimit(maxBytes, false);
    return fromMemory(name, bytes, maxBytes);
  }
  const source = raw instanceof Uint8Array ? memorySource(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength)) : raw;
  return fromSource(name, source, maxBytes, false);
}

function fromSource(name: string, source: ByteSource, maxBytes: number, unpacked: boolean): CaptureContent {
  const size = source.size?.();
  if (size !== undefined && size > maxBytes) throw overLimit(maxBytes, unpacked);
  const head = readHead(source);
  if (isGzip(head)) {
    const unpackedName = /\.(?:tgz|taz)$/i.test(name) ? `${name.slice(0, -4)}.tar` : name.replace(/\.(?:gz|gzip)$/i, '');
    return fromSource(unpackedName, limitedSource(gunzipSource(source, maxBytes), maxBytes, true), maxBytes, true);
  }
  refuseArchivesAndBinary(head, name);
  // Unpacked content has no size until it is unpacked: once through, keeping nothing, so that a
  // bomb is refused before a parser holds any of it.
  if (size === undefined && !holdsAtMost(source, maxBytes)) throw overLimit(maxBytes, unpacked);
  // The size on disk was read before the file was: it may have grown since.
  const limited = limitedSource(source, maxBytes, unpacked);
  if (head[0] === 0xff && head[1] === 0xfe) return fromUtf16(name, limited, 'utf-16le', maxBytes);
  if (head[0] === 0xfe && head[1] === 0xff) return fromUtf16(name, limited, 'utf-16be', maxBytes);
  const bom = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  return new SourceContent(name, maxBytes, limited, bom, 0, head.subarray(bom));
}

/** `bytes.toString()`, or a ShapeError past V8's longest string (about 512 MiB). */
function decodeUtf8(bytes: Buffer, start = 0, end = bytes.length): string {
  try {
    return bytes.toString('utf8', start, end);
  } catch (error) {
    throw tooLargeForText(error);
  }
}

function tooLargeForText(cause?: unknown): ShapeError {
  return new ShapeError(
    `too large to read as text (over ${formatByteSize(MAX_TEXT_BYTES)}): capture Kubernetes objects with -o json, which is read piece by piece, or split the file`,
    { cause },
  );
}

/** A source's bytes from `skip` on, the first `blank` of those blanked out; `head` when already read. */
class SourceContent implements CaptureContent {
  readonly name: string;
  readonly maxBytes: number;
  readonly #source: ByteSource;
  readonly #skip: number;
  readonly #blank: number;
  #head: Buffer | undefined;
  #bytes: Buffer | undefined;
  #text: string | undefined;

  constructor(name: string, maxBytes: number, source: ByteSource, skip: number, blank: number, head?: Buffer) {
    this.name = name;
    this.maxBytes = maxBytes;
    this.#source = source;
    this.#skip = skip;
    this.#blank = blank;
    this.#head = head;
  }

  get head(): Buffer {
    this.#head ??= readHead(this);
    return this.#head;
  }

  open(): ByteReader {
    const reader = this.#source.open();
    let toSkip = this.#skip;
    let toBlank = this.#blank;
    return {
      next: () => {
        for (;;) {
          let piece = reader.next();
          if (piece === undefined) return undefined;
          if (toSkip > 0) {
            const skipped = Math.min(toSkip, piece.length);
            piece = piece.subarray(skipped);
            toSkip -= skipped;
          }
          if (toBlank > 0 && piece.length > 0) {
            const blanked = Math.min(toBlank, piece.length);
            piece = blankedCopy(piece, blanked);
            toBlank -= blanked;
          }
          if (piece.length > 0) return piece;
        }
      },
      close: () => reader.close(),
    };
  }

  bytes(): Buffer {
    this.#bytes ??= readAll(this);
    return this.#bytes;
  }

  text(): string {
    if (this.#text === undefined) {
      // More than one string holds is refused before any of it is read (a file on disk says its size).
      const size = this.#source.size?.();
      if (this.#bytes === undefined && size !== undefined && size - this.#skip > MAX_TEXT_BYTES) throw tooLargeForText();
      // Kept instead of the bytes: a large YAML capture is then in memory once, not twice.
      this.#text = decodeUtf8(this.#bytes ?? readAll(this, MAX_TEXT_BYTES));
    }
    return this.#text;
  }

  hasAtMost(limit: number): boolean {
    if (this.#bytes) return this.#bytes.length <= limit;
    if (this.#text !== undefined) {
      if (this.#text.length > limit) return false;
      // Each U+FFFD that replaced invalid bytes is 3 bytes again: never fewer than were read.
      if (Buffer.byteLength(this.#text) <= limit) return true;
    }
    return holdsAtMost(this, limit);
  }

  blankedUpTo(end: number): CaptureContent {
    const blank = Math.max(this.#blank, end);
    const head = this.#head && blankedCopy(this.#head, Math.min(blank, this.#head.length));
    return new SourceContent(this.name, this.maxBytes, this.#source, this.#skip, blank, head);
  }
}

/** A copy of `bytes` with the first `count` made spaces, line breaks kept (lines stay where they were). */
function blankedCopy(bytes: Buffer, count: number): Buffer {
  const copy = Buffer.from(bytes);
  for (let i = 0; i < count; i++) if (copy[i] !== 0x0a) copy[i] = 0x20;
  return copy;
}

function fromMemory(name: string, bytes: Buffer, maxBytes: number): CaptureContent {
  return new SourceContent(name, maxBytes, memorySource(bytes), 0, 0);
}

/** UTF-16 text as UTF-8, a piece at a time. */
function fromUtf16(name: string, source: ByteSource, encoding: 'utf-16le' | 'utf-16be', maxBytes: number): CaptureContent {
  const utf8: ByteSource = {
    open() {
      const reader = source.open();
      // Drops the byte order mark; a character cut in two between pieces waits for its other half.
      const decoder = new TextDecoder(encoding);
      let ended = false;
      return {
        next() {
          while (!ended) {
            const piece = reader.next();
            const text = piece === undefined ? decoder.decode() : decoder.decode(piece, { stream: true });
            if (piece === undefined) ended = true;
            if (text.length > 0) return Buffer.from(text, 'utf8');
          }
          return undefined;
        },
        close() {
          ended = true;
          reader.close();
        },
      };
    },
  };
  return new SourceContent(name, maxBytes, utf8, 0, 0);
}

function memorySource(bytes: Buffer): ByteSource {
  return {
    size: () => bytes.length,
    open() {
      let done = false;
      return {
        next() {
          if (done) return undefined;
          done = true;
          return bytes;
        },
        close() {
          done = true;
        },
      };
    },
  };
}

function readHead(source: ByteSource): Buffer {
  const reader = source.open();
  try {
    const pieces: Buffer[] = [];
    let length = 0;
    while (length < SNIFF_BYTES) {
      const piece = reader.next();
      if (piece === undefined) break;
      pieces.push(piece);
      length += piece.length;
    }
    return pieces.length === 1 ? (pieces[0] as Buffer) : Buffer.concat(pieces);
  } finally {
    reader.close();
  }
}

/** All of `source`; a ShapeError past `limit` bytes (more than one string can hold). */
function readAll(source: ByteSource, limit = Number.POSITIVE_INFINITY): Buffer {
  const reader = source.open();
  try {
    const pieces: Buffer[] = [];
    let length = 0;
    for (let piece = reader.next(); piece !== undefined; piece = reader.next()) {
      pieces.push(piece);
      length += piece.length;
      if (length > limit) throw tooLargeForText();
    }
    return pieces.length === 1 ? (pieces[0] as Buffer) : Buffer.concat(pieces);
  } finally {
    reader.close();
  }
}

function isGzip(bytes: Buffer): boolean {
  return bytes[0] === 0x1f && bytes[1] === 0x8b;
}

const ARCHIVES: readonly { test: (head: Buffer, name: string) => boolean; what: string }[] = [
  {
    test: (b, name) => /\.tar$/i.test(name) || b.toString('latin1', 257, 262) === 'ustar',
    what: 'a tar archive: extract it first (tar xf) and pass the folder',
  },
  { test: (b) => b.toString('latin1', 0, 4) === 'PK\u0003\u0004', what: 'a zip archive: unzip it first and pass the folder' },
  {
    test: (b) => b.toString('latin1', 0, 6) === '7z\u00bc\u00af\u0027\u001c',
    what: 'a 7-Zip archive: extract it first and pass the folder',
  },
  { test: (b) => b.toString('latin1', 0, 3) === 'BZh', what: 'a bzip2 file: unpack it first (bunzip2)' },
  { test: (b) => b.toString('latin1', 0, 6) === '\u00fd7zXZ\u0000', what: 'an xz file: unpack it first (unxz)' },
  { test: (b) => b.toString('latin1', 0, 4) === '\u0028\u00b5\u002f\u00fd', what: 'a zstd file: unpack it first (unzstd)' },
];

function refuseArchivesAndBinary(head: Buffer, name: string): void {
  const archive = ARCHIVES.find((a) => a.test(head, name));
  if (archive) throw new ShapeError(archive.what);
  if ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff)) return; // UTF-16
  const sniffed = head.subarray(0, SNIFF_BYTES);
  // Text never holds NUL; images, PDFs, spreadsheets and executables do, early on. What is left
  // is mostly bytes that are not UTF-8 at all.
  if (sniffed.includes(0) || invalidUtf8Share(sniffed) > 0.05) {
    throw new ShapeError('a binary file, not a kubectl or aws CLI output');
  }
}

function invalidUtf8Share(head: Buffer): number {
  if (head.length === 0) return 0;
  // A multi-byte character cut off at the end of the sample is not a sign of anything.
  const text = head.toString('utf8', 0, Math.max(0, head.length - 3));
  let replaced = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 0xfffd) replaced++;
  return text.length === 0 ? 0 : replaced / text.length;
}
