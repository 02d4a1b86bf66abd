/** Failures a test makes the in-memory AWS answer with: once, N times or always; per instance for TerminateInstances. */

/** The AWS operations the in-memory AWS answers (one per port method: the first call it stands for). */
export type AwsOperation =
  | 'DescribeInstances'
  | 'TerminateInstances'
  | 'DescribeLaunchTemplates'
  | 'DeleteLaunchTemplate'
  | 'DescribeSubnets'
  | 'DescribeInstanceTypes'
  | 'DescribeSpotPriceHistory'
  | 'DescribeCluster'
  | 'ListClusters'
  | 'ListFargateProfiles'
  | 'ListAccessEntries'
  | 'ListInstanceProfiles'
  | 'RemoveRoleFromInstanceProfile'
  | 'DeleteInstanceProfile'
  | 'GetQueueUrl'
  | 'ListRuleNamesByTarget'
  | 'GetMetricStatistics';

/** The operations that change the account (what a dry run or a finished cleanup never calls). */
export const AWS_WRITE_OPERATIONS: readonly AwsOperation[] = [
  'TerminateInstances',
  'DeleteLaunchTemplate',
  'RemoveRoleFromInstanceProfile',
  'DeleteInstanceProfile',
];

export interface FaultSpec {
  /** An error as the SDK throws it, or its AWS code (`UnauthorizedOperation`) and message. */
  error: Error | { code: string; message?: string };
  /** How many calls fail (default 1), or every one. */
  times?: number | 'always';
  /** TerminateInstances only: this instance fails, the others of the call go through. */
  instanceId?: string;
}

interface ArmedFault {
  error: Error;
  remaining: number;
  instanceId: string | undefined;
}

export class AwsFaults {
  readonly #armed = new Map<AwsOperation, ArmedFault[]>();

  /** Makes `operation` fail; faults queue up in the order given. */
  fail(operation: AwsOperation, spec: FaultSpec): this {
    const error = spec.error instanceof Error ? spec.error : awsError(spec.error.code, spec.error.message);
    const remaining = spec.times === 'always' ? Number.POSITIVE_INFINITY : (spec.times ?? 1);
    const list = this.#armed.get(operation) ?? [];
    list.push({ error, remaining, instanceId: spec.instanceId });
    this.#armed.set(operation, list);
    return this;
  }

  clear(): void {
    this.#armed.clear();
  }

  /** The error this call of `operation` fails with, if any (`instanceId`: only faults armed for it). */
  take(operation: AwsOperation, instanceId?: string): Error | undefined {
    const list = this.#armed.get(operation) ?? [];
    const fault = list.find((f) => f.remaining > 0 && f.instanceId === instanceId);
    if (!fault) return undefined;
    fault.remaining--;
    return fault.error;
  }
}

/** An error shaped like an SDK exception: the AWS code as its name. */
export function awsError(code: string, message = `${code} (simulated)`): Error {
  const error = new Error(message);
  error.name = code;
  return error;
}
