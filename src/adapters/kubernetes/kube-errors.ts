/**
 * What a failed Kubernetes API call means: retry it, or give up with which typed error. Pure, so
 * the policy is tested without a server.
 */
import { STATUS_CODES } from 'node:http';
import { networkFailureOf } from '../../domain/network-errors.ts';
import { KubeConflictError, KubeUnreachableError, SourceError } from '../../ports/errors.ts';
import { isInvocationTimeout } from '../../support/abort.ts';
import type { ApiCallOutcome } from '../calls/api-call-metrics.ts';

/** A failure worth another attempt; `error` is what the caller gets when the attempts run out. */
export class TransientKubeError extends Error {
  override name = 'TransientKubeError';
  readonly error: SourceError;
  /** The server's `Retry-After`, in milliseconds. */
  readonly retryAfterMs: number | undefined;

  constructor(error: SourceError, retryAfterMs?: number) {
    super(error.summary, { cause: error });
    this.error = error;
    this.retryAfterMs = retryAfterMs;
  }
}

const MAX_MESSAGE_LENGTH = 300;

function folded(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Whitespace folded to one line, long server messages cut. */
function oneLineText(text: string): string {
  const line = folded(text);
  return line.length > MAX_MESSAGE_LENGTH ? `${line.slice(0, MAX_MESSAGE_LENGTH - 1)}…` : line;
}

/** What was thrown, as one line, uncut (kubeconfig and credential plugin errors are worth reading whole). */
export function thrownMessage(err: unknown): string {
  return folded(err instanceof Error ? err.message : String(err));
}

/** The `message` of a Kubernetes Status body, else the body's first text (proxies answer in HTML or plain text). */
function statusMessage(body: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(body);
    if (typeof parsed === 'object' && parsed !== null && 'message' in parsed && typeof parsed.message === 'string') {
      return parsed.message === '' ? undefined : oneLineText(parsed.message);
    }
    return undefined;
  } catch {
    const text = oneLineText(body.replace(/<[^>]*>/g, ' '));
    return text === '' ? undefined : text;
  }
}

/** `403 Forbidden: nodeclaims.karpenter.sh is forbidden: User "x" cannot list ...` */
export function statusSummary(status: number, body: string): string {
  const phrase = STATUS_CODES[status] ?? 'HTTP error';
  const message = statusMessage(body);
  return message ? `${status} ${phrase}: ${message}` : `${status} ${phrase}`;
}

const RETRYABLE_STATUS = new Set([429, 500, 502, 503, 504]);

/** Seconds (what kube-apiserver sends) or an HTTP date. */
export function parseRetryAfter(header: string | undefined, now: Date): number | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now.getTime());
}

/**
 * A non-2xx answer as a typed error. 404 is only an error where the caller did not expect it
 * (`get` and delete handle it themselves).
 */
export function errorForStatus(
  status: number,
  body: string,
  retryAfter: string | undefined,
  now: Date,
): SourceError | TransientKubeError {
  const summary = statusSummary(status, body);
  const code = String(status);
  if (RETRYABLE_STATUS.has(status))
    return new TransientKubeError(new SourceError(summary, { code }), parseRetryAfter(retryAfter, now));
  if (status === 409) return new KubeConflictError(summary, { code });
  // 401: the credentials are wrong or expired for every call alike, not for one resource.
  if (status === 401) return new KubeUnreachableError(summary, { code });
  return new SourceError(summary, { code });
}

function errorCode(err: unknown): string | undefined {
  if (typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string') return err.code;
  return undefined;
}

/** A failure below HTTP (no status): unreachable for good, or worth another attempt. */
export function errorForNetwork(err: unknown, server: string): SourceError | TransientKubeError {
  const code = errorCode(err);
  const message = oneLineText(thrownMessage(err));
  switch (networkFailureOf(code)) {
    case 'tls':
      return new KubeUnreachableError(`TLS verification failed for ${server}: ${message}`, { code, cause: err });
    case 'refused':
      return new KubeUnreachableError(`connection refused by ${server}`, { code, cause: err });
    case 'connect-timeout':
      return new KubeUnreachableError(
        `cannot connect to ${server}: ${message} (a private endpoint needs a network path to its VPC)`,
        { code, cause: err },
      );
    case 'unresolved':
      return new KubeUnreachableError(`cannot resolve ${server}: ${message}`, { code, cause: err });
    case 'transient':
      return new TransientKubeError(new SourceError(`${message} (${server})`, { code, cause: err }));
    default:
      return new SourceError(`request to ${server} failed: ${message}`, { code, cause: err });
  }
}

/**
 * How a Kubernetes call ended, for its metric (adapters/calls/api-call-metrics.ts), by the code the
 * errors above give a failure after its retries: the HTTP status (429 throttled by API Priority and
 * Fairness, 401/403 refused, 404), the transport's own timeouts and the invocation's deadline, and
 * the network failures domain/network-errors.ts names.
 */
export function kubeCallOutcome(error: unknown): ApiCallOutcome {
  if (isInvocationTimeout(error)) return 'timeout';
  const code = error instanceof SourceError ? error.code : errorCode(error);
  if (code === '429') return 'throttled';
  if (code === '401' || code === '403') return 'access-denied';
  if (code === '404') return 'not-found';
  const network = networkFailureOf(code);
  if (network === 'connect-timeout' || code === 'KUBE_REQUEST_TIMEOUT') return 'timeout';
  if (network !== undefined) return 'network';
  return 'other';
}
