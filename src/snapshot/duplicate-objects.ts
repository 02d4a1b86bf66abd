/**
 * The same object in two capture files (two captures given together, a folder holding both a
 * `kubectl get pods` and a `kubectl get all`): identical copies are one object, silently; copies
 * that differ are a note naming both files and the one used, as the scan may then judge a state
 * the cluster has left (docs/capture.md "Files that hold the same object").
 *
 * Which copy: for Kubernetes objects, the higher `resourceVersion` when both are numbers. It is
 * etcd's revision of the object's last write, one counter for the whole cluster, so the higher one
 * is the later state (Kubernetes calls it opaque; every API server backed by etcd writes it so).
 * Otherwise (no number, equal versions, an EC2 instance) the file read later, as before: files are
 * read in sorted order, so the choice is the same on every run.
 */
import type { Instance } from '../domain/aws.ts';
import type { KubeObject } from '../domain/kube.ts';

/** Notes past this count are summed up in one line: two whole captures given together differ everywhere. */
const NOTES_SHOWN = 5;

export class DuplicateObjects {
  /**
   * Per kind, per object key: the file its kept copy came from. Maps of maps, not one map of
   * joined keys: a live scan passes every object it reads through here, and a joined key is one
   * more string to build and hash per object.
   */
  readonly #kubeOrigins = new Map<string, Map<string, string>>();
  readonly #instanceOrigins = new Map<string, string>();
  readonly #notes: string[] = [];
  #more = 0;

  /** Whether `incoming` (from `path`) replaces `existing` in the snapshot. */
  kubeObject(key: string, existing: KubeObject | undefined, incoming: KubeObject, path: string): boolean {
    const kind = incoming.kind ?? '';
    let origins = this.#kubeOrigins.get(kind);
    if (!origins) {
      origins = new Map();
      this.#kubeOrigins.set(kind, origins);
    }
    // Named only for a note: built for a differing duplicate, not for every object of a scan.
    const name = (): string => `${incoming.kind ?? 'object'} ${key.startsWith('/') ? key.slice(1) : key}`;
    return this.#choose(origins, key, name, existing, incoming, path, () => {
      const [before, after] = [versionOf(existing), versionOf(incoming)];
      if (before === undefined || after === undefined || before === after) return undefined;
      return after > before
        ? { incomingWins: true, why: `resourceVersion ${after} is newer than ${before}` }
        : { incomingWins: false, why: `resourceVersion ${before} is newer than ${after}` };
    });
  }

  instance(existing: Instance | undefined, incoming: Instance, path: string): boolean {
    return this.#choose(
      this.#instanceOrigins,
      incoming.id,
      () => `Instance ${incoming.id}`,
      existing,
      incoming,
      path,
      () => undefined,
    );
  }

  /** One line per object kept from one of several differing copies, the first few of them. */
  notes(): string[] {
    const more = this.#more > 0 ? [`and ${this.#more} more objects in several files with different content`] : [];
    return [...this.#notes, ...more];
  }

  /** `origins`: where the kept copies of objects of this kind came from, by `key`. */
  #choose(
    origins: Map<string, string>,
    key: string,
    name: () => string,
    existing: unknown,
    incoming: unknown,
    path: string,
    byVersion: () => { incomingWins: boolean; why: string } | undefined,
  ): boolean {
    const from = existing === undefined ? undefined : origins.get(key);
    // First seen, or again in the same file (pages appended to one file): the later copy, silently.
    if (from === undefined || from === path) {
      origins.set(key, path);
      return true;
    }
    if (canonical(existing) === canonical(incoming)) return false;
    const decided = byVersion() ?? { incomingWins: true, why: 'the file read later' };
    const used = decided.incomingWins ? path : from;
    if (this.#notes.length < NOTES_SHOWN) {
      this.#notes.push(`${name()} is in ${from} and ${path} with different content; used the copy in ${used} (${decided.why})`);
    } else this.#more++;
    if (decided.incomingWins) origins.set(key, path);
    return decided.incomingWins;
  }
}

function versionOf(object: KubeObject | undefined): bigint | undefined {
  const version = object?.metadata?.resourceVersion;
  return typeof version === 'string' && /^\d{1,30}$/.test(version) ? BigInt(version) : undefined;
}

/** JSON with every object's keys sorted: kubectl's YAML sorts keys, its JSON does not. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
