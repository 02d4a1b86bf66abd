/**
 * fast-check events for the functions' fuzz: fully arbitrary JSON, and the sample events in events/
 * mutated at arbitrary paths (a field replaced by arbitrary JSON, dropped, of the wrong type, a huge
 * string, control characters). A string that holds a JSON object or list (an SQS body, an SNS
 * message) is mutated inside too, then written back as JSON.
 */
import fc from 'fast-check';
import { sampleEvent } from './lambda.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A field's new value: arbitrary JSON, the wrong type, a huge string, control characters. */
const oddValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(null, true, false, 0, -1, 1e308, '', [], {}, '   ', 'null', 'true', '{', '1e999'),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: fc.integer({ min: 0, max: 31 }).map((c) => String.fromCharCode(c)), maxLength: 20 }),
  fc.nat({ max: 300_000 }).map((n) => 'x'.repeat(n)),
);

interface Mutation {
  /** Picks a child at each level (modulo the number of children); the path ends where `depth` says. */
  steps: number[];
  depth: number;
  kind: 'replace' | 'drop' | 'stringify';
  value: unknown;
}

const mutation: fc.Arbitrary<Mutation> = fc.record({
  steps: fc.array(fc.nat(), { minLength: 8, maxLength: 8 }),
  depth: fc.nat({ max: 8 }),
  kind: fc.constantFrom('replace', 'drop', 'stringify'),
  value: oddValue,
});

const EMBEDDED = Symbol('embedded JSON');
type Tree = unknown;

/** JSON strings holding an object or list become `{[EMBEDDED]: parsed}`, so mutations reach inside. */
function expand(value: unknown): Tree {
  if (typeof value === 'string' && /^\s*[[{]/.test(value)) {
    try {
      return { [EMBEDDED]: expand(JSON.parse(value)) };
    } catch {
      return value;
    }
  }
  if (Array.isArray(value)) return value.map(expand);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expand(v)]));
  }
  return value;
}

function collapse(tree: Tree): unknown {
  if (Array.isArray(tree)) return tree.map(collapse);
  if (typeof tree === 'object' && tree !== null) {
    if (EMBEDDED in tree) return JSON.stringify(collapse((tree as { [EMBEDDED]: Tree })[EMBEDDED]));
    return Object.fromEntries(Object.entries(tree).map(([k, v]) => [k, collapse(v)]));
  }
  return tree;
}

type Container = Record<string | symbol, unknown> | unknown[];

function childKeys(node: unknown): (string | number | symbol)[] {
  if (Array.isArray(node)) return node.map((_, i) => i);
  if (typeof node === 'object' && node !== null) {
    return EMBEDDED in node ? [EMBEDDED] : Object.keys(node);
  }
  return [];
}

function apply(root: Tree, m: Mutation): Tree {
  const holder: Container = { root };
  let parent: Container = holder;
  let key: string | number | symbol = 'root';
  for (let level = 0; level < m.depth; level++) {
    const node = (parent as Record<string | number | symbol, unknown>)[key];
    const keys = childKeys(node);
    if (keys.length === 0) break;
    parent = node as Container;
    key = keys[m.steps[level]! % keys.length]!;
  }
  const at = parent as Record<string | number | symbol, unknown>;
  if (m.kind === 'drop' && parent !== holder) {
    if (Array.isArray(parent)) parent.splice(key as number, 1);
    else delete at[key];
  } else if (m.kind === 'stringify') {
    at[key] = JSON.stringify(collapse(at[key])) ?? null;
  } else {
    at[key] = m.value;
  }
  return holder.root;
}

/** `events/<name>.json` with 1 to 4 mutations. */
function mutatedSample(name: string): fc.Arbitrary<unknown> {
  return fc.array(mutation, { minLength: 1, maxLength: 4 }).map((mutations) => {
    let tree = expand(sampleEvent<Json>(name));
    for (const m of mutations) tree = apply(tree, m);
    return collapse(tree);
  });
}

/** Arbitrary JSON, or any of the samples mutated. */
export function fuzzedEvents(samples: readonly string[]): fc.Arbitrary<unknown> {
  return fc.oneof(
    { arbitrary: fc.jsonValue({ maxDepth: 4 }), weight: 1 },
    { arbitrary: fc.oneof(...samples.map(mutatedSample)), weight: 4 },
  );
}

/** The message ids an SQS event names (the only ones a batch item failure may name). */
export function messageIdsOf(event: unknown): Set<unknown> {
  const records = (event as { Records?: unknown } | null)?.Records;
  return new Set(Array.isArray(records) ? records.map((r) => (r as { messageId?: unknown } | null)?.messageId) : []);
}
