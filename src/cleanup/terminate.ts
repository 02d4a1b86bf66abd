/**
 * The instances step's writes (apply only): TerminateInstances in batches, the deadline checked
 * between them, then the wait until EC2 shows them terminated.
 */
import { counted } from '../domain/words.ts';
import type { Instance } from '../domain/aws.ts';
import { oneLine } from '../domain/shape.ts';
import { shellQuote } from '../domain/shell.ts';
import { CLUSTER_TAG, legacyClusterTag } from '../domain/tags.ts';
import { TERMINATE_BATCH_SIZE, type TerminationResult } from '../ports/aws.ts';
import { chunks } from '../support/concurrency.ts';
import type { CleanupContext } from './budget.ts';
import type { StepRecord } from './outcome.ts';
import { failedCall } from './text.ts';

/** The ids terminated (also added to `out.done`); stops (out.stopped) at the deadline between batches. */
export async function terminateInBatches(
  ctx: CleanupContext,
  out: StepRecord,
  ids: readonly string[],
  byId: ReadonlyMap<string, Instance>,
): Promise<string[]> {
  const fail = (id: string, error: unknown) => out.fail(terminationFailure(ctx, id, byId.get(id), error), id);
  const terminated: string[] = [];
  for (const batch of chunks(ids, TERMINATE_BATCH_SIZE)) {
    if (out.outOfTime()) return terminated;
    let results: TerminationResult[];
    try {
      results = await ctx.connection.aws.ec2.terminateInstances(batch);
    } catch (error) {
      for (const id of batch) fail(id, error);
      continue;
    }
    const resultOf = new Map(results.map((r) => [r.instanceId, r]));
    for (const id of batch) {
      const result = resultOf.get(id);
      if (result && !result.error) {
        terminated.push(id);
        out.done.push(id);
      } else fail(id, result?.error ?? 'no result for this instance');
    }
  }
  return terminated;
}

/** A denial, as EC2 (UnauthorizedOperation) or a wrapper says it; throttling and the like get no hint. */
const DENIED = /UnauthorizedOperation|AccessDenied|not authorized/i;

/**
 * The failure, and for an instance tagged only the pre-1.0 way (`kubernetes.io/cluster/<name>=owned`,
 * no `eks:eks-cluster-name`) that was denied, why and what to run instead: the function's role may
 * terminate only instances carrying `eks:eks-cluster-name` (infra/iam.yml), so it fails every time.
 * The AWS part is cut, not the hint.
 */
function terminationFailure(ctx: CleanupContext, id: string, instance: Instance | undefined, error: unknown): string {
  const failed = failedCall('TerminateInstances', id, error);
  if (instance === undefined || instance.tags[CLUSTER_TAG] !== undefined || !DENIED.test(failed)) return failed;
  const { clusterName, nodePools, deleteNodePools } = ctx.request;
  const region = ctx.connection.aws.region;
  const cliOptions = [
    `--cluster ${shellQuote(clusterName)}`,
    `--region ${shellQuote(region)}`,
    ...(nodePools ?? []).map((pool) => `--nodepool ${shellQuote(pool)}`),
    ...(deleteNodePools ? [] : ['--keep-nodepools']),
    '--apply',
  ];
  const hint =
    `this instance carries only the pre-1.0 tag ${legacyClusterTag(clusterName)}, which the cleanup function's role may not terminate: ` +
    `aws ec2 terminate-instances --region ${shellQuote(region)} --instance-ids ${shellQuote(id)} (or karpenter-sentinel cleanup ${cliOptions.join(' ')} with your credentials)`;
  return `${oneLine(failed, 200)} — ${hint}`;
}

/**
 * Until every one is terminated (an instance no longer listed counts as gone), or the deadline.
 * Returns why their end was not seen (the look failed), or undefined.
 */
export async function waitForTermination(
  ctx: CleanupContext,
  out: StepRecord,
  ids: readonly string[],
): Promise<string | undefined> {
  const { budget } = ctx;
  let waitingFor = [...new Set(ids)];
  const startedAt = budget.now().getTime();
  while (waitingFor.length > 0) {
    if (out.outOfTime()) return undefined;
    let seen: Instance[];
    try {
      seen = await ctx.connection.aws.ec2.describeInstances({ instanceIds: waitingFor });
    } catch (error) {
      const failed = failedCall(
        'DescribeInstances',
        `(waiting for ${counted(waitingFor.length, 'instance')} to terminate)`,
        error,
      );
      out.fail(failed);
      return failed;
    }
    const state = new Map(seen.map((i) => [i.id, i.state]));
    waitingFor = waitingFor.filter((id) => state.has(id) && state.get(id) !== 'terminated');
    if (waitingFor.length === 0) return undefined;
    budget.progress({
      kind: 'waiting',
      step: 'instances',
      shuttingDown: waitingFor.length,
      waitedMs: budget.now().getTime() - startedAt,
    });
    if (!(await out.pause(ctx.pollIntervalMs))) return undefined;
  }
  return undefined;
}
