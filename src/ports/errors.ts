/**
 * Typed failures crossing the ports (Powertools style: a name, a message naming what failed,
 * and the original error as `cause`). The collector turns them into gaps.
 */

/** A call that failed for good (401/403/404, AccessDenied, ...) or after its retries ran out. */
export class SourceError extends Error {
  override name = 'SourceError';
  /** HTTP status or AWS error code, when known: `403`, `AccessDeniedException`. */
  readonly code: string | undefined;
  /** Short text for the report's gap, e.g. `403 Forbidden: nodeclaims.karpenter.sh is forbidden`. */
  readonly summary: string;

  constructor(summary: string, options: { code?: string; cause?: unknown } = {}) {
    super(summary, { cause: options.cause });
    this.summary = summary;
    this.code = options.code;
  }
}

/** 409 Conflict: the object changed since it was read (optimistic concurrency). */
export class KubeConflictError extends SourceError {
  override name = 'KubeConflictError';
}

/** The Kubernetes API could not be reached or authenticated at all (DNS, TLS, 401 on discovery). */
export class KubeUnreachableError extends SourceError {
  override name = 'KubeUnreachableError';
}

/**
 * A read stopped at one of the live scan's limits (domain/kube-read-limits.ts): the summary names
 * what was read, the limit and how to raise it. The source becomes a gap; the scan goes on.
 */
export class ReadLimitError extends SourceError {
  override name = 'ReadLimitError';
  /** The limit passed, by its KubeReadLimits key (`listItems`, ...). */
  readonly limit: string;
  constructor(summary: string, limit: string, options: { cause?: unknown } = {}) {
    super(summary, { code: 'KUBE_READ_LIMIT', cause: options.cause });
    this.limit = limit;
  }
}

/** A response body past the response-size limit, as received or as unpacked; the request was aborted there. */
export class ResponseTooLargeError extends ReadLimitError {
  override name = 'ResponseTooLargeError';
  /** Body bytes received before the request was aborted (compressed, when it was gzip). */
  readonly bytesReceived: number;
  /** The body passed the limit as unpacked (gzip), rather than as received. */
  readonly unpacked: boolean;
  constructor(summary: string, received: { bytes: number; unpacked: boolean }, options: { cause?: unknown } = {}) {
    super(summary, 'responseBytes', options);
    this.bytesReceived = received.bytes;
    this.unpacked = received.unpacked;
  }
}
