import { Buffer } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ByteReader } from '../../../src/snapshot/capture-content.ts';
import { parseJsonValues } from '../../../src/snapshot/json-values.ts';

/** Hands `text` over in pieces of `size` bytes: every value, string and escape gets cut somewhere. */
function readerOf(text: string, size: number): ByteReader & { closed: boolean } {
  const bytes = Buffer.from(text, 'utf8');
  let at = 0;
  return {
    closed: false,
    next() {
      if (at >= bytes.length) return undefined;
      const piece = Buffer.from(bytes.subarray(at, at + size));
      at += size;
      return piece;
    },
    close() {
      this.closed = true;
    },
  };
}

/** What the values are: JSON.parse of each value in turn (the reference the scanner must match). */
function valuesOf(text: string): unknown[] | 'invalid' {
  const values: unknown[] = [];
  let rest = text;
  while (rest.trim() !== '') {
    try {
      values.push(JSON.parse(rest));
      return values;
    } catch (error) {
      const next = /after JSON at position (\d+)/.exec((error as Error).message)?.[1];
      if (next === undefined) return 'invalid';
      values.push(JSON.parse(rest.slice(0, Number(next))));
      rest = rest.slice(Number(next));
    }
  }
  return values;
}

describe('parseJsonValues', () => {
  it('gives what JSON.parse gives, for any JSON cut into any pieces, indented or not, and refuses what it refuses', () => {
    fc.assert(
      fc.property(
        fc.array(fc.jsonValue({ maxDepth: 4 }), { minLength: 1, maxLength: 3 }),
        fc.constantFrom(0, 2, 4, '\t'),
        fc.boolean(),
        fc.integer({ min: 1, max: 64 }),
        fc.option(fc.tuple(fc.nat(), fc.constantFrom('{', '}', '"', ',', ':', '[', ']', '\\', ' ', 'x', '\n')), {
          nil: undefined,
        }),
        (values, indent, crlf, pieceSize, typo) => {
          // Prepare
          let text = values.map((v) => JSON.stringify(v, null, indent)).join('\n');
          if (crlf) text = text.replaceAll('\n', '\r\n');
          if (typo) text = `${text.slice(0, typo[0] % (text.length + 1))}${typo[1]}${text.slice(typo[0] % (text.length + 1))}`;
          const reader = readerOf(text, pieceSize);

          // Act
          const parsed = parseJsonValues(reader, (element) => element);

          // Assess
          const expected = valuesOf(text);
          if (expected === 'invalid') expect(parsed).toEqual({ invalidAt: expect.any(Number) });
          else expect(parsed).toEqual(expected);
          expect(reader.closed).toBe(true);
        },
      ),
      { numRuns: 1500 },
    );
  });

  it('hands each element of a top-level list, and each top-level object, to `keep` as soon as it is parsed', () => {
    // Prepare
    const list = {
      apiVersion: 'v1',
      kind: 'List',
      items: [{ metadata: { name: 'a' } }, { metadata: { name: 'b' } }],
      metadata: {},
    };
    const text = `${JSON.stringify(list, null, 4)}\n${JSON.stringify([{ n: 1 }, { n: 2 }])}\n${JSON.stringify({ single: true })}`;
    const kept: unknown[] = [];

    // Act
    const parsed = parseJsonValues(readerOf(text, 7), (element) => {
      kept.push(element);
      return { kept: element };
    });

    // Assess
    expect(kept).toEqual([
      { metadata: { name: 'a' } },
      { metadata: { name: 'b' } },
      expect.objectContaining({ kind: 'List' }),
      { n: 1 },
      { n: 2 },
      { single: true },
    ]);
    expect(parsed).toEqual([
      { kept: { ...list, items: [{ kept: { metadata: { name: 'a' } } }, { kept: { metadata: { name: 'b' } } }] } },
      [{ kept: { n: 1 } }, { kept: { n: 2 } }],
      { kept: { single: true } },
    ]);
  });

  it('keeps a `__proto__` key a plain key, as JSON.parse does', () => {
    // Prepare
    const text = '{"__proto__": {"polluted": true}, "items": [{"__proto__": 1}]}';

    // Act
    const [parsed] = parseJsonValues(readerOf(text, 5), (e) => e) as [Record<string, unknown>];

    // Assess
    expect(Object.hasOwn(parsed, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(parsed).toEqual(JSON.parse(text));
  });

  it('is not fooled by pretty-printed objects whose inner braces close at the same indentation', () => {
    // Prepare
    const text = '[\n{\n"a": {\n"b": 1\n}\n},\n{\n"c": [\n]\n}\n]\n';

    // Act
    const parsed = parseJsonValues(readerOf(text, 3), (e) => e);

    // Assess
    expect(parsed).toEqual([JSON.parse(text)]);
  });
});
