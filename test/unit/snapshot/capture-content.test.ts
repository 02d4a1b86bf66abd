import { Buffer } from 'node:buffer';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { captureContent, type ByteSource } from '../../../src/snapshot/capture-content.ts';

/** `bytes` read back in pieces of `size` bytes, as a file is read in pieces. */
function inPieces(bytes: Buffer, size: number): ByteSource {
  return {
    open() {
      let at = 0;
      return {
        next: () => (at < bytes.length ? bytes.subarray(at, (at += size)) : undefined),
        close: () => {
          at = bytes.length;
        },
      };
    },
  };
}

const TEXT = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: nœud-☃-🚀\n';

describe('captureContent: read in pieces', () => {
  it('re-encodes UTF-16 (both byte orders) however the pieces cut its characters', () => {
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(TEXT, 'utf16le')]);
    const be = Buffer.from(le);
    be.swap16();

    for (const size of [1, 2, 3, 7, le.length]) {
      expect(captureContent('a.yaml', inPieces(le, size)).text()).toBe(TEXT);
      expect(captureContent('a.yaml', inPieces(be, size)).text()).toBe(TEXT);
    }
  });

  it('unpacks gzip however the pieces cut it', () => {
    const packed = gzipSync(TEXT);

    for (const size of [1, 5, packed.length]) {
      expect(captureContent('a.yaml.gz', inPieces(packed, size)).text()).toBe(TEXT);
    }
  });
});
