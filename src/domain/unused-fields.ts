import { isRecord } from './shape.ts';

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * Drops what no detector reads and what makes up much of a real capture: `metadata.managedFields`
 * (server-side apply bookkeeping, often half of every object), the
 * `kubectl.kubernetes.io/last-applied-configuration` annotation (a copy of the whole manifest),
 * and a Node's `status.images` (every image on the node, with all its names).
 * Called on each object as soon as it is parsed, so a 50,000-pod capture never holds them all.
 * Anything that is not a Kubernetes object passes unchanged.
 */
export function dropUnusedFields(value: unknown): unknown {
  if (!isRecord(value) || !isRecord(value.metadata)) return value;
  dropNodeImages(value);
  const metadata = value.metadata;
  const annotations = metadata.annotations;
  const lastApplied = isRecord(annotations) && Object.hasOwn(annotations, LAST_APPLIED);
  if (!lastApplied && !Object.hasOwn(metadata, 'managedFields')) return value;
  // Rebuilt rather than `delete`d: V8 keeps objects that lost a property in a slower, larger form.
  const { managedFields: _managed, ...kept } = metadata;
  if (lastApplied) {
    const { [LAST_APPLIED]: _lastApplied, ...otherAnnotations } = annotations;
    kept.annotations = otherAnnotations;
  }
  value.metadata = kept;
  return value;
}

/** Items of a NodeList read from the API carry no kind: a Node is what has `status.nodeInfo`. */
function dropNodeImages(object: Record<string, unknown>): void {
  const status = object.status;
  if (!isRecord(status) || !Object.hasOwn(status, 'images') || !isRecord(status.nodeInfo)) return;
  if (object.kind !== undefined && object.kind !== 'Node') return;
  const { images: _images, ...kept } = status;
  object.status = kept;
}

/**
 * `dropUnusedFields` for a value parsed whole (YAML): the value itself, and the elements of a
 * top-level list or of its top-level lists (`items`), where the JSON reader applies it too.
 */
export function dropUnusedFieldsThroughout(value: unknown): unknown {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = dropUnusedFields(value[i]);
    return value;
  }
  if (!isRecord(value)) return value;
  for (const member of Object.values(value)) if (Array.isArray(member)) dropUnusedFieldsThroughout(member);
  return dropUnusedFields(value);
}
