import { formatByteSize } from '../domain/byte-size.ts';
import type { ByteReader, ByteSource } from './byte-source.ts';
import { ShapeError } from '../domain/shape.ts';

/**
 * How much content one capture file may hold, unpacked, unless `--max-file-size` says otherwise.
 * `kubectl get pods -A -o json` of 100,000 pods is about 1 GB; a gzip bomb (a few MB that unpack to
 * many GB) is refused once it passes this, without ever being in memory.
 */
export const DEFAULT_MAX_FILE_BYTES = 1024 ** 3;

/** The one line a file over the limit gets (the loader puts the file name before it). */
export function overLimit(maxBytes: number, unpacked: boolean): ShapeError {
  return new ShapeError(
    `${unpacked ? 'unpacks to' : 'is'} more than ${formatByteSize(maxBytes)} (the limit; raise it with --max-file-size)`,
  );
}

/**
 * The one line a file holding more list items than its size allows gets (JSON: json-values.ts,
 * YAML: yaml-items.ts); the loader puts the file name before it.
 */
export function tooManyItems(maxItems: number): ShapeError {
  return new ShapeError(
    `more than ${maxItems.toLocaleString('en-US')} list items, more than any kubectl or aws CLI output of this size holds (--max-file-size raises both)`,
  );
}

/** `source`, refusing to read past `maxBytes` (a file may still be growing, a gzip file says no size). */
export function limitedSource(source: ByteSource, maxBytes: number, unpacked: boolean): ByteSource {
  const limited: ByteSource = {
    open(): ByteReader {
      const reader = source.open();
      let read = 0;
      return {
        next() {
          const piece = reader.next();
          if (piece === undefined) return undefined;
          read += piece.length;
          if (read > maxBytes) {
            reader.close();
            throw overLimit(maxBytes, unpacked);
          }
          return piece;
        },
        close: () => reader.close(),
      };
    },
  };
  if (source.size) limited.size = source.size.bind(source);
  return limited;
}

/** Whether `source` holds at most `limit` bytes, reading no more than needed to tell and keeping nothing. */
export function holdsAtMost(source: ByteSource, limit: number): boolean {
  const reader = source.open();
  try {
    let length = 0;
    for (let piece = reader.next(); piece !== undefined; piece = reader.next()) {
      length += piece.length;
      if (length > limit) return false;
    }
    return true;
  } finally {
    reader.close();
  }
}
