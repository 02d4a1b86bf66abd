/**
 * The simulated cluster's objects. Each object's JSON is serialised once per write and kept, so
 * a list of 50,000 pods is a join of cached strings, never a re-serialisation of the store.
 */
import { createHash } from 'node:crypto';
import { KUBE_RESOURCES, apiVersionOf, type KubeResourceInfo, type KubeResourceName } from '../ports/kubernetes.ts';
import { jsonText } from '../domain/json.ts';
import { isRecord, type JsonRecord } from '../domain/shape.ts';

/**
 * The resources the simulator serves: those the product reads, plus what every API server has
 * that kubectl or the capture script asks for (namespaces).
 */
export type SimResourceName = KubeResourceName | 'namespaces';

export const SIM_RESOURCES: Readonly<Record<SimResourceName, KubeResourceInfo>> = {
  ...KUBE_RESOURCES,
  namespaces: { group: '', version: 'v1', kind: 'Namespace', namespaced: false },
};

/** Resources whose `metadata.generation` counts spec changes (workloads, CRDs, custom resources). */
const GENERATION_RESOURCES: ReadonlySet<SimResourceName> = new Set([
  'deployments',
  'replicasets',
  'customresourcedefinitions',
  'nodeclaims',
  'nodepools',
  'ec2nodeclasses',
]);

export interface StoredObject {
  readonly resource: SimResourceName;
  readonly namespace: string | undefined;
  readonly name: string;
  /** `namespace \0 name`: sorts by namespace, then name. */
  readonly key: string;
  /** The object as stored; never mutate it (writes replace it). */
  readonly object: JsonRecord;
  /** UTF-8 JSON of the object without `apiVersion` and `kind` (how typed lists print their items). */
  readonly body: Buffer;
  /** `body` as text. */
  readonly bodyJson: string;
}

class StoredEntry implements StoredObject {
  readonly resource: SimResourceName;
  readonly namespace: string | undefined;
  readonly name: string;
  readonly key: string;
  readonly object: JsonRecord;
  #body: Buffer | (() => Buffer);

  /** `body` may be a function: a deleted object's body is serialised only if a watch reads it. */
  constructor(
    resource: SimResourceName,
    namespace: string | undefined,
    name: string,
    object: JsonRecord,
    body: Buffer | (() => Buffer),
  ) {
    this.resource = resource;
    this.namespace = namespace;
    this.name = name;
    this.key = objectKey(namespace, name);
    this.object = object;
    this.#body = body;
  }

  get body(): Buffer {
    if (typeof this.#body === 'function') this.#body = this.#body();
    return this.#body;
  }

  get bodyJson(): string {
    return this.body.toString('utf8');
  }
}

/** A list denied by the cluster's access rules (a snapshot gap), answered with `status`. */
export interface AccessDenial {
  /** A resource, or `pods/log` for the controller's logs. */
  resource: SimResourceName | 'pods/log';
  status: number;
  reason: string;
  message: string;
}

/** One write to the store, as a watch reports it. */
export interface StoreChange {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  /** The object after the write; for DELETED, as it was, at the delete's resourceVersion. */
  readonly stored: StoredObject;
  readonly resourceVersion: number;
}

/** How many past writes a watch can start from, like the API server's watch cache. */
const CHANGE_HISTORY = 1000;

class StoreError extends Error {
  override name = 'StoreError';
}

/**
 * Objects grouped by one field's value, each group sorted by key when first listed: the API
 * server's index of pods by `spec.nodeName`, so a per-node list reads that node's pods only.
 */
class FieldIndex {
  readonly #valueOf: (object: JsonRecord) => string;
  readonly #groups = new Map<string, Map<string, StoredObject>>();
  readonly #sorted = new Map<string, StoredObject[]>();

  constructor(valueOf: (object: JsonRecord) => string) {
    this.#valueOf = valueOf;
  }

  /** Files `stored` under its value, replacing `previous` (the same key as it was before). */
  set(stored: StoredObject, previous: StoredObject | undefined): void {
    const value = this.#valueOf(stored.object);
    const sorted = this.#sorted.get(value);
    if (previous && this.#valueOf(previous.object) === value && sorted) {
      this.#groups.get(value)?.set(stored.key, stored);
      sorted[lowerBound(sorted, stored.key)] = stored;
      return;
    }
    if (previous) this.delete(previous);
    let group = this.#groups.get(value);
    if (!group) {
      group = new Map();
      this.#groups.set(value, group);
    }
    group.set(stored.key, stored);
    this.#sorted.delete(value);
  }

  delete(stored: StoredObject): void {
    const value = this.#valueOf(stored.object);
    const group = this.#groups.get(value);
    if (!group?.delete(stored.key)) return;
    if (group.size === 0) this.#groups.delete(value);
    this.#sorted.delete(value);
  }

  /** The objects whose field is `value`, sorted by key. */
  sortedOf(value: string): readonly StoredObject[] {
    let sorted = this.#sorted.get(value);
    if (!sorted) {
      sorted = [...(this.#groups.get(value)?.values() ?? [])].sort(byKey);
      this.#sorted.set(value, sorted);
    }
    return sorted;
  }
}

function byKey(a: StoredObject, b: StoredObject): number {
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

class ResourceTable {
  readonly byKey = new Map<string, StoredObject>();
  #sorted: StoredObject[] | undefined;
  readonly index: FieldIndex | undefined;

  constructor(index?: FieldIndex) {
    this.index = index;
  }

  sorted(): readonly StoredObject[] {
    this.#sorted ??= [...this.byKey.values()].sort(byKey);
    return this.#sorted;
  }

  set(stored: StoredObject): void {
    const previous = this.byKey.get(stored.key);
    this.byKey.set(stored.key, stored);
    this.index?.set(stored, previous);
    if (!this.#sorted) return;
    if (!previous) {
      this.#sorted = undefined;
      return;
    }
    this.#sorted[lowerBound(this.#sorted, stored.key)] = stored;
  }

  delete(key: string): void {
    const existing = this.byKey.get(key);
    if (!existing) return;
    this.byKey.delete(key);
    this.index?.delete(existing);
    this.#sorted = undefined;
  }
}

/** A pod's `spec.nodeName` as its field selector reads it: '' when unset (a pod not yet scheduled). */
export function podNodeName(pod: JsonRecord): string {
  const spec = pod.spec;
  return isRecord(spec) && typeof spec.nodeName === 'string' ? spec.nodeName : '';
}

/** The objects of one namespace in a list sorted by key; all of them when `namespace` is undefined. */
function inNamespace(sorted: readonly StoredObject[], namespace: string | undefined): readonly StoredObject[] {
  if (namespace === undefined) return sorted;
  return sorted.slice(lowerBound(sorted, `${namespace}\u0000`), lowerBound(sorted, `${namespace}\u0001`));
}

function objectKey(namespace: string | undefined, name: string): string {
  return `${namespace ?? ''}\u0000${name}`;
}

/** Index of the first object whose key is >= `key`. */
export function lowerBound(sorted: readonly StoredObject[], key: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid]?.key ?? '') < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export class KubeStore {
  readonly #tables = new Map<SimResourceName, ResourceTable>();
  readonly #logs = new Map<string, Map<string, readonly string[]>>();
  /** The previous (terminated) containers' logs, as `#logs`. */
  readonly #previousLogs = new Map<string, Map<string, readonly string[]>>();
  #resourceVersion = 0;
  /** Continue tokens issued before this resourceVersion are expired (410 Gone). */
  #compactedAt = 0;
  /** Lists the cluster's access rules deny (from snapshot gaps); the server answers them with a fault. */
  readonly denials: AccessDenial[] = [];
  /** Kubernetes version served on /version, e.g. `1.32`. */
  kubernetesVersion = '1.32';
  /**
   * Resources the store does not know the whole of (seeded from a capture that did not hold them):
   * their absence is "not captured", not "none exist", where the simulator judges from them.
   */
  readonly unknown = new Set<SimResourceName>();

  /** Whether the store holds all there is of this resource (true for a store built through the API). */
  knows(resource: SimResourceName): boolean {
    return !this.unknown.has(resource);
  }
  readonly #changes: StoreChange[] = [];
  /** The newest resourceVersion whose write the history no longer holds. */
  #forgottenUpTo = 0;

  readonly #watchers = new Set<(change: StoreChange) => void>();

  /** Calls `listener` after every write from now on; returns the function that stops it. */
  watch(listener: (change: StoreChange) => void): () => void {
    this.#watchers.add(listener);
    return () => this.#watchers.delete(listener);
  }

  /** The writes after `resourceVersion`, oldest first; undefined when older ones were forgotten. */
  changesSince(resourceVersion: number): readonly StoreChange[] | undefined {
    if (resourceVersion < this.#forgottenUpTo) return undefined;
    return this.#changes.filter((c) => c.resourceVersion > resourceVersion);
  }

  /**
   * The resourceVersion just before the oldest write the history holds: the watch cache's
   * `oldest-1`, which its 410 `too old resource version: X (Y)` names as Y.
   */
  get historyStartsAfter(): number {
    return (this.#changes[0]?.resourceVersion ?? this.#resourceVersion + 1) - 1;
  }

  #record(type: StoreChange['type'], stored: StoredObject): void {
    const change = { type, stored, resourceVersion: this.#resourceVersion };
    this.#changes.push(change);
    if (this.#changes.length > CHANGE_HISTORY) this.#forgottenUpTo = this.#changes.shift()?.resourceVersion ?? 0;
    for (const watcher of this.#watchers) watcher(change);
  }

  get resourceVersion(): string {
    return String(this.#resourceVersion);
  }

  get compactedResourceVersion(): number {
    return this.#compactedAt;
  }

  /** Expires every continue token issued so far, like etcd compaction. */
  compact(): void {
    this.#compactedAt = ++this.#resourceVersion;
  }

  get(resource: SimResourceName, name: string, namespace?: string): StoredObject | undefined {
    return this.#table(resource).byKey.get(objectKey(scopedNamespace(resource, namespace), name));
  }

  /** Objects sorted by namespace then name; of one namespace when given. */
  list(resource: SimResourceName, namespace?: string): readonly StoredObject[] {
    return inNamespace(this.#table(resource).sorted(), SIM_RESOURCES[resource].namespaced ? namespace : undefined);
  }

  /** The pods whose `spec.nodeName` is `nodeName` ('' for unscheduled ones), sorted as `list`; of one namespace when given. */
  podsOnNode(nodeName: string, namespace?: string): readonly StoredObject[] {
    return inNamespace(this.#table('pods').index?.sortedOf(nodeName) ?? [], namespace);
  }

  /** Whether `list(resource, namespace)` holds an object sorting after `key`, without copying it. */
  hasAfter(resource: SimResourceName, namespace: string | undefined, key: string): boolean {
    const sorted = this.#table(resource).sorted();
    const scoped = namespace !== undefined && SIM_RESOURCES[resource].namespaced;
    const end = scoped ? lowerBound(sorted, `${namespace}\u0001`) : sorted.length;
    const at = lowerBound(sorted, key);
    return (sorted[at]?.key === key ? at + 1 : at) < end;
  }

  /**
   * Creates or replaces an object. Sets `apiVersion`/`kind`, a new `resourceVersion`, a `uid`
   * (derived from the name when absent, so runs are reproducible) and, for workloads and custom
   * resources, `generation` (1 on create; +1 when `spec` changed). Namespaces appear as used.
   * `dryRun` returns what would be stored and changes nothing.
   */
  put(resource: SimResourceName, object: JsonRecord, options: { dryRun?: boolean } = {}): StoredObject {
    const info = SIM_RESOURCES[resource];
    const metadata = isRecord(object.metadata) ? object.metadata : {};
    const name = metadata.name;
    if (typeof name !== 'string' || name === '') throw new StoreError(`${info.kind} without metadata.name`);
    const namespace = info.namespaced ? (typeof metadata.namespace === 'string' ? metadata.namespace : 'default') : undefined;
    const key = objectKey(namespace, name);
    const table = this.#table(resource);
    const previous = table.byKey.get(key);
    const { apiVersion: _apiVersion, kind: _kind, ...body } = object;
    const nextMetadata: JsonRecord = { ...metadata, name, ...(namespace !== undefined ? { namespace } : {}) };
    if (namespace === undefined) delete nextMetadata.namespace;
    nextMetadata.uid =
      previous?.object.metadata && isRecord(previous.object.metadata) ? previous.object.metadata.uid : metadata.uid;
    if (typeof nextMetadata.uid !== 'string') nextMetadata.uid = uidFor(resource, namespace, name);
    nextMetadata.resourceVersion = String(options.dryRun ? this.#resourceVersion : ++this.#resourceVersion);
    if (GENERATION_RESOURCES.has(resource)) nextMetadata.generation = nextGeneration(previous?.object, body, metadata.generation);
    const nextBody: JsonRecord = { ...body, metadata: nextMetadata };
    const full = { apiVersion: apiVersionOf(info), kind: info.kind, ...nextBody };
    const stored = new StoredEntry(resource, namespace, name, full, Buffer.from(jsonText(nextBody)));
    if (options.dryRun) return stored;
    table.set(stored);
    this.#record(previous ? 'MODIFIED' : 'ADDED', stored);
    if (namespace !== undefined && resource !== 'namespaces') this.#ensureNamespace(namespace, metadata.creationTimestamp);
    return stored;
  }

  /** Removes an object (at once: nothing here runs finalizers); undefined when it did not exist. */
  delete(resource: SimResourceName, name: string, namespace?: string): StoredObject | undefined {
    const key = objectKey(scopedNamespace(resource, namespace), name);
    const table = this.#table(resource);
    const existing = table.byKey.get(key);
    if (!existing) return undefined;
    table.delete(key);
    this.#resourceVersion++;
    const metadata = isRecord(existing.object.metadata) ? existing.object.metadata : {};
    const object: JsonRecord = { ...existing.object, metadata: { ...metadata, resourceVersion: this.resourceVersion } };
    const { apiVersion: _apiVersion, kind: _kind, ...body } = object;
    const serialise = () => Buffer.from(jsonText(body));
    this.#record('DELETED', new StoredEntry(resource, existing.namespace, existing.name, object, serialise));
    if (resource === 'pods') {
      this.#logs.delete(key);
      this.#previousLogs.delete(key);
    }
    return existing;
  }

  /**
   * Sets a container's log; `container` undefined means whichever container is asked for.
   * `previous`: the log of the container that ran before the last restart (`kubectl logs --previous`).
   */
  setPodLog(namespace: string, pod: string, lines: readonly string[], container?: string, previous = false): void {
    const key = objectKey(namespace, pod);
    const all = previous ? this.#previousLogs : this.#logs;
    const logs = all.get(key) ?? new Map<string, readonly string[]>();
    logs.set(container ?? '', lines);
    all.set(key, logs);
  }

  /** The log lines of a pod's container; undefined when the pod has no log at all (no previous one, with `previous`). */
  podLog(namespace: string, pod: string, container?: string, previous = false): readonly string[] | undefined {
    const logs = (previous ? this.#previousLogs : this.#logs).get(objectKey(namespace, pod));
    if (!logs) return undefined;
    return (container !== undefined ? logs.get(container) : undefined) ?? logs.get('') ?? [];
  }

  hasPodLog(namespace: string, pod: string): boolean {
    return this.#logs.has(objectKey(namespace, pod));
  }

  /** A namespace as old as the first object put in it (kubectl shows its age). */
  #ensureNamespace(name: string, createdAt: unknown): void {
    if (!this.get('namespaces', name)) this.put('namespaces', namespaceObject(name, createdAt));
  }

  #table(resource: SimResourceName): ResourceTable {
    let table = this.#tables.get(resource);
    if (!table) {
      table = new ResourceTable(resource === 'pods' ? new FieldIndex(podNodeName) : undefined);
      this.#tables.set(resource, table);
    }
    return table;
  }
}

function scopedNamespace(resource: SimResourceName, namespace: string | undefined): string | undefined {
  return SIM_RESOURCES[resource].namespaced ? (namespace ?? 'default') : undefined;
}

function nextGeneration(previous: JsonRecord | undefined, body: JsonRecord, given: unknown): number {
  const before = previous && isRecord(previous.metadata) ? previous.metadata.generation : undefined;
  if (typeof before !== 'number') return typeof given === 'number' && given > 0 ? given : 1;
  return jsonText(previous?.spec) === jsonText(body.spec) ? before : before + 1;
}

/** A stable UUID-shaped uid for objects that came without one. */
function uidFor(resource: string, namespace: string | undefined, name: string): string {
  const h = createHash('sha1')
    .update(`${resource}/${namespace ?? ''}/${name}`)
    .digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export function namespaceObject(name: string, createdAt?: unknown): JsonRecord {
  return {
    metadata: {
      name,
      ...(typeof createdAt === 'string' ? { creationTimestamp: createdAt } : {}),
      labels: { 'kubernetes.io/metadata.name': name },
    },
    spec: { finalizers: ['kubernetes'] },
    status: { phase: 'Active' },
  };
}
