/**
 * Answers a misbehaving API server (or a proxy in front of one) might give, for the tests and the
 * bench of bounded live reads (docs/usage.md, `--kube-read-limits`): a body far too long, one that
 * never ends, a gzip bomb, and list pages whose `continue` tokens never run out. Every body is
 * bounded here too, so a client that does not hang up cannot make a test run forever.
 */
import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';

export type HostileBody =
  /** A list of `bytes` bytes (whitespace between `[` and `]`), with its Content-Length. */
  | { kind: 'oversize'; bytes: number }
  /** A list that streams whitespace until the client hangs up, or until `maxBytes` (default 1 GiB). */
  | { kind: 'endless'; maxBytes?: number }
  /** `Content-Encoding: gzip`: a list unpacking to `unpackedBytes`, compressed about 1000:1 on the fly. */
  | { kind: 'gzip-bomb'; unpackedBytes: number }
  /** An empty list page with a new `continue` token on every request: a list that never ends. */
  | { kind: 'endless-continue' };

const CHUNK_BYTES = 64 * 1024;
const DEFAULT_ENDLESS_BYTES = 1024 ** 3;
const HEAD = Buffer.from('{"kind":"List","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[');
const TAIL = Buffer.from(']}');
const FILLER = Buffer.alloc(CHUNK_BYTES, ' ');

/** Serves `body`; resolves once it is sent or the client hung up. `sent` counts the bytes written, as sent. */
export async function sendHostileBody(res: ServerResponse, body: HostileBody, sent: (bytes: number) => void): Promise<void> {
  if (body.kind === 'endless-continue') {
    const page = Buffer.from(
      JSON.stringify({
        kind: 'List',
        apiVersion: 'v1',
        metadata: { resourceVersion: '1', continue: `endless-${++pageCount}` },
        items: [],
      }),
    );
    sent(page.length);
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': page.length });
    res.end(page);
    return;
  }
  const total =
    body.kind === 'oversize'
      ? body.bytes
      : body.kind === 'endless'
        ? (body.maxBytes ?? DEFAULT_ENDLESS_BYTES)
        : body.unpackedBytes;
  const headers: Record<string, string | number> = { 'Content-Type': 'application/json' };
  if (body.kind === 'oversize') headers['Content-Length'] = total;
  if (body.kind === 'gzip-bomb') headers['Content-Encoding'] = 'gzip';
  res.writeHead(200, headers);
  const content = Readable.from(listOfWhitespace(total));
  const counted = <T extends NodeJS.EventEmitter>(stream: T): T => {
    stream.on('data', (chunk: Buffer) => sent(chunk.length));
    return stream;
  };
  try {
    if (body.kind === 'gzip-bomb') await pipeline(content, counted(createGzip({ level: 9 })), res);
    else await pipeline(counted(content), res);
  } catch {
    // The client hung up: what a bounded reader does.
  }
}

let pageCount = 0;

/** `HEAD`, whitespace, `TAIL`: `total` bytes of valid JSON. */
function* listOfWhitespace(total: number): Generator<Buffer> {
  yield HEAD;
  let left = total - HEAD.length - TAIL.length;
  while (left > 0) {
    const size = Math.min(left, CHUNK_BYTES);
    yield size === CHUNK_BYTES ? FILLER : FILLER.subarray(0, size);
    left -= size;
  }
  yield TAIL;
}
