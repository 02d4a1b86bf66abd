import { SourceError } from '../../ports/errors.ts';
import { isRecord, oneLine } from '../../snapshot/shape.ts';

/**
 * The AWS error code of a failed call. SDK exceptions carry it as `name` (EC2 `UnauthorizedOperation`,
 * EKS `AccessDeniedException`, IAM `NoSuchEntityException`); Node's network errors as `code`.
 */
export function awsErrorName(error: unknown): string {
  if (!(error instanceof Error)) return 'Error';
  const code = isRecord(error) && typeof error.code === 'string' ? error.code : undefined;
  return error.name === 'Error' && code ? code : error.name;
}

/** The error as its one line: `UnauthorizedOperation: You are not authorized to perform this operation. ...`. */
export function awsErrorText(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return oneLine(`${awsErrorName(error)}: ${message}`, 300);
}

/**
 * Any failure of a call, after the SDK's retries ran out: denied, expired credentials, throttled,
 * unreachable. The summary reads like the AWS CLI's error (`DescribeInstances failed: Code: message`),
 * the same text a file scan shows for that captured error.
 */
export function sourceError(operation: string, error: unknown): SourceError {
  if (error instanceof SourceError) return error;
  return new SourceError(oneLine(`${operation} failed: ${awsErrorText(error)}`, 300), {
    code: awsErrorName(error),
    cause: error,
  });
}

/** Runs one AWS call (or a paginated series of them); every failure leaves as a SourceError. */
export async function awsCall<T>(operation: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw sourceError(operation, error);
  }
}

/** The ways EC2, EKS and IAM say a named thing does not exist. */
export function isNotFound(error: unknown): boolean {
  const name = awsErrorName(error);
  return (
    name === 'ResourceNotFoundException' ||
    name === 'NoSuchEntity' ||
    name === 'NoSuchEntityException' ||
    name.endsWith('.NotFound') ||
    name.endsWith('.NotFoundException')
  );
}
