/**
 * The resource paths of the API (`/api/v1/...`, `/apis/{group}/{version}/...`): GET one object,
 * LIST, POST (create), PUT (replace), PATCH, DELETE, and pod logs. Creates and updates of Karpenter
 * kinds pass the admission webhooks first (admission-webhooks.ts). Every write honours `dryRun`
 * as the API server does (`?dryRun=All`, or for DELETE the DeleteOptions body's `"dryRun":
 * ["All"]`, which is what `kubectl delete --dry-run=server` sends): the answer is what would
 * happen, and nothing is stored or removed.
 */
import { jsonText } from '../domain/json.ts';
import { isRecord, type JsonRecord } from '../domain/shape.ts';
import { resourceAt } from './discovery.ts';
import { CORE_EVENTS_VIEW } from './core-events.ts';
import { fullBody, isCustomResource, listBody, listPage, type ListView } from './kube-list.ts';
import { SIM_RESOURCES, type KubeStore, type SimResourceName, type StoredObject } from './kube-store.ts';
import { applyPatch } from './patch.ts';
import { admitWrite } from './admission-webhooks.ts';
import { includeObjectOf, tableOf, wantsTable } from './tables/table.ts';
import { podLog } from './pod-logs.ts';
import {
  alreadyExists,
  ApiStatusError,
  badRequest,
  conflict,
  invalid,
  METHOD_NOT_ALLOWED,
  notFound,
  successStatusBody,
} from './status.ts';

export type ResourceRoute =
  | { type: 'collection'; resource: SimResourceName; namespace?: string; view?: ListView }
  | { type: 'object'; resource: SimResourceName; namespace?: string; name: string; view?: ListView }
  | { type: 'log'; namespace: string; name: string };

export interface ApiRequest {
  method: string;
  query: URLSearchParams;
  body: string;
  contentType: string;
  /** The Accept header: a Table when kubectl asks for one (tables/table.ts). */
  accept?: string;
  /** The simulated cluster's time, for the ages a Table shows. */
  now?: Date;
}

export interface ApiResponse {
  status: number;
  body: string | Buffer;
  contentType?: string;
}

/** Something in the simulated cluster that reacts to API calls as a controller would (karpenter-controller.ts). */
export interface ApiReactor {
  /** Before the first page of a LIST of `resource` is answered. */
  beforeList?(resource: SimResourceName): void;
  /** After an object was deleted through the API (not in a dry run). */
  afterDelete?(deleted: StoredObject): void;
}

/** Path segments after `/api/v1` or `/apis/{group}/{version}` → the route, if it is one. */
export function resolveRoute(group: string, version: string, rest: readonly string[]): ResourceRoute | undefined {
  const [first, second, third, fourth, fifth] = rest;
  if (group === '' && version === 'v1' && (first === 'events' || third === 'events')) return coreEventsRoute(rest);
  if (first === 'namespaces' && second && third && rest.length >= 3) {
    const resource = resourceAt(group, version, third);
    if (!resource || !SIM_RESOURCES[resource].namespaced) return undefined;
    if (rest.length === 3) return { type: 'collection', resource, namespace: second };
    if (rest.length === 4 && fourth) return { type: 'object', resource, namespace: second, name: fourth };
    if (rest.length === 5 && resource === 'pods' && fourth && fifth === 'log')
      return { type: 'log', namespace: second, name: fourth };
    return undefined;
  }
  const resource = first ? resourceAt(group, version, first) : undefined;
  if (!resource) return undefined;
  if (rest.length === 1) return { type: 'collection', resource };
  if (rest.length === 2 && second && !SIM_RESOURCES[resource].namespaced) return { type: 'object', resource, name: second };
  return undefined;
}

/** `/api/v1/events`, `/api/v1/namespaces/{ns}/events[/{name}]`: the events.k8s.io objects seen as core/v1. */
function coreEventsRoute(rest: readonly string[]): ResourceRoute | undefined {
  const [first, namespace, , name] = rest;
  const view = CORE_EVENTS_VIEW;
  if (first === 'events' && rest.length === 1) return { type: 'collection', resource: 'events', view };
  if (first !== 'namespaces' || !namespace) return undefined;
  if (rest.length === 3) return { type: 'collection', resource: 'events', namespace, view };
  if (rest.length === 4 && name) return { type: 'object', resource: 'events', namespace, name, view };
  return undefined;
}

export function serveResource(store: KubeStore, route: ResourceRoute, request: ApiRequest, reactor?: ApiReactor): ApiResponse {
  if (route.type === 'log') {
    if (request.method !== 'GET') throw METHOD_NOT_ALLOWED;
    return { status: 200, body: podLog(store, route.namespace, route.name, request.query), contentType: 'text/plain' };
  }
  if (route.type === 'collection') {
    if (request.method === 'POST' && !route.view) {
      return { status: 201, body: fullBody(createObject(store, route.resource, route.namespace, request)) };
    }
    if (request.method !== 'GET') throw METHOD_NOT_ALLOWED;
    const { resource, namespace, view } = route;
    if (!request.query.has('continue')) reactor?.beforeList?.(resource);
    if (wantsTable(request.accept ?? '')) return { status: 200, body: listTable(store, route, request) };
    return { status: 200, body: listBody(store, { resource, namespace, query: request.query, ...(view ? { view } : {}) }) };
  }
  const { resource, name, namespace, view } = route;
  if (request.method === 'GET' && wantsTable(request.accept ?? '')) {
    const object = existing(store, resource, name, namespace).object;
    return { status: 200, body: jsonText(tableOf(resource, [object], tableOptions(request, view))) };
  }
  if (view) {
    if (request.method !== 'GET') throw METHOD_NOT_ALLOWED;
    return { status: 200, body: jsonText(view.render(existing(store, resource, name, namespace).object)) };
  }
  switch (request.method) {
    case 'GET':
      return { status: 200, body: fullBody(existing(store, resource, name, namespace)) };
    case 'PUT':
      return { status: 200, body: fullBody(replaceObject(store, resource, name, namespace, request)) };
    case 'PATCH':
      return { status: 200, body: fullBody(patchObject(store, route.resource, name, namespace, request)) };
    case 'DELETE':
      return { status: 200, body: deleteObject(store, resource, name, namespace, request, reactor) };
    default:
      throw METHOD_NOT_ALLOWED;
  }
}

/** A LIST as a Table: the same page, selectors and continue token as the JSON list, from the stored objects. */
function listTable(store: KubeStore, route: ResourceRoute & { type: 'collection' }, request: ApiRequest): string {
  const { resource, namespace, view } = route;
  const page = listPage(store, { resource, namespace, query: request.query, ...(view ? { view } : {}) });
  const objects = page.objects.map((stored) => stored.object);
  return jsonText(tableOf(resource, objects, { ...tableOptions(request, view), listMetadata: page.metadata }));
}

function tableOptions(request: ApiRequest, view: ListView | undefined) {
  return { include: includeObjectOf(request.query), now: request.now ?? new Date(), ...(view ? { render: view.render } : {}) };
}

function existing(store: KubeStore, resource: SimResourceName, name: string, namespace: string | undefined): StoredObject {
  const stored = store.get(resource, name, namespace);
  if (!stored) throw notFound(resource, name);
  return stored;
}

/**
 * Optimistic concurrency as the API server does it: a `metadata.resourceVersion` in the patched
 * result that is not the current one is a 409 Conflict. A patch that changes nothing writes nothing.
 */
function patchObject(
  store: KubeStore,
  resource: SimResourceName,
  name: string,
  namespace: string | undefined,
  request: ApiRequest,
): StoredObject {
  const current = existing(store, resource, name, namespace);
  if (request.body.trim() === '') throw badRequest('the body of the request was empty');
  admitWrite(store, resource, 'UPDATE');
  const patched = applyPatch(request.contentType, current.object, request.body, isCustomResource(resource));
  const before = metadataOf(current.object);
  const after = metadataOf(patched);
  if (after.resourceVersion !== undefined && after.resourceVersion !== before.resourceVersion) throw conflict(resource, name);
  if (after.name !== before.name)
    throw invalid(resource, name, `metadata.name: Invalid value: ${JSON.stringify(after.name)}: field is immutable`);
  if (after.namespace !== before.namespace) {
    throw invalid(resource, name, `metadata.namespace: Invalid value: ${JSON.stringify(after.namespace)}: field is immutable`);
  }
  if (after.uid !== undefined && after.uid !== before.uid) {
    throw invalid(resource, name, `metadata.uid: Invalid value: ${JSON.stringify(after.uid)}: field is immutable`);
  }
  checkLabelsAndAnnotations(resource, name, after);
  const next: JsonRecord = {
    ...patched,
    apiVersion: current.object.apiVersion,
    kind: current.object.kind,
    metadata: { ...after, uid: before.uid },
  };
  const dryRun = isDryRun(request);
  if (sameObject(current.object, next)) return current;
  return store.put(resource, next, { dryRun });
}

/** POST to a collection: a new object (409 AlreadyExists when its name is taken), named in its body. */
function createObject(
  store: KubeStore,
  resource: SimResourceName,
  namespace: string | undefined,
  request: ApiRequest,
): StoredObject {
  const object = objectBody(resource, request);
  const dryRun = isDryRun(request);
  admitWrite(store, resource, 'CREATE');
  const metadata = metadataOf(object);
  const name = metadata.name;
  if (typeof name !== 'string' || name === '') throw invalid(resource, '', 'metadata.name: Required value: name is required');
  const named = checkedNamespace(resource, metadata.namespace, namespace);
  if (store.get(resource, name, named)) throw alreadyExists(resource, name);
  checkLabelsAndAnnotations(resource, name, metadata);
  const { resourceVersion: _rv, uid: _uid, ...rest } = metadata;
  return store.put(resource, { ...object, metadata: { ...rest, ...(named ? { namespace: named } : {}) } }, { dryRun });
}

/** PUT to an object: replaces it whole; a `resourceVersion` that is not the current one is a 409. */
function replaceObject(
  store: KubeStore,
  resource: SimResourceName,
  name: string,
  namespace: string | undefined,
  request: ApiRequest,
): StoredObject {
  const object = objectBody(resource, request);
  const dryRun = isDryRun(request);
  const current = existing(store, resource, name, namespace);
  admitWrite(store, resource, 'UPDATE');
  const metadata = metadataOf(object);
  const before = metadataOf(current.object);
  if (metadata.name !== name) {
    throw badRequest(`the name of the object (${String(metadata.name)}) does not match the name on the URL (${name})`);
  }
  checkedNamespace(resource, metadata.namespace, namespace);
  if (metadata.resourceVersion !== undefined && metadata.resourceVersion !== before.resourceVersion)
    throw conflict(resource, name);
  checkLabelsAndAnnotations(resource, name, metadata);
  return store.put(resource, { ...object, metadata: { ...metadata, uid: before.uid } }, { dryRun });
}

/** The JSON object of a POST or PUT, of the resource's kind (kubectl sends JSON). */
function objectBody(resource: SimResourceName, request: ApiRequest): JsonRecord {
  if (request.body.trim() === '') throw badRequest('the body of the request was empty');
  let parsed: unknown;
  try {
    parsed = JSON.parse(request.body);
  } catch {
    throw badRequest('the body of the request could not be decoded as JSON');
  }
  if (!isRecord(parsed)) throw badRequest('the body of the request must be a JSON object');
  const { kind } = SIM_RESOURCES[resource];
  if (parsed.kind !== undefined && parsed.kind !== kind) {
    throw badRequest(`the kind of the object (${String(parsed.kind)}) does not match the resource (${kind})`);
  }
  return parsed;
}

/** The namespace the object goes in: the URL's; one in the body must be the same. */
function checkedNamespace(resource: SimResourceName, inBody: unknown, inUrl: string | undefined): string | undefined {
  if (!SIM_RESOURCES[resource].namespaced) return undefined;
  if (inBody !== undefined && inBody !== inUrl) {
    throw badRequest(`the namespace of the provided object does not match the namespace sent on the request`);
  }
  return inUrl ?? 'default';
}

function deleteObject(
  store: KubeStore,
  resource: SimResourceName,
  name: string,
  namespace: string | undefined,
  request: ApiRequest,
  reactor: ApiReactor | undefined,
): string {
  const dryRun = isDryRun(request);
  const current = existing(store, resource, name, namespace);
  const preconditions = deleteOptions(request.body).preconditions;
  if (isRecord(preconditions)) {
    const metadata = metadataOf(current.object);
    if (preconditions.uid !== undefined && preconditions.uid !== metadata.uid) {
      throw new ApiStatusError(
        409,
        'Conflict',
        `Precondition failed: UID in precondition: ${String(preconditions.uid)}, UID in object meta: ${String(metadata.uid)}`,
      );
    }
    if (preconditions.resourceVersion !== undefined && preconditions.resourceVersion !== metadata.resourceVersion) {
      throw conflict(resource, name);
    }
  }
  if (!dryRun) {
    store.delete(resource, name, namespace);
    reactor?.afterDelete?.(current);
  }
  const { group } = SIM_RESOURCES[resource];
  const uid = metadataOf(current.object).uid;
  return successStatusBody({ name, group, kind: resource, ...(typeof uid === 'string' ? { uid } : {}) });
}

function deleteOptions(body: string): JsonRecord {
  if (body.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(body);
    return isRecord(parsed) ? parsed : {};
  } catch {
    throw badRequest('the body of the request could not be decoded as DeleteOptions');
  }
}

function metadataOf(object: JsonRecord): JsonRecord {
  return isRecord(object.metadata) ? object.metadata : {};
}

/** An object's labels and annotations: maps of strings, as the API server validates them on every write. */
function checkLabelsAndAnnotations(resource: SimResourceName, name: string, metadata: JsonRecord): void {
  checkStringMap(resource, name, metadata.labels, 'metadata.labels');
  checkStringMap(resource, name, metadata.annotations, 'metadata.annotations');
}

function checkStringMap(resource: SimResourceName, name: string, value: unknown, field: string): void {
  if (value === undefined || value === null) return;
  if (!isRecord(value) || !Object.values(value).every((v) => typeof v === 'string')) {
    throw invalid(resource, name, `${field}: Invalid value: must be a map of strings`);
  }
}

function sameObject(a: JsonRecord, b: JsonRecord): boolean {
  return jsonText(a) === jsonText(b);
}

/**
 * `dryRun` as the API server reads it: from the query (create, update, patch and delete options all
 * may come there) and, for DELETE, from the DeleteOptions body. Its only value is `All`; anything
 * else is refused rather than taken as a real write.
 */
function isDryRun(request: ApiRequest): boolean {
  const values: unknown[] = [...request.query.getAll('dryRun')];
  if (request.method === 'DELETE') {
    const inBody = deleteOptions(request.body).dryRun;
    if (inBody !== undefined && inBody !== null) {
      if (!Array.isArray(inBody)) throw badRequest('dryRun in DeleteOptions must be a list, e.g. ["All"]');
      values.push(...(inBody as unknown[]));
    }
  }
  const unsupported = values.find((v) => v !== 'All');
  if (unsupported !== undefined) {
    throw new ApiStatusError(
      400,
      'BadRequest',
      `dryRun: Unsupported value: ${JSON.stringify(unsupported)}: supported values: "All"`,
    );
  }
  return values.length > 0;
}
