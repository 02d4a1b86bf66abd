/**
 * WATCH (`?watch=true` on a collection, as `kubectl get -w` and informers send it): a chunked
 * stream of newline-delimited WatchEvents. Without a resourceVersion (or with `0`) it starts
 * with an ADDED event per existing object; with one, it replays the writes after it (an ERROR
 * event with a 410 Status when that is older than the store remembers, as the API server's watch
 * cache answers). Then MODIFIED and DELETED as the store changes. It ends after `timeoutSeconds`
 * (default 30 minutes, the API server's minimum request timeout) or when the server stops.
 * Table requests get each object as a one-row Table, the column definitions in the first only.
 */
import type { ServerResponse } from 'node:http';
import { jsonText } from '../domain/json.ts';
import type { JsonRecord } from '../domain/shape.ts';
import { fullBody, predicateOf, type ListView } from './kube-list.ts';
import type { KubeStore, SimResourceName, StoreChange, StoredObject } from './kube-store.ts';
import { badRequest } from './status.ts';
import { includeObjectOf, tableOf, wantsTable } from './tables/table.ts';

export interface WatchRequest {
  resource: SimResourceName;
  namespace: string | undefined;
  view?: ListView;
  query: URLSearchParams;
  accept: string;
  now(): Date;
}

const DEFAULT_TIMEOUT_SECONDS = 1800;

/** Checks what can be refused before the stream starts (a 400 then is an ordinary answer). */
export function checkWatchRequest(request: WatchRequest): void {
  predicateOf(request.resource, request.query);
  if (wantsTable(request.accept)) includeObjectOf(request.query);
  const timeout = request.query.get('timeoutSeconds');
  if (timeout !== null && !/^\d+$/.test(timeout)) {
    throw badRequest(`timeoutSeconds: Invalid value: "${timeout}": must be a non-negative integer`);
  }
  const version = request.query.get('resourceVersion');
  if (version !== null && version !== '' && !/^\d+$/.test(version)) {
    throw badRequest(`resourceVersion: Invalid value: "${version}": must be an integer`);
  }
}

/**
 * Streams the watch on `res`; returns the function that ends it (the server calls it when it
 * stops). The caller has already answered faults and authentication.
 */
export function streamWatch(store: KubeStore, request: WatchRequest, res: ServerResponse, onEnd: () => void): () => void {
  const matches = predicateOf(request.resource, request.query);
  const table = wantsTable(request.accept);
  const include = table ? includeObjectOf(request.query) : 'Object';
  let first = true;
  const encode = (type: string, stored: StoredObject): string => {
    const object = table
      ? tableOf(request.resource, [stored.object], {
          include,
          now: request.now(),
          columns: first,
          ...(request.view ? { render: request.view.render } : {}),
        })
      : request.view
        ? request.view.render(stored.object)
        : (JSON.parse(fullBody(stored).toString('utf8')) as JsonRecord);
    first = false;
    return `${jsonText({ type, object })}\n`;
  };
  const relevant = (stored: StoredObject) =>
    stored.resource === request.resource &&
    (request.namespace === undefined || stored.namespace === request.namespace) &&
    (!matches || matches(stored.object));

  res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
  const version = request.query.get('resourceVersion');
  let ended = false;
  const stopWatching = store.watch((change) => {
    if (!ended && relevant(change.stored)) res.write(encode(change.type, change.stored));
  });
  const end = () => {
    if (ended) return;
    ended = true;
    stopWatching();
    clearTimeout(timer);
    res.end();
    onEnd();
  };
  const seconds = Number(request.query.get('timeoutSeconds') ?? DEFAULT_TIMEOUT_SECONDS);
  const timer = setTimeout(end, seconds * 1000);
  res.on('close', end);
  if (version === null || version === '' || version === '0') {
    for (const stored of store.list(request.resource, request.namespace)) {
      if (relevant(stored)) res.write(encode('ADDED', stored));
    }
  } else {
    const changes: readonly StoreChange[] | undefined = store.changesSince(Number(version));
    if (changes === undefined) {
      res.write(`${jsonText({ type: 'ERROR', object: tooOld(version, store.resourceVersion) })}\n`);
      end();
      return end;
    }
    for (const change of changes) if (relevant(change.stored)) res.write(encode(change.type, change.stored));
  }
  return end;
}

function tooOld(requested: string, current: string): JsonRecord {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `too old resource version: ${requested} (${current})`,
    reason: 'Expired',
    code: 410,
  };
}
