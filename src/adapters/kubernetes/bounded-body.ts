/**
 * A response body read under a byte cap, counted on the stream as it arrives and again as it is
 * unpacked (gzip, streaming): a body that never ends, a 3 GB page or a 3 MB gzip body unpacking to
 * 3 GB stops at the cap plus one chunk, before any string is made of it (docs/usage.md,
 * `--kube-read-limits`).
 */
import type { IncomingMessage } from 'node:http';
import { createGunzip } from 'node:zlib';

export interface BodyBounds {
  /** Bytes of body, as received and as unpacked. */
  maxBytes: number;
  /** Past the cap, keep the first `maxBytes` and stop reading (a pod's log: evidence even cut), instead of failing. */
  truncate: boolean;
}

export interface BoundedBody {
  body: Buffer;
  /** The body was cut at the cap (`truncate` only). */
  truncated: boolean;
}

/** The body passed the cap; the response was destroyed there. */
export class BodyTooLargeError extends Error {
  override name = 'BodyTooLargeError';
  /** Bytes that came off the connection before it was destroyed. */
  readonly bytesReceived: number;
  /** The unpacked body passed the cap (a gzip body), rather than the bytes received. */
  readonly unpacked: boolean;
  constructor(bytesReceived: number, unpacked: boolean) {
    super(unpacked ? 'the response unpacks to more than the cap' : 'the response is longer than the cap');
    this.bytesReceived = bytesReceived;
    this.unpacked = unpacked;
  }
}

/**
 * Resolves to the body (unpacked when `Content-Encoding: gzip`); rejects with BodyTooLargeError
 * past the cap (the response destroyed at once), with a gzip error for a corrupt body, or with
 * an ECONNRESET error when the connection closed before the body ended.
 */
export function readBoundedBody(response: IncomingMessage, bounds: BodyBounds): Promise<BoundedBody> {
  return new Promise((resolve, reject) => {
    const { maxBytes, truncate } = bounds;
    const unpack = response.headers['content-encoding'] === 'gzip' ? createGunzip() : undefined;
    const chunks: Buffer[] = [];
    let received = 0;
    let kept = 0;
    let done = false;
    const stop = () => {
      response.destroy();
      unpack?.destroy();
    };
    const succeed = (truncated: boolean) => {
      if (done) return;
      done = true;
      if (truncated) stop();
      resolve({ body: Buffer.concat(chunks, kept), truncated });
    };
    const fail = (error: Error) => {
      if (done) return;
      done = true;
      stop();
      reject(error);
    };
    const tooLarge = (unpacked: boolean) => {
      if (truncate) succeed(true);
      else fail(new BodyTooLargeError(received, unpacked));
    };
    /** Bytes of body as the caller gets it (unpacked). */
    const take = (chunk: Buffer) => {
      if (done) return;
      if (kept + chunk.length > maxBytes) {
        chunks.push(chunk.subarray(0, maxBytes - kept));
        kept = maxBytes;
        tooLarge(unpack !== undefined);
        return;
      }
      chunks.push(chunk);
      kept += chunk.length;
    };

    const declared = Number(response.headers['content-length']);
    if (!truncate && unpack === undefined && Number.isFinite(declared) && declared > maxBytes) {
      fail(new BodyTooLargeError(0, false));
      return;
    }
    response.on('data', (chunk: Buffer) => {
      if (done) return;
      received += chunk.length;
      if (received > maxBytes) {
        if (unpack === undefined) take(chunk);
        else tooLarge(false);
        return;
      }
      if (!unpack) return take(chunk);
      // A bomb unpacks far faster than it arrives: wait for the unpacked bytes to be counted.
      if (!unpack.write(chunk)) {
        response.pause();
        unpack.once('drain', () => response.resume());
      }
    });
    response.on('error', fail);
    response.on('end', () => (unpack ? unpack.end() : succeed(false)));
    response.on('close', () => {
      if (!response.complete)
        fail(Object.assign(new Error('connection closed before the response ended'), { code: 'ECONNRESET' }));
    });
    unpack?.on('data', take);
    unpack?.on('error', fail);
    unpack?.on('end', () => succeed(false));
  });
}
