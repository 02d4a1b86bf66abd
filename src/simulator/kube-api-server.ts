/**
 * A fake Kubernetes API server on 127.0.0.1 over HTTPS, serving a KubeStore to the real client
 * and to kubectl: discovery, GET/LIST/PATCH/DELETE, pod logs, bearer-token auth, Status errors,
 * and fault injection for tests.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { apiGroupDocument, apiGroupListDocument, apiResourceListDocument, apiVersionsDocument } from './discovery.ts';
import { FaultInjector, type FaultSpec } from './faults.ts';
import { sendHostileBody } from './hostile-bodies.ts';
import { streamWatch } from './kube-watch.ts';
import { SIM_RESOURCES, type AccessDenial, type KubeStore } from './kube-store.ts';
import { kubeconfigText, type KubeconfigOptions } from './kubeconfig.ts';
import { resolveRoute, serveResource, type ApiReactor, type ApiResponse } from './kube-routes.ts';
import { ApiStatusError, reasonOfStatus, RESOURCE_NOT_FOUND, statusBody } from './status.ts';

export interface KubeApiServerOptions {
  /** The bearer token the server accepts; random when absent. */
  token?: string;
  /** Largest request body accepted (PATCH, DELETE); 3 MiB like the API server. */
  maxBodyBytes?: number;
  /** Controllers of the simulated cluster reacting to API calls (the simulated Karpenter). */
  reactor?: ApiReactor;
  /** The cluster's time, for the ages kubectl's tables show; the system clock when absent. */
  now?: () => Date;
}

interface ServerStats {
  /** Requests received (every one, including refused and faulted ones). */
  readonly requests: number;
  /** Response body bytes sent. */
  readonly bytesSent: number;
  reset(): void;
}

export interface SimulatedKubeApi {
  /** `https://127.0.0.1:PORT` */
  readonly url: string;
  /** The cluster CA (PEM) the server's certificate is signed by. */
  readonly caPem: string;
  /** The bearer token the server accepts. */
  readonly token: string;
  readonly store: KubeStore;
  /** Active faults; the store's access denials are standing faults here too. */
  readonly faults: FaultInjector;
  readonly stats: ServerStats;
  /**
   * Starts recording the method and URL (path and query) of every request, in the order received;
   * the function returned stops and gives them (a benchmark replays a scan's requests with them).
   */
  recordRequests(): () => string[];
  /** Kubeconfig YAML for this server (server URL, inline CA, bearer-token user). */
  kubeconfig(options?: KubeconfigOptions): string;
  /** Ends open watches and stops the server; calling it again waits for the same close. */
  close(): Promise<void>;
}

const TLS_DIR = new URL('./tls/', import.meta.url);
const JSON_TYPE = 'application/json';

export async function startKubeApiServer(store: KubeStore, options: KubeApiServerOptions = {}): Promise<SimulatedKubeApi> {
  const [caPem, cert, key] = await Promise.all(
    ['ca.crt', 'server.crt', 'server.key'].map((file) => readFile(new URL(file, TLS_DIR), 'utf8')),
  );
  const token = options.token ?? randomBytes(24).toString('base64url');
  const faults = new FaultInjector();
  for (const denial of store.denials) faults.add(faultOfDenial(denial));
  const counters = { requests: 0, bytesSent: 0 };
  const stats: ServerStats = {
    get requests() {
      return counters.requests;
    },
    get bytesSent() {
      return counters.bytesSent;
    },
    reset() {
      counters.requests = 0;
      counters.bytesSent = 0;
    },
  };
  let recorded: string[] | undefined;
  let address = '';
  const watches = new Set<() => void>();
  const context: HandlerContext = {
    store,
    token,
    faults,
    maxBodyBytes: options.maxBodyBytes ?? 3 * 1024 * 1024,
    reactor: options.reactor,
    now: options.now ?? (() => new Date()),
    watches,
    address: () => address,
    countSent: (bytes) => {
      counters.bytesSent += bytes;
    },
    send(res, response) {
      const body = typeof response.body === 'string' ? Buffer.from(response.body) : response.body;
      counters.bytesSent += body.length;
      res.writeHead(response.status, {
        'Content-Type': response.contentType ?? JSON_TYPE,
        'Content-Length': body.length,
        'Cache-Control': 'no-cache, private',
        ...response.headers,
      });
      res.end(body);
    },
  };
  const server = createServer({ key, cert }, (req, res) => {
    counters.requests++;
    recorded?.push(`${req.method ?? 'GET'} ${req.url ?? '/'}`);
    handle(context, req, res).catch((error: unknown) => {
      if (!res.headersSent) context.send(res, errorResponse(error));
      else res.destroy();
    });
  });
  await listen(server);
  address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  const url = `https://${address}`;
  let closing: Promise<void> | undefined;
  return {
    url,
    caPem: caPem ?? '',
    token,
    store,
    faults,
    stats,
    recordRequests() {
      const requests: string[] = [];
      recorded = requests;
      return () => {
        if (recorded === requests) recorded = undefined;
        return requests;
      };
    },
    kubeconfig: (kubeconfigOptions) => kubeconfigText(url, caPem ?? '', token, kubeconfigOptions),
    close: () => {
      // Watches end with their last event sent, as when an API server shuts down, before the sockets close.
      for (const end of [...watches]) end();
      closing ??= closeServer(server);
      return closing;
    },
  };
}

interface HandlerContext {
  store: KubeStore;
  token: string;
  faults: FaultInjector;
  maxBodyBytes: number;
  reactor: ApiReactor | undefined;
  now(): Date;
  /** Open watches: each entry ends one (the server ends them all when it stops). */
  watches: Set<() => void>;
  address(): string;
  /** Adds to the bytes sent (stats). */
  countSent(bytes: number): void;
  send(res: ServerResponse, response: ApiResponse & { headers?: Record<string, string> }): void;
}

async function handle(ctx: HandlerContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const method = (req.method ?? 'GET').toUpperCase();
  const url = new URL(req.url ?? '/', 'https://127.0.0.1');
  const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
  if (['/healthz', '/livez', '/readyz'].includes(path)) {
    ctx.send(res, { status: 200, body: 'ok', contentType: 'text/plain' });
    return;
  }
  if (req.headers.authorization !== `Bearer ${ctx.token}`) {
    req.resume();
    ctx.send(res, { status: 401, body: statusBody(401, 'Unauthorized', 'Unauthorized') });
    return;
  }
  const fault = ctx.faults.take(method, path, url.searchParams);
  if (fault?.spec.latencyMs) await sleep(fault.spec.latencyMs);
  if (fault?.spec.drop) {
    req.socket.destroy();
    return;
  }
  if (fault?.spec.body) {
    req.resume();
    await sendHostileBody(res, fault.spec.body, ctx.countSent);
    return;
  }
  if (fault?.spec.status !== undefined) {
    req.resume();
    const { status, retryAfterSeconds } = fault.spec;
    const reason = fault.spec.reason ?? reasonOfStatus(status);
    ctx.send(res, {
      status,
      body: statusBody(status, reason, fault.spec.message ?? `injected fault: ${status} ${reason}`),
      ...(retryAfterSeconds !== undefined ? { headers: { 'Retry-After': String(retryAfterSeconds) } } : {}),
    });
    return;
  }
  const body = method === 'GET' || method === 'HEAD' ? '' : await readBody(req, ctx.maxBodyBytes);
  const request = {
    method,
    query: url.searchParams,
    body,
    contentType: String(req.headers['content-type'] ?? ''),
    accept: String(req.headers.accept ?? ''),
    now: ctx.now(),
  };
  const watched = isWatch(request) ? resourceRouteOf(path) : undefined;
  if (watched?.type === 'collection') {
    const { resource, namespace, view } = watched;
    const watch = { resource, namespace, ...(view ? { view } : {}), query: url.searchParams, accept: request.accept };
    streamWatch(ctx.store, { ...watch, now: ctx.now }, res, ctx.watches);
    return;
  }
  ctx.send(res, route(ctx, path, request));
}

function isWatch(request: { method: string; query: URLSearchParams }): boolean {
  const watch = request.query.get('watch');
  return request.method === 'GET' && (watch === 'true' || watch === '1');
}

function segmentsOf(path: string): string[] {
  return path
    .split('/')
    .filter((s) => s !== '')
    .map(decodeURIComponent);
}

/** The group, version and what follows in `/api/VERSION/...` or `/apis/GROUP/VERSION/...`. */
function groupVersionOf(segments: readonly string[]): { group: string; version: string; rest: string[] } | undefined {
  const [root, a, b] = segments;
  if (root === 'api' && a) return { group: '', version: a, rest: segments.slice(2) };
  if (root === 'apis' && a && b) return { group: a, version: b, rest: segments.slice(3) };
  return undefined;
}

/** The resource route a path names (a collection, an object, a subresource); undefined when none. */
function resourceRouteOf(path: string) {
  const at = groupVersionOf(segmentsOf(path));
  return at && at.rest.length > 0 ? resolveRoute(at.group, at.version, at.rest) : undefined;
}

function route(ctx: HandlerContext, path: string, request: Parameters<typeof serveResource>[2]): ApiResponse {
  const segments = segmentsOf(path);
  const [root, a] = segments;
  const isGet = request.method === 'GET';
  if (root === 'version' && segments.length === 1 && isGet) return { status: 200, body: versionDocument(ctx.store) };
  if (root === 'api' && isGet && segments.length === 1) return { status: 200, body: apiVersionsDocument(ctx.address()) };
  if (root === 'apis' && isGet && segments.length === 1) return { status: 200, body: apiGroupListDocument() };
  if (root === 'apis' && isGet && a && segments.length === 2) return documentOrNotFound(apiGroupDocument(a));
  const at = groupVersionOf(segments);
  if (!at) throw RESOURCE_NOT_FOUND;
  if (at.rest.length === 0 && isGet) return documentOrNotFound(apiResourceListDocument(at.group, at.version));
  const resourceRoute = resourceRouteOf(path);
  if (!resourceRoute) throw RESOURCE_NOT_FOUND;
  return serveResource(ctx.store, resourceRoute, request, ctx.reactor);
}

function documentOrNotFound(document: string | undefined): ApiResponse {
  if (document === undefined) throw RESOURCE_NOT_FOUND;
  return { status: 200, body: document };
}

function versionDocument(store: KubeStore): string {
  const [major = '1', minor = '32'] = store.kubernetesVersion.replace(/^v/, '').split('.');
  return JSON.stringify({
    major,
    minor,
    gitVersion: `v${major}.${minor}.0-simulated`,
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2026-01-01T00:00:00Z',
    goVersion: 'go1.23.0',
    compiler: 'gc',
    platform: 'linux/amd64',
  });
}

function errorResponse(error: unknown): ApiResponse {
  if (error instanceof ApiStatusError) {
    return { status: error.code, body: statusBody(error.code, error.reason, error.message, error.details) };
  }
  const message = error instanceof Error ? error.message : String(error);
  return {
    status: 500,
    body: statusBody(500, 'InternalError', `an error on the server ("${message}") has prevented the request from succeeding`),
  };
}

/** A snapshot gap → a standing fault on GET of that resource (list and single objects) or of pod logs. */
function faultOfDenial(denial: AccessDenial): FaultSpec {
  const answer = { method: 'GET', status: denial.status, reason: denial.reason, message: denial.message };
  if (denial.resource === 'pods/log') return { ...answer, path: /^\/api\/v1\/namespaces\/[^/]+\/pods\/[^/]+\/log$/ };
  const { group, version } = SIM_RESOURCES[denial.resource];
  const prefix = group ? `/apis/${escapeRegExp(group)}/${version}` : `/api/${version}`;
  return { ...answer, path: new RegExp(`^${prefix}/(?:namespaces/[^/]+/)?${denial.resource}(?:/[^/]+)?$`) };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

async function readBody(req: IncomingMessage, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > maxBytes) throw new ApiStatusError(413, 'RequestEntityTooLarge', 'the request body is too large');
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function listen(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    server.closeAllConnections();
  });
}
