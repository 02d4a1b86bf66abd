/**
 * Strategic merge patches (`application/strategic-merge-patch+json`) as the API server applies
 * them to the built-in kinds: maps merge, `null` deletes a key, lists of objects that have a
 * patch merge key (containers, env, volumes by `name`; volumeMounts by `mountPath`; conditions
 * by `type`, ...) merge element by element, `finalizers` merge as a set, every other list is
 * replaced. Directives: `$patch: replace|delete|merge` on a map or a list element,
 * `$retainKeys` and `$deleteFromPrimitiveList/<field>`; `$setElementOrder/<field>` is accepted and
 * ignored (merged lists keep the target's order, new elements last).
 *
 * The merge keys are those of the Kubernetes API types (`patchMergeKey` in k8s.io/api), looked up
 * by field name: the simulator serves no two kinds whose same-named lists differ in key.
 */
import { isRecord, type JsonRecord } from '../domain/shape.ts';
import { badRequest } from './status.ts';

/** Field name → the key its elements are merged by; `ports` picks `containerPort` or `port` (Service). */
const MERGE_KEYS: Readonly<Record<string, string>> = {
  containers: 'name',
  initContainers: 'name',
  ephemeralContainers: 'name',
  volumes: 'name',
  imagePullSecrets: 'name',
  env: 'name',
  resourceClaims: 'name',
  schedulingGates: 'name',
  volumeMounts: 'mountPath',
  volumeDevices: 'devicePath',
  conditions: 'type',
  addresses: 'type',
  ownerReferences: 'uid',
  hostAliases: 'ip',
  topologySpreadConstraints: 'topologyKey',
};

/** Lists of scalars merged as sets (`patchStrategy:"merge"` without a key). */
const MERGED_SCALAR_LISTS: ReadonlySet<string> = new Set(['finalizers']);

const DELETE_FROM = '$deleteFromPrimitiveList/';

export function strategicMerge(target: JsonRecord, patch: JsonRecord): JsonRecord {
  return mergeMap(target, patch) ?? {};
}

/** The merged map; undefined when the patch says `$patch: delete`. */
function mergeMap(target: unknown, patch: JsonRecord): JsonRecord | undefined {
  const directive = patch.$patch;
  if (directive === 'delete') return undefined;
  if (directive === 'replace') return withoutDirectives(patch);
  if (directive !== undefined && directive !== 'merge') throw badRequest(`unknown patch type: ${String(directive)}`);
  const out: JsonRecord = isRecord(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith(DELETE_FROM)) {
      const field = key.slice(DELETE_FROM.length);
      if (!Array.isArray(value)) throw badRequest(`${key}: the value must be a list`);
      if (Array.isArray(out[field])) out[field] = out[field].filter((v) => !value.some((d) => sameValue(d, v)));
      continue;
    }
    if (key.startsWith('$')) continue;
    if (value === null) {
      delete out[key];
      continue;
    }
    const merged = mergeValue(key, out[key], value);
    if (merged === undefined) delete out[key];
    else out[key] = merged;
  }
  const retain = patch.$retainKeys;
  if (Array.isArray(retain)) {
    for (const key of Object.keys(out)) if (!retain.includes(key)) delete out[key];
  }
  return out;
}

function mergeValue(field: string, target: unknown, patch: unknown): unknown {
  if (isRecord(patch)) return mergeMap(target, patch);
  if (!Array.isArray(patch)) return patch;
  if (MERGED_SCALAR_LISTS.has(field)) return mergeScalarList(target, patch);
  const key = mergeKeyOf(field, patch, target);
  if (key === undefined) return patch.filter((e) => !(isRecord(e) && e.$patch !== undefined)).map((e) => withoutDirectives(e));
  return mergeKeyedList(Array.isArray(target) ? target : [], patch, key);
}

function mergeKeyOf(field: string, patch: readonly unknown[], target: unknown): string | undefined {
  if (field !== 'ports') return MERGE_KEYS[field];
  const elements = [...patch, ...(Array.isArray(target) ? target : [])];
  return elements.some((e) => isRecord(e) && e.containerPort !== undefined) ? 'containerPort' : 'port';
}

/** Elements merged by their key: matched ones merge, new ones are appended, `$patch: delete` removes. */
function mergeKeyedList(target: readonly unknown[], patch: readonly unknown[], key: string): unknown[] {
  if (patch.some((e) => isRecord(e) && e.$patch === 'replace')) {
    return patch.filter((e) => !(isRecord(e) && e.$patch === 'replace')).map((e) => withoutDirectives(e));
  }
  const out = [...target];
  for (const element of patch) {
    if (!isRecord(element)) throw badRequest(`a list merged by ${key} must hold objects`);
    if (!Object.hasOwn(element, key))
      throw badRequest(`map: ${JSON.stringify(element)} does not contain declared merge key: ${key}`);
    const index = out.findIndex((e) => isRecord(e) && sameValue(e[key], element[key]));
    if (element.$patch === 'delete') {
      if (index >= 0) out.splice(index, 1);
      continue;
    }
    const merged = mergeMap(index >= 0 ? out[index] : undefined, element);
    if (merged === undefined) continue;
    if (index >= 0) out[index] = merged;
    else out.push(merged);
  }
  return out;
}

function mergeScalarList(target: unknown, patch: readonly unknown[]): unknown[] {
  const out = Array.isArray(target) ? [...target] : [];
  for (const value of patch) if (!out.some((v) => sameValue(v, value))) out.push(value);
  return out;
}

function withoutDirectives(value: JsonRecord): JsonRecord;
function withoutDirectives(value: unknown): unknown;
function withoutDirectives(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => withoutDirectives(v));
  if (!isRecord(value)) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => !k.startsWith('$'))
      .map(([k, v]) => [k, withoutDirectives(v)]),
  );
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
