import { Buffer } from 'node:buffer';
import { constants, createGunzip, gunzipSync } from 'node:zlib';
import type { ByteReader, ByteSource } from './byte-source.ts';
import { ShapeError } from '../domain/shape.ts';
import { overLimit } from './size-limit.ts';

/** Bytes unpacked per piece: at most this much of a gzip file's content is in memory at once. */
const PIECE_BYTES = 4 * 1024 * 1024;

/**
 * A gzip file's content, unpacked as it is read, a piece at a time (several members one after
 * another, as `cat a.gz b.gz` makes, are one content). How much it unpacks to is only known by
 * unpacking it: a gzip bomb (a few MB that unpack to many GB) is never in memory, and the reader
 * that counts the pieces can stop at any point.
 *
 * The loader reads synchronously, and Node has no public synchronous streaming inflate (its
 * `gunzipSync` unpacks everything before returning, `createGunzip` is asynchronous). So this drives
 * the zlib handle behind `createGunzip` one call at a time, as `gunzipSync` itself does
 * (`handle.writeSync`, Node's lib/zlib.js), but handing out each output piece as it is made. Should
 * a Node version lack that handle, `gunzipSync` is used, refusing content over `maxBytes`.
 */
export function gunzipSource(packed: ByteSource, maxBytes: number): ByteSource {
  return {
    open(): ByteReader {
      const engine = createGunzip({ chunkSize: 64 * 1024 });
      // Errors are thrown where they happen; the stream's own 'error' event (next tick) is not wanted.
      engine.on('error', () => {});
      const internals = engine as unknown as ZlibInternals;
      if (typeof internals._handle?.writeSync !== 'function' || !(internals._writeState instanceof Uint32Array)) {
        engine.destroy();
        return wholeGunzip(packed, maxBytes);
      }
      return new GunzipReader(packed.open(), engine, internals);
    },
  };
}

interface ZlibInternals {
  _handle: {
    writeSync(flush: number, input: Buffer, inOff: number, inLen: number, out: Buffer, outOff: number, outLen: number): void;
  } | null;
  /** [output bytes left, input bytes left] after each write. */
  _writeState: Uint32Array;
}

const EMPTY = Buffer.alloc(0);

class GunzipReader implements ByteReader {
  readonly #packed: ByteReader;
  readonly #engine: ReturnType<typeof createGunzip>;
  readonly #internals: ZlibInternals;
  #input: Buffer = EMPTY;
  #inputEnded = false;
  #done = false;

  constructor(packed: ByteReader, engine: ReturnType<typeof createGunzip>, internals: ZlibInternals) {
    this.#packed = packed;
    this.#engine = engine;
    this.#internals = internals;
  }

  next(): Buffer | undefined {
    if (this.#done) return undefined;
    const out = Buffer.allocUnsafe(PIECE_BYTES);
    let filled = 0;
    while (filled < out.length) {
      if (this.#input.length === 0 && !this.#inputEnded) {
        const piece = this.#packed.next();
        if (piece === undefined) this.#inputEnded = true;
        else this.#input = piece;
        continue;
      }
      const handle = this.#internals._handle;
      if (handle === null) throw this.#failure();
      const flush = this.#inputEnded ? constants.Z_FINISH : constants.Z_NO_FLUSH;
      const room = out.length - filled;
      handle.writeSync(flush, this.#input, 0, this.#input.length, out, filled, room);
      if (this.#engine.errored) throw this.#failure();
      const [outLeft = 0, inLeft = 0] = this.#internals._writeState;
      const produced = room - outLeft;
      const consumed = this.#input.length - inLeft;
      filled += produced;
      this.#input = this.#input.subarray(consumed);
      // Finishing with room to spare, or nothing more taken: the end (zeros padding the last member
      // are ignored, as gunzipSync ignores them).
      if ((this.#inputEnded && outLeft > 0) || (produced === 0 && consumed === 0 && this.#input.length > 0)) {
        this.close();
        break;
      }
    }
    if (filled === 0) return undefined;
    return filled === out.length ? out : out.subarray(0, filled);
  }

  close(): void {
    this.#done = true;
    this.#input = EMPTY;
    if (!this.#engine.destroyed) this.#engine.destroy();
    this.#packed.close();
  }

  #failure(): ShapeError {
    const cause = this.#engine.errored ?? undefined;
    this.close();
    return new ShapeError('a gzip file that cannot be unpacked (truncated or corrupt)', { cause });
  }
}

/** Without the handle: all of it at once, refused past `maxBytes`. */
function wholeGunzip(packed: ByteSource, maxBytes: number): ByteReader {
  const reader = packed.open();
  const pieces: Buffer[] = [];
  try {
    for (let piece = reader.next(); piece !== undefined; piece = reader.next()) pieces.push(piece);
  } finally {
    reader.close();
  }
  let unpacked: Buffer | undefined;
  try {
    unpacked = gunzipSync(Buffer.concat(pieces), { maxOutputLength: maxBytes });
  } catch (error) {
    if (typeof error === 'object' && error !== null && 'code' in error && error.code === 'ERR_BUFFER_TOO_LARGE') {
      throw overLimit(maxBytes, true);
    }
    throw new ShapeError('a gzip file that cannot be unpacked (truncated or corrupt)', { cause: error });
  }
  let done = false;
  return {
    next: () => {
      if (done) return undefined;
      done = true;
      return unpacked;
    },
    close: () => {
      done = true;
    },
  };
}
