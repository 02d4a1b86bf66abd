/**
 * The type checks every object read goes through (src/domain/object-shapes.ts): what they let
 * through, what they name as wrong, and the null fields they remove.
 */
import { describe, expect, it } from 'vitest';
import { arr, bool, describeProblem, num, obj, record, str, strOrNum, time } from '../../../src/domain/json-checks.ts';
import { KUBE_SHAPES } from '../../../src/domain/object-shapes.ts';

const container = obj({ name: str, ports: arr(obj({ port: num, hostPort: num })), env: record(str) }, ['name']);
const check = obj({ name: str, ready: bool, started: time, cpu: strOrNum, containers: arr(container) });

/** The one line a check's problem is printed as; undefined when the value passes. */
function problemOf(value: unknown): string | undefined {
  const problem = check(value);
  return problem && describeProblem(problem);
}

describe('obj', () => {
  it('lets through an object whose named fields are of their types, other fields not looked at', () => {
    const value = {
      name: 'web',
      ready: true,
      started: '2026-01-01T00:00:00Z',
      cpu: 2,
      containers: [{ name: 'app', ports: [{ port: 80 }], env: { A: 'x' } }],
      other: { anything: [null, 1] },
    };

    expect(problemOf(value)).toBeUndefined();
    expect(problemOf({ cpu: '250m' })).toBeUndefined();
  });

  it('names the first wrong field in the order the check lists them, with its path', () => {
    const ports = [{ port: 80 }, { port: '80' }];

    expect(problemOf({ containers: [{ name: 'app', ports }], name: 7, ready: 'yes' })).toBe(
      'name is a number, expected a string',
    );
    expect(problemOf({ containers: [{ name: 'app', ports }] })).toBe(
      'containers[0].ports[1].port is a string, expected a number',
    );
    expect(problemOf({ cpu: Infinity })).toBe('cpu is a number, expected a string or a number');
    expect(problemOf({ ready: null, started: 5 })).toBe('started is a number, expected a timestamp string');
    expect(problemOf({ containers: [{ env: { A: 'x' } }] })).toBe('containers[0].name is missing, expected a string');
    expect(problemOf({ containers: [{ name: 'app', env: { 'A.b': 1 } }] })).toBe(
      'containers[0].env["A.b"] is a number, expected a string',
    );
  });

  it('removes a named field that is null, and leaves an unnamed null field and an undefined one alone', () => {
    const value: Record<string, unknown> = { name: null, ready: undefined, other: null };

    expect(problemOf(value)).toBeUndefined();
    expect(Object.keys(value)).toEqual(['ready', 'other']);
  });

  it('reads only the object’s own fields, not what its prototype holds', () => {
    const value = Object.create({ name: 7, ready: 'inherited' }) as Record<string, unknown>;
    value.cpu = '1';

    expect(problemOf(value)).toBeUndefined();
  });

  it('names what is not an object or list at all', () => {
    expect(problemOf([])).toBe('the object is a list, expected an object');
    expect(problemOf({ containers: {} })).toBe('containers is an object, expected a list');
    expect(problemOf({ containers: [null] })).toBe('containers[0] is null, expected an object');
  });
});

describe('KUBE_SHAPES', () => {
  it('sets aside a NodeClaim whose finalizers are not a list of strings (NODE_TERMINATION_STUCK lists them)', () => {
    // Prepare
    const check = KUBE_SHAPES.nodeclaims;
    const claim = (finalizers: unknown) => ({ metadata: { name: 'default-x', finalizers } });

    // Assess
    expect(check?.(claim(['karpenter.sh/termination']))).toBeUndefined();
    expect(describeProblem(check!(claim('\u0000'))!)).toBe('metadata.finalizers is a string, expected a list');
    expect(describeProblem(check!(claim([7]))!)).toBe('metadata.finalizers[0] is a number, expected a string');
  });
});
