/**
 * `labelSelector` and `fieldSelector` query parameters, parsed and matched the way the API
 * server does (k8s.io/apimachinery/pkg/labels and fields), for the simulated API server.
 */
import type { LabelSelectorRequirement } from '../domain/kube.ts';
import { selectorMatches } from '../domain/kube-helpers.ts';
import { isRecord, type JsonRecord } from '../domain/shape.ts';
import { podNodeName, type SimResourceName } from './kube-store.ts';

/** A selector the API server would refuse with 400 BadRequest. */
export class SelectorError extends Error {
  override name = 'SelectorError';
}

export type ObjectPredicate = (object: JsonRecord) => boolean;

/** `key>3`, `key<3`: the string form's integer comparisons, which LabelSelector objects lack. */
interface NumericRequirement {
  key: string;
  op: 'gt' | 'lt';
  value: number;
}

const LABEL_KEY = /^(?:[a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const LABEL_VALUE = /^(?:[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;

/** `a=b,c!=d,e in (f,g),!h` → a predicate on `metadata.labels`; undefined for an empty selector. */
export function parseLabelSelector(selector: string | null | undefined): ObjectPredicate | undefined {
  if (!selector || selector.trim() === '') return undefined;
  const matchExpressions: LabelSelectorRequirement[] = [];
  const numeric: NumericRequirement[] = [];
  for (const part of splitOutsideParentheses(selector)) {
    const requirement = parseLabelRequirement(part);
    if ('operator' in requirement) matchExpressions.push(requirement);
    else numeric.push(requirement);
  }
  const sets = { matchExpressions };
  return (object) => {
    const labels = labelsOf(object);
    return selectorMatches(sets, labels) && numeric.every((r) => comparesTo(r, labels[r.key]));
  };
}

function parseLabelRequirement(text: string): LabelSelectorRequirement | NumericRequirement {
  const part = text.trim();
  const set = /^(\S+)\s+(in|notin)\s*\((.*)\)$/.exec(part);
  if (set) {
    const [, key = '', op, list = ''] = set;
    const values = list.split(',').map((v) => v.trim());
    for (const v of values) checkLabelValue(v, part);
    return { key: checkLabelKey(key, part), operator: op === 'in' ? 'In' : 'NotIn', values };
  }
  const compared = /^([^=!<>\s]+)\s*(==|=|!=|>|<)\s*(.*)$/.exec(part);
  if (compared) {
    const [, key = '', op, value = ''] = compared;
    if (op === '>' || op === '<') {
      const n = Number(value);
      if (!/^-?\d+$/.test(value) || !Number.isSafeInteger(n)) {
        throw new SelectorError(`unable to parse requirement: for 'gt', 'lt' operators, the value must be an integer: ${part}`);
      }
      return { key: checkLabelKey(key, part), op: op === '>' ? 'gt' : 'lt', value: n };
    }
    checkLabelValue(value, part);
    return { key: checkLabelKey(key, part), operator: op === '!=' ? 'NotIn' : 'In', values: [value] };
  }
  if (part.startsWith('!')) return { key: checkLabelKey(part.slice(1).trim(), part), operator: 'DoesNotExist' };
  return { key: checkLabelKey(part, part), operator: 'Exists' };
}

function checkLabelKey(key: string, requirement: string): string {
  if (!LABEL_KEY.test(key) || key.length > 316) {
    throw new SelectorError(`unable to parse requirement: invalid label key "${key}" in "${requirement}"`);
  }
  return key;
}

function checkLabelValue(value: string, requirement: string): void {
  if (!LABEL_VALUE.test(value) || value.length > 63) {
    throw new SelectorError(`unable to parse requirement: invalid label value: "${value}" in "${requirement}"`);
  }
}

function comparesTo(r: NumericRequirement, value: string | undefined): boolean {
  if (typeof value !== 'string' || !/^-?\d+$/.test(value)) return false;
  return r.op === 'gt' ? Number(value) > r.value : Number(value) < r.value;
}

/** Label values are strings on every object the store holds (PATCH refuses others); no per-object copy on the list path. */
function labelsOf(object: JsonRecord): Record<string, string> {
  const metadata = object.metadata;
  return isRecord(metadata) && isRecord(metadata.labels) ? (metadata.labels as Record<string, string>) : {};
}

/** Splits on commas, except those inside `in (a,b)` lists. */
function splitOutsideParentheses(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
    if (depth < 0 || depth > 1) throw new SelectorError(`unable to parse requirement: unbalanced parentheses in "${text}"`);
  }
  if (depth !== 0) throw new SelectorError(`unable to parse requirement: unbalanced parentheses in "${text}"`);
  parts.push(text.slice(start));
  if (parts.some((p) => p.trim() === '')) throw new SelectorError(`unable to parse requirement: empty requirement in "${text}"`);
  return parts;
}

// --- field selectors ----------------------------------------------------------------------

type FieldValue = (object: JsonRecord) => string;

const COMMON_FIELDS: Readonly<Record<string, FieldValue>> = {
  'metadata.name': (o) => text(o, ['metadata', 'name']),
  'metadata.namespace': (o) => text(o, ['metadata', 'namespace']),
};

function regardingFields(prefix: string): Record<string, FieldValue> {
  const out: Record<string, FieldValue> = {};
  for (const field of ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath']) {
    out[`${prefix}.${field}`] = (o) => text(o, ['regarding', field]);
  }
  return out;
}

/** The fields each resource can be selected by, as the API server lists them (plus the common two). */
const FIELDS_BY_RESOURCE: Partial<Record<SimResourceName, Readonly<Record<string, FieldValue>>>> = {
  pods: {
    'spec.nodeName': podNodeName,
    'spec.restartPolicy': (o) => text(o, ['spec', 'restartPolicy']),
    'spec.schedulerName': (o) => text(o, ['spec', 'schedulerName']),
    'spec.serviceAccountName': (o) => text(o, ['spec', 'serviceAccountName']),
    'spec.hostNetwork': (o) => String(valueAt(o, ['spec', 'hostNetwork']) === true),
    'status.phase': (o) => text(o, ['status', 'phase']),
    'status.podIP': (o) => text(o, ['status', 'podIP']),
    'status.nominatedNodeName': (o) => text(o, ['status', 'nominatedNodeName']),
  },
  nodes: { 'spec.unschedulable': (o) => String(valueAt(o, ['spec', 'unschedulable']) === true) },
  namespaces: { 'status.phase': (o) => text(o, ['status', 'phase']) },
  // events.k8s.io/v1 Events; the core/v1 names select the same fields.
  events: {
    ...regardingFields('regarding'),
    ...regardingFields('involvedObject'),
    reason: (o) => text(o, ['reason']),
    type: (o) => text(o, ['type']),
    reportingController: (o) => text(o, ['reportingController']),
    source: (o) => text(o, ['deprecatedSource', 'component']),
  },
};

interface FieldTerm {
  field: string;
  read: FieldValue;
  negate: boolean;
  value: string;
}

function fieldTerms(resource: SimResourceName, selector: string | null | undefined): FieldTerm[] | undefined {
  if (!selector || selector.trim() === '') return undefined;
  const fields = { ...COMMON_FIELDS, ...FIELDS_BY_RESOURCE[resource] };
  return selector.split(',').map((term) => {
    const m = /^\s*([^=!\s]+)\s*(==|=|!=)(.*)$/.exec(term);
    if (!m) throw new SelectorError(`invalid selector: '${selector}'; can't understand '${term}'`);
    const [, field = '', op, value = ''] = m;
    const read = Object.hasOwn(fields, field) ? fields[field] : undefined;
    if (!read) throw new SelectorError(`field label not supported: ${field}`);
    return { field, read, negate: op === '!=', value: value.trim() };
  });
}

/** `status.phase=Pending,spec.nodeName!=` → a predicate; undefined for an empty selector. */
export function parseFieldSelector(resource: SimResourceName, selector: string | null | undefined): ObjectPredicate | undefined {
  const terms = fieldTerms(resource, selector);
  if (!terms) return undefined;
  return (object) => terms.every((t) => (t.read(object) === t.value) !== t.negate);
}

/**
 * The node a pod field selector requires with `spec.nodeName=X` (the field the API server
 * indexes pods by); undefined when it requires none. Other terms still have to be matched.
 */
export function requiredNodeName(resource: SimResourceName, selector: string | null | undefined): string | undefined {
  if (resource !== 'pods') return undefined;
  return fieldTerms(resource, selector)?.find((t) => t.field === 'spec.nodeName' && !t.negate)?.value;
}

function valueAt(object: JsonRecord, path: readonly string[]): unknown {
  let current: unknown = object;
  for (const key of path) {
    if (!isRecord(current)) return undefined;
    current = current[key];
  }
  return current;
}

function text(object: JsonRecord, path: readonly string[]): string {
  const value = valueAt(object, path);
  return typeof value === 'string' ? value : '';
}
