/**
 * KubernetesPort over the real API: objects in wire shape (what `kubectl get -o json` prints),
 * every page of every list, bounded retries for transient failures, typed errors for the rest.
 */
import { SYSTEM_CLOCK } from '../../ports/clock.ts';
import { formatByteSize } from '../../domain/byte-size.ts';
import type { Clock } from '../../ports/clock.ts';
import { dropUnusedFields } from '../../domain/unused-fields.ts';
import { DEFAULT_KUBE_READ_LIMITS, formatReadLimit, raiseHint } from '../../domain/kube-read-limits.ts';
import type { KubeReadLimits } from '../../domain/kube-read-limits.ts';
import {
  KubeConflictError,
  KubeUnreachableError,
  ReadLimitError,
  ResponseTooLargeError,
  SourceError,
} from '../../ports/errors.ts';
import { InvocationTimeoutError } from '../../support/abort.ts';
import { apiVersionOf, KUBE_RESOURCES } from '../../ports/kubernetes.ts';
import type {
  DeploymentAnnotationPatch,
  KubeListQuery,
  KubernetesPort,
  KubeResourceInfo,
  KubeResourceName,
  PodLogQuery,
} from '../../ports/kubernetes.ts';
import { isRecord } from '../../domain/shape.ts';
import type { JsonRecord } from '../../domain/shape.ts';
import { jsonText } from '../../domain/json.ts';
import { errorForNetwork, errorForStatus } from './kube-errors.ts';
import { KubeTransport, tooLarge } from './kube-transport.ts';
import type { KubeAccess, KubeHttpRequest, KubeTransportOptions } from './kube-transport.ts';
import { noteAnsweredWithoutRequest } from '../calls/call-retries.ts';
import { DEFAULT_RETRY_POLICY, withRetries } from './kube-retry.ts';
import type { RetryEnvironment, RetryPolicy } from './kube-retry.ts';

const DEFAULT_PAGE_SIZE = 500;

export interface KubernetesApiOptions extends Omit<KubeTransportOptions, 'maxResponseBytes'> {
  /** Retry waits go through `sleep`; a Retry-After date is read against `now`. */
  clock?: Clock;
  retry?: Partial<RetryPolicy>;
  /** Backoff jitter source, [0, 1). */
  random?: () => number;
  /** `limit` of each list page. */
  pageSize?: number;
  /**
   * How much one list or log may read (docs/usage.md, `--kube-read-limits`); DEFAULT_KUBE_READ_LIMITS
   * for those left out.
   */
  readLimits?: Partial<KubeReadLimits>;
}

interface Answer {
  status: number;
  text: string;
  /** Cut at the request's `truncateAt`. */
  truncated: boolean;
}

export class KubernetesApi implements KubernetesPort {
  readonly #transport: KubeTransport;
  readonly #clock: Clock;
  readonly #retry: RetryEnvironment;
  #unreachable: { error: KubeUnreachableError; until: number } | undefined;
  readonly #pageSize: number;
  readonly #limits: KubeReadLimits;

  constructor(config: KubeAccess, options: KubernetesApiOptions = {}) {
    this.#limits = { ...DEFAULT_KUBE_READ_LIMITS, ...options.readLimits };
    this.#transport = new KubeTransport(config, { ...options, maxResponseBytes: this.#limits.responseBytes });
    this.#clock = options.clock ?? SYSTEM_CLOCK;
    this.#retry = {
      policy: { ...DEFAULT_RETRY_POLICY, ...options.retry },
      sleep: (ms) => this.#clock.sleep(ms),
      random: options.random ?? Math.random,
    };
    this.#pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  }

  async list(query: KubeListQuery): Promise<JsonRecord[]> {
    const info = KUBE_RESOURCES[query.resource];
    const path = collectionPath(query.resource, info, query.namespace);
    try {
      return await this.#allPages(path, query, info);
    } catch (err) {
      // 410 Gone: the continue token outlived etcd's compaction window. Like client-go's pager,
      // start over once; the second pass sees a newer, consistent state.
      if (!(err instanceof ExpiredContinueError)) throw err;
      try {
        return await this.#allPages(path, query, info);
      } catch (again) {
        // Twice expired: the list changes faster than it can be read; the API's own 410 is the gap.
        throw again instanceof ExpiredContinueError ? again.cause : again;
      }
    }
  }

  /**
   * Every page, within the read limits. A page whose body passes the response-size limit is asked
   * for again with half the `limit` (down to 1): a list of big but honest objects is read in small
   * pages; only one object too large for the limit makes the list a gap.
   */
  async #allPages(path: string, query: KubeListQuery, info: KubeResourceInfo): Promise<JsonRecord[]> {
    const limits = this.#limits;
    const listed = describeList(path, query);
    const deadline = this.#clock.now().getTime() + limits.listMs;
    const items: JsonRecord[] = [];
    let keptBytes = 0;
    let rawBytes = 0;
    let measuring = false;
    let pages = 0;
    let pageSize = this.#pageSize;
    let token: string | undefined;
    // Not do-while: a page asked for again (`continue` below) must not end the loop on the first page.
    for (;;) {
      if (pages >= limits.listPages)
        throw readLimit(listed, `more than ${formatReadLimit('listPages', pages)} pages`, 'listPages', limits);
      if (this.#clock.now().getTime() > deadline)
        throw readLimit(listed, `not read in full within ${formatReadLimit('listMs', limits.listMs)}`, 'listMs', limits);
      const request: KubeHttpRequest = {
        method: 'GET',
        path,
        query: { limit: pageSize, continue: token, labelSelector: query.labelSelector, fieldSelector: query.fieldSelector },
      };
      let answer: Answer;
      try {
        answer = await this.#send(request);
      } catch (err) {
        if (token !== undefined && err instanceof SourceError && err.code === '410') throw new ExpiredContinueError(err);
        if (err instanceof ResponseTooLargeError && pageSize > 1) {
          pageSize = Math.ceil(pageSize / 2);
          continue;
        }
        if (err instanceof ResponseTooLargeError)
          throw tooLarge(
            `${listed}: a page of one item`,
            { bytesReceived: err.bytesReceived, unpacked: err.unpacked },
            limits.responseBytes,
            err,
          );
        throw err;
      }
      pages++;
      const page = parseJson(answer.text, request);
      const pageItems = page.items;
      if (!Array.isArray(pageItems)) throw new SourceError(`GET ${path}: the answer is not a list (no items)`);
      if (items.length + pageItems.length > limits.listItems)
        throw readLimit(listed, `more than ${formatReadLimit('listItems', limits.listItems)} items`, 'listItems', limits);
      // Dropped page by page, so a list of 50,000 pods never holds their managedFields all at once.
      // What the list holds on to, as JSON (jsonText: any depth): the memory it costs, give or take
      // V8's own overhead. A kept item is no longer than its text in the page plus its type meta, so
      // nothing is serialised until the pages alone pass half the limit (the common path).
      rawBytes += answer.text.length;
      if (!measuring && rawBytes > limits.listBytes / 2) {
        measuring = true;
        keptBytes = items.reduce((sum, kept) => sum + jsonText(kept).length, 0);
      }
      const firstKept = items.length;
      for (const item of pageItems) {
        if (!isRecord(item)) continue;
        const kept = withTypeMeta(dropUnusedFields(item) as JsonRecord, info);
        if (measuring) keptBytes += jsonText(kept).length;
        items.push(kept);
      }
      if (keptBytes > limits.listBytes)
        throw readLimit(
          listed,
          `its items take more than ${formatReadLimit('listBytes', limits.listBytes)}`,
          'listBytes',
          limits,
        );
      const next = isRecord(page.metadata) && typeof page.metadata.continue === 'string' ? page.metadata.continue : '';
      if (next !== '' && next === token) throw new SourceError(`GET ${path}: the server repeated continue token ${next}`);
      query.onPage?.(items.slice(firstKept));
      if (next === '') return items;
      token = next;
    }
  }

  async get(resource: KubeResourceName, name: string, namespace?: string): Promise<JsonRecord | undefined> {
    const info = KUBE_RESOURCES[resource];
    const request: KubeHttpRequest = { method: 'GET', path: objectPath(resource, info, name, namespace) };
    const answer = await this.#send(request, { accept404: true });
    if (answer.status === 404) return undefined;
    return withTypeMeta(dropUnusedFields(parseJson(answer.text, request)) as JsonRecord, info);
  }

  async podLog(query: PodLogQuery): Promise<string> {
    // The server is asked for limitBytes; the client holds to it (and to the log-size limit) whatever it sends.
    const cap = Math.min(query.limitBytes ?? Infinity, this.#limits.logBytes);
    const request: KubeHttpRequest = {
      method: 'GET',
      path: `${objectPath('pods', KUBE_RESOURCES.pods, query.pod, query.namespace)}/log`,
      query: {
        tailLines: query.tailLines,
        container: query.container,
        previous: query.previous ? 'true' : undefined,
        limitBytes: query.limitBytes,
      },
      accept: 'text/plain, */*',
      truncateAt: cap,
    };
    const answer = await this.#send(request);
    if (answer.truncated) {
      const hint = cap === this.#limits.logBytes ? ` (${raiseHint('logBytes', cap)})` : '';
      query.onTruncated?.(
        `GET ${request.path}: the log was cut at ${formatByteSize(cap)}; its first ${formatByteSize(cap)} are kept${hint}`,
      );
    }
    return answer.text;
  }

  async patchDeploymentAnnotations(patch: DeploymentAnnotationPatch): Promise<JsonRecord> {
    const info = KUBE_RESOURCES.deployments;
    // One merge patch: the resourceVersion in it makes the API server refuse (409) a write
    // based on a stale read, so two scans cannot both restart the controller.
    const body: JsonRecord = {
      metadata: { resourceVersion: patch.resourceVersion, ...(patch.annotations ? { annotations: patch.annotations } : {}) },
      ...(patch.templateAnnotations ? { spec: { template: { metadata: { annotations: patch.templateAnnotations } } } } : {}),
    };
    const request: KubeHttpRequest = {
      method: 'PATCH',
      path: objectPath('deployments', info, patch.name, patch.namespace),
      body: JSON.stringify(body),
      contentType: 'application/merge-patch+json',
    };
    const attempts = { count: 0 };
    try {
      const answer = await this.#send(request, { attempts });
      return withTypeMeta(parseJson(answer.text, request), info);
    } catch (err) {
      // A retried patch may have landed the first time (the answer was lost); the retry then
      // conflicts with our own write. Only a Deployment already carrying our values counts as done.
      if (err instanceof KubeConflictError && attempts.count > 1) {
        const current = await this.get('deployments', patch.name, patch.namespace);
        if (current && carriesPatch(current, patch)) return current;
      }
      throw err;
    }
  }

  async deleteNodePool(name: string): Promise<boolean> {
    const request: KubeHttpRequest = { method: 'DELETE', path: objectPath('nodepools', KUBE_RESOURCES.nodepools, name) };
    const answer = await this.#send(request, { accept404: true });
    return answer.status !== 404;
  }

  /** Closes idle keep-alive connections (they do not keep the process alive either way). */
  close(): void {
    this.#transport.close();
  }

  async #send(request: KubeHttpRequest, options: { accept404?: boolean; attempts?: { count: number } } = {}): Promise<Answer> {
    // Once the server is known to be out of reach, the other calls of this scan say so at once instead of
    // each waiting out its own timeout; a client kept for longer (a warm Lambda) tries again a minute later.
    const known = this.#unreachable;
    if (known && this.#clock.now().getTime() < known.until) {
      noteAnsweredWithoutRequest(); // not an API call: the one that failed was counted as it failed
      throw known.error;
    }
    try {
      return await this.#sendWithRetries(request, options);
    } catch (err) {
      if (err instanceof KubeUnreachableError)
        this.#unreachable = { error: err, until: this.#clock.now().getTime() + UNREACHABLE_MEMORY_MS };
      throw err;
    }
  }

  #sendWithRetries(request: KubeHttpRequest, options: { accept404?: boolean; attempts?: { count: number } }): Promise<Answer> {
    return withRetries(async (attemptNumber) => {
      if (options.attempts) options.attempts.count = attemptNumber;
      let response;
      try {
        response = await this.#transport.send(request);
      } catch (err) {
        if (err instanceof SourceError || err instanceof InvocationTimeoutError) throw err;
        throw errorForNetwork(err, this.#transport.server);
      }
      const text = response.body.toString('utf8');
      if ((response.status >= 200 && response.status < 300) || (response.status === 404 && options.accept404)) {
        return { status: response.status, text, truncated: response.truncated };
      }
      const retryAfter = response.headers['retry-after'];
      throw errorForStatus(response.status, text, typeof retryAfter === 'string' ? retryAfter : undefined, this.#clock.now());
    }, this.#retry);
  }
}

const UNREACHABLE_MEMORY_MS = 60_000;

class ExpiredContinueError extends Error {
  override readonly cause: SourceError;
  constructor(cause: SourceError) {
    super(cause.summary, { cause });
    this.cause = cause;
  }
}

/** `GET /api/v1/pods?fieldSelector=status.phase=Pending`: the list, in a gap's line. */
function describeList(path: string, query: KubeListQuery): string {
  const selectors = [
    query.labelSelector === undefined ? '' : `labelSelector=${query.labelSelector}`,
    query.fieldSelector === undefined ? '' : `fieldSelector=${query.fieldSelector}`,
  ].filter((s) => s !== '');
  return `GET ${path}${selectors.length > 0 ? `?${selectors.join('&')}` : ''}`;
}

function readLimit(listed: string, what: string, limit: keyof KubeReadLimits, limits: KubeReadLimits): ReadLimitError {
  return new ReadLimitError(`${listed}: ${what} (${raiseHint(limit, limits[limit])})`, limit);
}

function resourcePrefix(info: KubeResourceInfo): string {
  return info.group === '' ? `/api/${info.version}` : `/apis/${info.group}/${info.version}`;
}

function collectionPath(resource: KubeResourceName, info: KubeResourceInfo, namespace: string | undefined): string {
  if (namespace !== undefined && info.namespaced)
    return `${resourcePrefix(info)}/namespaces/${encodeURIComponent(namespace)}/${resource}`;
  return `${resourcePrefix(info)}/${resource}`;
}

function objectPath(resource: KubeResourceName, info: KubeResourceInfo, name: string, namespace?: string): string {
  if (info.namespaced && namespace === undefined)
    throw new Error(`${resource} are namespaced: a namespace is required to address ${name}`);
  return `${collectionPath(resource, info, namespace)}/${encodeURIComponent(name)}`;
}

function parseJson(text: string, request: KubeHttpRequest): JsonRecord {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new SourceError(`${request.method} ${request.path}: the answer is not JSON`, { cause: err });
  }
  if (!isRecord(parsed)) throw new SourceError(`${request.method} ${request.path}: the answer is not a JSON object`);
  return parsed;
}

/** List items of built-in kinds come without apiVersion/kind; kubectl prints them first. */
function withTypeMeta(item: JsonRecord, info: KubeResourceInfo): JsonRecord {
  if (typeof item.apiVersion === 'string' && typeof item.kind === 'string') return item;
  return { apiVersion: apiVersionOf(info), kind: info.kind, ...item };
}

function carriesPatch(deployment: JsonRecord, patch: DeploymentAnnotationPatch): boolean {
  const metadata = isRecord(deployment.metadata) ? deployment.metadata : {};
  const spec = isRecord(deployment.spec) ? deployment.spec : {};
  const template = isRecord(spec.template) ? spec.template : {};
  const templateMetadata = isRecord(template.metadata) ? template.metadata : {};
  return includes(metadata.annotations, patch.annotations) && includes(templateMetadata.annotations, patch.templateAnnotations);
}

function includes(actual: unknown, wanted: Record<string, string> | undefined): boolean {
  if (!wanted) return true;
  const present = isRecord(actual) ? actual : {};
  return Object.entries(wanted).every(([key, value]) => present[key] === value);
}
