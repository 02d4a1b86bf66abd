import { queueAnswerMayBeDenial } from '../../domain/interruption-queue.ts';
import { isThrottlingError } from '@smithy/core/retry';
import { AWS_DENIED_CODES } from '../../domain/aws.ts';
import { networkFailureOf } from '../../domain/network-errors.ts';
import { SourceError } from '../../ports/errors.ts';
import { InvocationTimeoutError, isInvocationTimeout } from '../../support/abort.ts';
import { isRecord, oneLine } from '../../domain/shape.ts';
import type { ApiCallOutcome } from '../calls/api-call-metrics.ts';

/**
 * The AWS error code of a failed call. SDK exceptions carry it as `name` (EC2 `UnauthorizedOperation`,
 * EKS `AccessDeniedException`, IAM `NoSuchEntityException`); Node's network errors as `code`.
 */
export function awsErrorName(error: unknown): string {
  if (!(error instanceof Error)) return 'Error';
  const code = isRecord(error) && typeof error.code === 'string' ? error.code : undefined;
  return error.name === 'Error' && code ? code : error.name;
}

/**
 * EC2 appends kilobytes of base64 to a denial: it would push the words that matter out of a bounded
 * line, and means nothing until decoded. Said instead, and kept whole when the line is cut.
 */
const ENCODED_AUTHORIZATION_MESSAGE = /\s*Encoded authorization failure message:\s*[A-Za-z0-9_+/=-]*/gi;
const ENCODED_MESSAGE_OMITTED = '(encoded authorization message omitted: aws sts decode-authorization-message)';

/** The error as its one line of at most `max` characters: `UnauthorizedOperation: You are not authorized to perform this operation. ...`. */
export function awsErrorText(error: unknown, max = 300): string {
  const message = error instanceof Error ? error.message : String(error);
  const text = `${awsErrorName(error)}: ${message}`;
  const withoutEncoded = text.replace(ENCODED_AUTHORIZATION_MESSAGE, '');
  if (withoutEncoded === text) return oneLine(text, max);
  const omitted = ` ${ENCODED_MESSAGE_OMITTED}`;
  const full = `${oneLine(withoutEncoded, Number.MAX_SAFE_INTEGER)}${omitted}`;
  return full.length <= max ? full : `${oneLine(withoutEncoded, max - omitted.length)}${omitted}`;
}

/**
 * Any failure of a call, after the SDK's retries ran out: denied, expired credentials, throttled,
 * unreachable. The summary reads like the AWS CLI's error (`DescribeInstances failed: Code: message`),
 * the same text a file scan shows for that captured error.
 */
export function sourceError(operation: string, error: unknown): SourceError {
  if (error instanceof SourceError) return error;
  const prefix = `${operation} failed: `;
  return new SourceError(oneLine(`${prefix}${awsErrorText(error, 300 - prefix.length)}`, 300), {
    code: awsErrorName(error),
    cause: error,
  });
}

/**
 * Runs one AWS call (or a paginated series of them); every failure leaves as a SourceError, but a
 * call the invocation's signal aborted (abortable() in ../calls/sdk-config.ts) as an InvocationTimeoutError.
 */
export async function awsCall<T>(operation: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (isAbort(error)) throw new InvocationTimeoutError(`${operation} stopped: the invocation’s deadline`, { cause: error });
    throw sourceError(operation, error);
  }
}

/** The SDK's abort (the request handler rejects with an AbortError when the abortSignal fires). */
function isAbort(error: unknown): boolean {
  return error instanceof InvocationTimeoutError || awsErrorName(error) === 'AbortError';
}

/**
 * SQS's "no such queue": the SDK's shape name (JSON protocol) or the query-compatible code Karpenter
 * logs (`AWS.SimpleQueueService.NonExistentQueue`), which the SDK keeps as the error's `Code`.
 */
export function isNonExistentQueue(error: unknown): boolean {
  const code = isRecord(error) && typeof error.Code === 'string' ? error.Code : '';
  const named = [awsErrorName(error), code].some((c) => c === 'QueueDoesNotExist' || c.endsWith('NonExistentQueue'));
  return named && !queueAnswerMayBeDenial(error instanceof Error ? error.message : '');
}

/** The ways EC2, EKS, IAM, SQS and EventBridge say a named thing does not exist. */
export function isNotFound(error: unknown): boolean {
  const name = awsErrorName(error);
  return (
    isNonExistentQueue(error) ||
    name === 'ResourceNotFoundException' ||
    name === 'NoSuchEntity' ||
    name === 'NoSuchEntityException' ||
    name.endsWith('.NotFound') ||
    name.endsWith('.NotFoundException')
  );
}

/**
 * How an AWS call ended, for its metric (adapters/calls/api-call-metrics.ts): the SDK's own throttling
 * test (`RequestLimitExceeded`, `ThrottlingException`, HTTP 429, ...), the denial codes the detectors
 * read in Karpenter's logs, isNotFound above, the invocation's deadline or the SDK's request timeout,
 * and the network failures domain/network-errors.ts names. Reads the SDK error a SourceError wraps.
 */
export function awsCallOutcome(error: unknown): ApiCallOutcome {
  if (isInvocationTimeout(error) || isAbort(error)) return 'timeout';
  const sdkError = error instanceof SourceError && error.cause !== undefined ? error.cause : error;
  const name = awsErrorName(sdkError);
  // The SDK's test reads `name`, `$metadata.httpStatusCode` and `$retryable`: any Error has the shape it needs.
  if (sdkError instanceof Error && isThrottlingError(sdkError as Parameters<typeof isThrottlingError>[0])) return 'throttled';
  if (AWS_DENIED_CODES.has(name)) return 'access-denied';
  if (isNotFound(sdkError)) return 'not-found';
  // The SDK's request handler names its own connection and request timeouts TimeoutError.
  if (name === 'TimeoutError') return 'timeout';
  if (networkFailureOf(name) !== undefined) return 'network';
  return 'other';
}
