/**
 * The three patch kinds the API server accepts on PATCH, applied to a copy of the object.
 *
 * Strategic merge patches merge lists by their patch merge key (strategic-merge.ts); the API
 * server refuses them for custom resources (Karpenter's kinds), as it has no merge keys for them.
 */
import { isRecord, type JsonRecord } from '../domain/shape.ts';
import { ApiStatusError, badRequest } from './status.ts';
import { strategicMerge } from './strategic-merge.ts';

const MERGE_PATCH = 'application/merge-patch+json';
const STRATEGIC_MERGE_PATCH = 'application/strategic-merge-patch+json';
const JSON_PATCH = 'application/json-patch+json';

/** `custom`: the object is a custom resource, which takes no strategic merge patch. */
export function applyPatch(contentType: string, object: JsonRecord, body: string, custom = false): JsonRecord {
  const type = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  if (custom && type === STRATEGIC_MERGE_PATCH) {
    // kube-apiserver's answer for a custom resource, accepted types as it lists them.
    throw new ApiStatusError(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: ${JSON_PATCH}, ${MERGE_PATCH}, application/apply-patch+yaml`,
    );
  }
  if (type !== MERGE_PATCH && type !== STRATEGIC_MERGE_PATCH && type !== JSON_PATCH) {
    throw new ApiStatusError(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: ${JSON_PATCH}, ${MERGE_PATCH}, ${STRATEGIC_MERGE_PATCH}`,
    );
  }
  let patch: unknown;
  try {
    patch = JSON.parse(body);
  } catch (error) {
    throw badRequest(`error decoding patch: ${(error as Error).message}`);
  }
  if (type === JSON_PATCH) return applyJsonPatch(object, patch);
  if (!isRecord(patch)) throw badRequest('error decoding patch: a merge patch must be a JSON object');
  if (type === STRATEGIC_MERGE_PATCH) return strategicMerge(object, patch);
  return mergePatch(object, patch) as JsonRecord;
}

/** RFC 7386: maps merge recursively, `null` deletes, anything else replaces. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isRecord(patch)) return patch;
  const out: JsonRecord = isRecord(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = mergePatch(out[key], value);
  }
  return out;
}

// --- RFC 6902 ---------------------------------------------------------------------------

type Container = JsonRecord | unknown[];

function applyJsonPatch(object: JsonRecord, patch: unknown): JsonRecord {
  if (!Array.isArray(patch)) throw badRequest('error decoding patch: a JSON patch must be a list of operations');
  let doc: unknown = structuredClone(object);
  for (const op of patch) {
    if (!isRecord(op) || typeof op.op !== 'string' || typeof op.path !== 'string') {
      throw badRequest(`error decoding patch: invalid operation ${JSON.stringify(op)}`);
    }
    doc = applyOperation(doc, op);
  }
  if (!isRecord(doc)) throw invalidPatch('the patched document is not an object');
  return doc;
}

function applyOperation(doc: unknown, op: JsonRecord): unknown {
  const path = parsePointer(String(op.path));
  switch (op.op) {
    case 'add':
      return add(doc, path, requireValue(op));
    case 'remove':
      return remove(doc, path).doc;
    case 'replace':
      get(doc, path);
      return add(remove(doc, path).doc, path, requireValue(op));
    case 'move': {
      const from = parsePointer(String(op.from ?? ''));
      const taken = remove(doc, from);
      return add(taken.doc, path, taken.value);
    }
    case 'copy':
      return add(doc, path, structuredClone(get(doc, parsePointer(String(op.from ?? '')))));
    case 'test':
      if (JSON.stringify(get(doc, path)) !== JSON.stringify(op.value)) {
        throw invalidPatch(`testing value ${String(op.path)} failed`);
      }
      return doc;
    default:
      throw badRequest(`error decoding patch: unknown operation "${op.op}"`);
  }
}

function requireValue(op: JsonRecord): unknown {
  if (!Object.hasOwn(op, 'value')) throw badRequest(`error decoding patch: "${String(op.op)}" operation has no value`);
  return structuredClone(op.value);
}

function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw badRequest(`error decoding patch: invalid JSON pointer "${pointer}"`);
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function get(doc: unknown, path: readonly string[]): unknown {
  let current = doc;
  for (const token of path) {
    const next = child(current, token);
    if (next === undefined) throw invalidPatch(`path /${path.join('/')} does not exist`);
    current = next;
  }
  return current;
}

function child(container: unknown, token: string): unknown {
  if (Array.isArray(container)) return /^\d+$/.test(token) ? container[Number(token)] : undefined;
  return isRecord(container) && Object.hasOwn(container, token) ? container[token] : undefined;
}

function parentOf(doc: unknown, path: readonly string[]): { parent: Container; last: string } {
  const last = path.at(-1);
  if (last === undefined) throw invalidPatch('the whole document cannot be patched');
  const parent = get(doc, path.slice(0, -1));
  if (!Array.isArray(parent) && !isRecord(parent)) throw invalidPatch(`/${path.slice(0, -1).join('/')} is not a container`);
  return { parent, last };
}

function add(doc: unknown, path: readonly string[], value: unknown): unknown {
  if (path.length === 0) return value;
  const { parent, last } = parentOf(doc, path);
  if (Array.isArray(parent)) {
    const index = last === '-' ? parent.length : Number(last);
    if (!/^(\d+|-)$/.test(last) || index > parent.length) throw invalidPatch(`index ${last} is out of range`);
    parent.splice(index, 0, value);
  } else {
    parent[last] = value;
  }
  return doc;
}

function remove(doc: unknown, path: readonly string[]): { doc: unknown; value: unknown } {
  const value = get(doc, path);
  const { parent, last } = parentOf(doc, path);
  if (Array.isArray(parent)) parent.splice(Number(last), 1);
  else delete parent[last];
  return { doc, value };
}

function invalidPatch(message: string): ApiStatusError {
  return new ApiStatusError(422, 'Invalid', `the server rejected our request due to an error in our request: ${message}`);
}
