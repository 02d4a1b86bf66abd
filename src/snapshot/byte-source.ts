import type { Buffer } from 'node:buffer';

/** Reads one file front to back, a piece at a time; `close` may come before the end. */
export interface ByteReader {
  /** The next piece, or undefined at the end. */
  next(): Buffer | undefined;
  close(): void;
}

/** Something that can be read front to back, as often as needed. */
export interface ByteSource {
  open(): ByteReader;
  /** How many bytes there are, when that is known without reading them (a file on disk). */
  size?(): number;
}
