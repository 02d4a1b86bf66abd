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
