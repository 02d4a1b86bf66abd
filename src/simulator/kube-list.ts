/**
 * LIST with selectors and `limit` + `continue` pagination. The body is a join of each object's
 * cached JSON: nothing is re-serialised per request.
 */
import { KARPENTER_API_GROUPS } from '../domain/tags.ts';
import { apiVersionOf } from '../ports/kubernetes.ts';
import { jsonText } from '../domain/json.ts';
import { isRecord, type JsonRecord } from '../domain/shape.ts';
import { SIM_RESOURCES, lowerBound, type KubeStore, type SimResourceName, type StoredObject } from './kube-store.ts';
import { parseFieldSelector, parseLabelSelector, requiredNodeName, SelectorError, type ObjectPredicate } from './selectors.ts';
import { ApiStatusError, badRequest } from './status.ts';

export interface ListRequest {
  resource: SimResourceName;
  namespace: string | undefined;
  query: URLSearchParams;
  /** Serves the objects as another API version shows them (core/v1 Events), rendered per request. */
  view?: ListView;
}

export interface ListView {
  name: string;
  kind: string;
  apiVersion: string;
  render(object: JsonRecord): JsonRecord;
}

/** Typed lists of built-in kinds leave `apiVersion`/`kind` off their items; custom resources keep them. */
const CUSTOM_GROUPS: ReadonlySet<string> = new Set(KARPENTER_API_GROUPS);

/** Karpenter's kinds, served from CRDs rather than built into the API server. */
export function isCustomResource(resource: SimResourceName): boolean {
  return CUSTOM_GROUPS.has(SIM_RESOURCES[resource].group);
}

interface ContinueToken {
  /** Resource and namespace the token was issued for. */
  r: string;
  /** resourceVersion of the first page. */
  rv: number;
  /** Key of the last object returned. */
  after: string;
}

const EXPIRED_MESSAGE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue value from the response to list again.';

/** One page of a LIST: the matching stored objects and the list's metadata (resourceVersion, continue). */
export interface ListPage {
  objects: StoredObject[];
  metadata: JsonRecord;
}

/** Selects a LIST's page (selectors, `limit`, `continue`); what is sent is left to the caller. */
export function listPage(store: KubeStore, request: ListRequest): ListPage {
  const { resource, namespace, query, view } = request;
  const matches = predicateOf(resource, query);
  const limit = limitOf(query.get('limit'));
  const scope = `${view?.name ?? resource}/${namespace ?? ''}`;
  const token = query.get('continue') ? decodeToken(query.get('continue') ?? '', scope, store) : undefined;
  const nodeName = matches ? requiredNodeName(resource, query.get('fieldSelector')) : undefined;
  // A real API server indexes pods by spec.nodeName: a per-node list reads that node's pods only.
  const all = nodeName === undefined ? store.list(resource, namespace) : store.podsOnNode(nodeName, namespace);
  let index = token ? lowerBound(all, token.after) : 0;
  if (token && all[index]?.key === token.after) index++;
  const listVersion = token ? String(token.rv) : store.resourceVersion;
  const objects: StoredObject[] = [];
  for (; index < all.length && (limit === undefined || objects.length < limit); index++) {
    const object = all[index];
    if (object && (!matches || matches(object.object))) objects.push(object);
  }
  const metadata: JsonRecord = { resourceVersion: listVersion };
  const last = objects.at(-1);
  // Continue whenever the page stopped before the end of the whole list, indexed or not.
  const more =
    nodeName === undefined
      ? index < all.length
      : last !== undefined && objects.length === limit && store.hasAfter(resource, namespace, last.key);
  if (more && last !== undefined) {
    metadata.continue = encodeToken({ r: scope, rv: Number(listVersion), after: last.key });
    if (!matches) metadata.remainingItemCount = all.length - index;
  }
  return { objects, metadata };
}

export function listBody(store: KubeStore, request: ListRequest): Buffer {
  const { resource, view } = request;
  const info = SIM_RESOURCES[resource];
  const { objects, metadata } = listPage(store, request);
  const withKind = isCustomResource(resource);
  const chunks: Buffer[] = [];
  for (const object of objects) {
    if (chunks.length > 0) chunks.push(COMMA);
    if (view) chunks.push(Buffer.from(jsonText(withoutType(view.render(object.object)))));
    else if (withKind) chunks.push(...fullChunks(object));
    else chunks.push(object.body);
  }
  const envelope = JSON.stringify({
    kind: `${view?.kind ?? info.kind}List`,
    apiVersion: view?.apiVersion ?? apiVersionOf(info),
    metadata,
  });
  return Buffer.concat([Buffer.from(`${envelope.slice(0, -1)},"items":[`), ...chunks, CLOSE]);
}

/** Typed list items carry neither apiVersion nor kind. */
function withoutType(object: JsonRecord): JsonRecord {
  const { apiVersion: _apiVersion, kind: _kind, ...rest } = object;
  return rest;
}

const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']}');
const heads = new Map<string, Buffer>();

/** `{"apiVersion":"apps/v1","kind":"Deployment",` and the rest of the body after its `{`. */
function fullChunks(stored: StoredObject): [Buffer, Buffer] {
  const empty = stored.body.length <= 2;
  const key = `${stored.resource}${empty ? '}' : ','}`;
  let head = heads.get(key);
  if (!head) {
    const info = SIM_RESOURCES[stored.resource];
    head = Buffer.from(
      `{"apiVersion":${JSON.stringify(apiVersionOf(info))},"kind":${JSON.stringify(info.kind)}${empty ? '}' : ','}`,
    );
    heads.set(key, head);
  }
  return [head, empty ? Buffer.alloc(0) : stored.body.subarray(1)];
}

/** The object as GET returns it: `apiVersion` and `kind` first. */
export function fullBody(stored: StoredObject): Buffer {
  return Buffer.concat(fullChunks(stored));
}

/** The label and field selectors of a LIST or WATCH; undefined when it selects everything. */
export function predicateOf(resource: SimResourceName, query: URLSearchParams): ObjectPredicate | undefined {
  try {
    const byLabel = parseLabelSelector(query.get('labelSelector'));
    const byField = parseFieldSelector(resource, query.get('fieldSelector'));
    if (byLabel && byField) return (o) => byLabel(o) && byField(o);
    return byLabel ?? byField;
  } catch (error) {
    if (error instanceof SelectorError) throw badRequest(error.message);
    throw error;
  }
}

function limitOf(text: string | null): number | undefined {
  if (text === null || text === '') return undefined;
  if (!/^\d+$/.test(text)) throw badRequest(`invalid limit: "${text}"`);
  const limit = Number(text);
  return limit > 0 ? limit : undefined;
}

function encodeToken(token: ContinueToken): string {
  return Buffer.from(JSON.stringify(token)).toString('base64url');
}

/** A token that cannot be read, was issued for another list, or predates a compaction: 410 Gone. */
function decodeToken(text: string, scope: string, store: KubeStore): ContinueToken {
  let token: unknown;
  try {
    token = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    token = undefined;
  }
  if (!isRecord(token) || token.r !== scope || typeof token.rv !== 'number' || typeof token.after !== 'string') {
    throw new ApiStatusError(410, 'Expired', `${EXPIRED_MESSAGE} (the continue token is not valid for this list)`);
  }
  if (token.rv < store.compactedResourceVersion) throw new ApiStatusError(410, 'Expired', EXPIRED_MESSAGE);
  return { r: token.r, rv: token.rv, after: token.after };
}
