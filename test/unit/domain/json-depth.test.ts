/**
 * Values of any depth from a capture: how deep one nests is told without recursion, and one is
 * written as JSON text whatever its depth (V8's JSON.stringify overflows the stack at a few
 * thousand levels).
 */
import { describe, expect, it } from 'vitest';
import { nestingProblem } from '../../../src/domain/json-checks.ts';
import { jsonText } from '../../../src/domain/json.ts';

/** `{x: {x: ... 'bottom'}}`, `levels` objects deep. */
function nested(levels: number): unknown {
  let value: unknown = 'bottom';
  for (let i = 0; i < levels; i++) value = { x: value };
  return value;
}

describe('nestingProblem', () => {
  it('lets 1,000 levels through and names the member under which the 1,001st is', () => {
    expect(nestingProblem({ metadata: { name: 'a' }, spec: nested(999) as object })).toBeUndefined();
    expect(nestingProblem({ metadata: { name: 'a' }, spec: nested(1_000) })).toEqual({
      path: ['spec'],
      got: 'nested more than 1,000 levels deep',
      expected: 'at most 1,000',
    });
  });

  it('counts lists as levels and walks a million without overflowing the stack', () => {
    let list: unknown = [];
    for (let i = 0; i < 1_000_000; i++) list = [list];
    expect(nestingProblem({ status: { conditions: list } })?.path).toEqual(['status']);
    expect(nestingProblem([1, 'a', null])).toBeUndefined();
    expect(nestingProblem('text')).toBeUndefined();
  });

  it('finds the deep member of a list among scalars and nulls, lists and objects counted alike', () => {
    /** `levels` levels, lists and objects taking turns, scalars and nulls beside each. */
    const mixed = (levels: number): unknown => {
      let value: unknown = 'bottom';
      for (let i = 0; i < levels; i++) value = i % 2 === 0 ? ['a', 1, null, value, true] : { s: 'x', n: null, v: value };
      return value;
    };

    // The object, spec and the list make three levels.
    expect(nestingProblem({ spec: { containers: ['a', null, mixed(997)] } })).toBeUndefined();
    expect(nestingProblem({ spec: { containers: ['a', null, mixed(998)] } })?.path).toEqual(['spec']);
    expect(nestingProblem([0, null, 'a', mixed(999)])).toBeUndefined();
    expect(nestingProblem([0, null, 'a', mixed(1_000)])?.path).toEqual([3]);
  });
});

describe('jsonText', () => {
  it('writes what JSON.stringify writes, undefined and functions left out of objects and null in lists', () => {
    const value = { a: [1, undefined, 's'], b: { c: null, d: undefined, f: () => 1 }, e: new Date(0) };

    expect(jsonText(value)).toBe(JSON.stringify(value));
  });

  it('writes a value 100,000 levels deep that JSON.stringify cannot, and it parses back the same', () => {
    // Prepare
    const value = { spec: nested(100_000), list: [undefined, { u: undefined }] };
    expect(() => JSON.stringify(value)).toThrow(RangeError);

    // Act
    const text = jsonText(value);

    // Assess
    expect(text.startsWith('{"spec":{"x":{"x":')).toBe(true);
    expect(text.endsWith('}}},"list":[null,{}]}')).toBe(true);
    let depth = 0;
    for (let v = (JSON.parse(text) as { spec: unknown }).spec; typeof v === 'object'; v = (v as { x: unknown }).x) depth++;
    expect(depth).toBe(100_000);
  });
});
