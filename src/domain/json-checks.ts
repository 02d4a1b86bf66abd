/**
 * Declarative JSON type checks for the fields detectors and renderers read. A check answers
 * "is this value of the right JSON type?" and nothing more: no formats, no required values
 * beyond what is named. Optional fields may be absent or null (Kubernetes prints
 * `creationTimestamp: null` in templates); a null one is removed, as the domain types declare
 * optional fields absent, never null. Elements of a list and values of a map may not be null.
 */

/** Where the value is wrong (`spec.containers[0].env[0]`) and what was expected there. */
export interface ShapeProblem {
  /** Keys and indices from the checked value down to the wrong one (built only on failure). */
  path: (string | number)[];
  got: string;
  expected: string;
}

/** Undefined when the value is of the right type. */
export type Check = (value: unknown) => ShapeProblem | undefined;

/** One line: `spec.taints is true, expected a list`. */
export function describeProblem(problem: ShapeProblem): string {
  return `${pathText(problem.path) || 'the object'} is ${problem.got}, expected ${problem.expected}`;
}

/** `['spec', 'containers', 0, 'env']` → `spec.containers[0].env`; odd keys quoted: `labels["app.kubernetes.io/name"]`. */
function pathText(path: readonly (string | number)[]): string {
  let text = '';
  for (const key of path) {
    if (typeof key === 'number') text += `[${key}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(key)) text += text ? `.${key}` : key;
    else text += `[${JSON.stringify(key)}]`;
  }
  return text;
}

/** `null`, `true`, `a string`, `a list`, ...: how a value is named in a problem. */
export function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'missing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number') return 'a number';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

/** What a check returns for a value of the wrong type (checks of single values test inline: one call per value). */
function wrong(value: unknown, expected: string): ShapeProblem {
  return { path: [], got: typeOf(value), expected };
}

/** The problem found under `key`, its path now starting there. */
export function under(key: string | number, problem: ShapeProblem): ShapeProblem {
  problem.path.unshift(key);
  return problem;
}

export const str: Check = (v) => (typeof v === 'string' ? undefined : wrong(v, 'a string'));
export const num: Check = (v) => (typeof v === 'number' && Number.isFinite(v) ? undefined : wrong(v, 'a number'));
export const bool: Check = (v) => (typeof v === 'boolean' ? undefined : wrong(v, 'true or false'));
/** Timestamps are ISO-8601 text in every capture and API response read. */
export const time: Check = (v) => (typeof v === 'string' ? undefined : wrong(v, 'a timestamp string'));
/** Quantities (`cpu: 1` in hand-written YAML) and ports named or numbered. */
export const strOrNum: Check = (v) =>
  typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)) ? undefined : wrong(v, 'a string or a number');
/** Any JSON value: read by code that checks what it finds. */
export const anything: Check = () => undefined;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * An object whose named fields, when present, pass their checks (a named field that is null is
 * deleted from the object); other fields are not looked at.
 */
export function obj(fields: Readonly<Record<string, Check>>, required: readonly string[] = []): Check {
  const keys = Object.keys(fields);
  const checks = keys.map((key) => fields[key]);
  return (value) => {
    if (!isPlainObject(value)) return wrong(value, 'an object');
    for (const key of required) {
      if (value[key] === undefined || value[key] === null) {
        return { path: [key], got: typeOf(value[key]), expected: expectedOf(fields[key]) };
      }
    }
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as string;
      const field = value[key];
      // Most named fields are absent from most objects: the read tells, before hasOwn is asked.
      if (field === undefined || !Object.hasOwn(value, key)) continue;
      if (field === null) {
        // The domain types say absent, not null (`ref !== undefined` must mean a ref).
        delete value[key];
        continue;
      }
      const problem = (checks[i] as Check)(field);
      if (problem) return under(key, problem);
    }
    return undefined;
  };
}

/** A list whose every element passes `of` (null elements do not). */
export function arr(of: Check): Check {
  return (value) => {
    if (!Array.isArray(value)) return wrong(value, 'a list');
    for (let i = 0; i < value.length; i++) {
      const problem = of(value[i]);
      if (problem) return under(i, problem);
    }
    return undefined;
  };
}

/** A map (`labels`, `requests`) whose every value passes `of`. */
export function record(of: Check): Check {
  return (value) => {
    if (!isPlainObject(value)) return wrong(value, 'an object');
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      const problem = of(value[key]);
      if (problem) return under(key, problem);
    }
    return undefined;
  };
}

/** What a check expects, for a required field that is missing. */
function expectedOf(check: Check | undefined): string {
  return check?.(Symbol('probe'))?.expected ?? 'a value';
}

/**
 * How deep a parsed capture value may nest: deeper than any Kubernetes object or CRD schema (the
 * YAML parser refuses deeper documents, yaml-documents.ts). An object nested deeper is set aside:
 * JSON.stringify and structuredClone, which the simulator and `snapshot` run on every object,
 * overflow the stack at a few thousand levels.
 */
export const MAX_NESTING = 1000;

/**
 * Where `value` nests more than `max` levels deep (objects and lists), as a problem; undefined
 * when it does not. A million levels cost no more than the first 1,001.
 */
export function nestingProblem(value: unknown, max = MAX_NESTING): ShapeProblem | undefined {
  if (!nestsDeeperThan(value, max)) return undefined;
  const levels = max.toLocaleString('en-US');
  const record = value as Record<string, unknown>;
  const under = Object.keys(record).find((key) => nestsDeeperThan(record[key], max - 1));
  return {
    path: under === undefined ? [] : [Array.isArray(value) ? Number(under) : under],
    got: `nested more than ${levels} levels deep`,
    expected: `at most ${levels}`,
  };
}

/** Whether objects and lists nest in `value` more than `max` levels deep (`{}` is one level). */
function nestsDeeperThan(value: unknown, max: number): boolean {
  return typeof value === 'object' && value !== null && containerNestsDeeperThan(value, max);
}

/**
 * nestsDeeperThan for an object or list. It runs on every value of every object a scan reads:
 * a list is walked by index (`for...in` would make a string of every index), and only objects
 * and lists are called for, not the strings and numbers that make up most values.
 * Recursive, but never past `max` + 1 frames: the walk stops as soon as the bound is passed.
 */
function containerNestsDeeperThan(value: object, max: number): boolean {
  if (max <= 0) return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const member: unknown = value[i];
      if (typeof member === 'object' && member !== null && containerNestsDeeperThan(member, max - 1)) return true;
    }
    return false;
  }
  const record = value as Record<string, unknown>;
  for (const key in record) {
    const member = record[key];
    if (typeof member === 'object' && member !== null && containerNestsDeeperThan(member, max - 1)) return true;
  }
  return false;
}
