/**
 * WATCH (`?watch=true` on a collection, as `kubectl get -w` and informers send it): a chunked
 * stream of newline-delimited WatchEvents. Without a resourceVersion (or with `0`) it starts
 * with an ADDED event per existing object; with one, it replays the writes after it (an ERROR
 * event with a 410 Status when that is older than the store remembers, as the API server's watch
 * cache answers). Then MODIFIED and DELETED as the store changes. It ends after `timeoutSeconds`
 * (absent or 0: 30 minutes, the API server's minimum request timeout) or when the server stops.
 * Table requests get each object as a one-row Table, the column definitions in the first only.
 */
import type { ServerResponse } from 'node:http';
import { jsonText } from '../domain/json.ts';
import { predicateOf, type ListView } from './kube-list.ts';
import type { KubeStore, SimResourceName, StoredObject } from './kube-store.ts';
import { badRequest, statusBody } from './status.ts';
import { includeObjectOf, tableOf, wantsTable } from './tables/table.ts';

export interface WatchRequest {
  resource: SimResourceName;
  namespace: string | undefined;
  view?: ListView;
  query: URLSearchParams;
  accept: string;
  now(): Date;
}

/** The API server's `--min-request-timeout` (30 minutes): a watch without timeoutSeconds, or with 0, runs this long. */
const DEFAULT_TIMEOUT_SECONDS = 1800;
/** Node's timers fire at once past 2^31-1 ms (about 24.8 days); longer watches are cut to that. */
const MAX_TIMEOUT_SECONDS = Math.floor((2 ** 31 - 1) / 1000);

/**
 * Streams the watch on `res`, registering its end in `open` (the server calls them all when it
 * stops) until it ends. What can be refused is refused before the stream starts, by throwing an
 * ApiStatusError the caller answers (a 400 then is an ordinary answer). The caller has already
 * answered faults and authentication.
 */
export function streamWatch(store: KubeStore, request: WatchRequest, res: ServerResponse, open: Set<() => void>): void {
  const matches = predicateOf(request.resource, request.query);
  const table = wantsTable(request.accept);
  const include = table ? includeObjectOf(request.query) : 'Object';
  const timeoutMs = timeoutSecondsOf(request.query) * 1000;
  const version = request.query.get('resourceVersion');
  if (version !== null && version !== '' && !/^\d+$/.test(version)) {
    throw badRequest(`resourceVersion: Invalid value: "${version}": must be an integer`);
  }
  const from = version === null || version === '' || version === '0' ? undefined : Number(version);
  const replay = from === undefined ? undefined : store.changesSince(from);

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
        : stored.object;
    first = false;
    return `${jsonText({ type, object })}\n`;
  };
  const relevant = (stored: StoredObject) =>
    stored.resource === request.resource &&
    (request.namespace === undefined || stored.namespace === request.namespace) &&
    (!matches || matches(stored.object));

  res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
  if (from !== undefined && replay === undefined) {
    // As the watch cache: the expiry is the stream's only event (client-go then lists afresh).
    const message = `too old resource version: ${from} (${store.historyStartsAfter})`;
    res.end(`{"type":"ERROR","object":${statusBody(410, 'Expired', message)}}\n`);
    return;
  }
  let ended = false;
  const stopWatching = store.watch((change) => {
    if (!ended && relevant(change.stored)) res.write(encode(change.type, change.stored));
  });
  const end = () => {
    if (ended) return;
    ended = true;
    stopWatching();
    clearTimeout(timer);
    open.delete(end);
    res.end();
  };
  const timer = setTimeout(end, timeoutMs);
  open.add(end);
  res.on('close', end);
  const initial = replay ?? store.list(request.resource, request.namespace).map((stored) => ({ type: 'ADDED', stored }));
  for (const change of initial) if (relevant(change.stored)) res.write(encode(change.type, change.stored));
}

/** timeoutSeconds as the API server reads it: absent or 0 is the default; a number, else a 400. */
function timeoutSecondsOf(query: URLSearchParams): number {
  const timeout = query.get('timeoutSeconds');
  if (timeout !== null && !/^\d+$/.test(timeout)) {
    throw badRequest(`timeoutSeconds: Invalid value: "${timeout}": must be a non-negative integer`);
  }
  const seconds = Number(timeout ?? 0);
  return seconds === 0 ? DEFAULT_TIMEOUT_SECONDS : Math.min(seconds, MAX_TIMEOUT_SECONDS);
}
