/**
 * Fault injection for the simulated API server: a test (or a snapshot gap) makes a route answer
 * with an error status, answer late, drop the connection, or answer with a hostile body (too long,
 * endless, a gzip bomb, endless `continue` tokens), for a number of requests or for good.
 */
import type { HostileBody } from './hostile-bodies.ts';

export type { HostileBody } from './hostile-bodies.ts';

export interface FaultSpec {
  /** HTTP method (`GET`, `PATCH`, ...); any method when absent. */
  method?: string;
  /** A string is a prefix of the URL path (without the query); a RegExp is tested against the path. */
  path: string | RegExp;
  /** Further condition on the query, e.g. `(q) => q.has('continue')`. */
  query?: (query: URLSearchParams) => boolean;
  /** Answer with this status and a `Status` body instead of serving the request. */
  status?: number;
  /** The Status `reason`; derived from the status when absent (e.g. 429 → TooManyRequests). */
  reason?: string;
  message?: string;
  /** Sends `Retry-After: N` with the status. */
  retryAfterSeconds?: number;
  /** Waits this long before answering (or before dropping; alone, the request is then served). */
  latencyMs?: number;
  /** Destroys the socket without an answer. */
  drop?: boolean;
  /** Answers 200 with this body instead of serving the request (hostile-bodies.ts). */
  body?: HostileBody;
  /** Matches this many requests, then heals; standing when absent. */
  times?: number;
}

export interface Fault {
  readonly id: number;
  readonly spec: Readonly<FaultSpec>;
  /** Requests this fault has answered so far. */
  readonly hits: number;
}

interface ActiveFault {
  id: number;
  spec: FaultSpec;
  hits: number;
}

export class FaultInjector {
  readonly #faults: ActiveFault[] = [];
  #nextId = 1;

  add(spec: FaultSpec): Fault {
    if (spec.times !== undefined && (!Number.isInteger(spec.times) || spec.times < 1)) {
      throw new RangeError(`fault times must be a positive integer, got ${spec.times}`);
    }
    const fault: ActiveFault = { id: this.#nextId++, spec, hits: 0 };
    this.#faults.push(fault);
    return fault;
  }

  remove(fault: Fault | number): void {
    const id = typeof fault === 'number' ? fault : fault.id;
    const at = this.#faults.findIndex((f) => f.id === id);
    if (at >= 0) this.#faults.splice(at, 1);
  }

  clear(): void {
    this.#faults.length = 0;
  }

  /** Faults still active, oldest first. */
  list(): readonly Fault[] {
    return [...this.#faults];
  }

  /** The first active fault for this request, counted as hit (and removed once its `times` are used). */
  take(method: string, path: string, query: URLSearchParams): Fault | undefined {
    const at = this.#faults.findIndex((f) => matches(f.spec, method, path, query));
    const fault = this.#faults[at];
    if (!fault) return undefined;
    fault.hits++;
    if (fault.spec.times !== undefined && fault.hits >= fault.spec.times) this.#faults.splice(at, 1);
    return fault;
  }
}

function matches(spec: FaultSpec, method: string, path: string, query: URLSearchParams): boolean {
  if (spec.method !== undefined && spec.method.toUpperCase() !== method) return false;
  if (typeof spec.path === 'string') {
    if (!path.startsWith(spec.path)) return false;
  } else {
    spec.path.lastIndex = 0; // a /g or /y RegExp keeps state between tests
    if (!spec.path.test(path)) return false;
  }
  return spec.query ? spec.query(query) : true;
}
