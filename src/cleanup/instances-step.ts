/**
 * Step 2: terminate every instance Karpenter launched for the cluster that is still there (the
 * controller may be gone, or gave up), then wait until they are terminated: a VPC or security
 * group cannot be deleted while any of them is shutting down.
 */
import type { Instance } from '../domain/aws.ts';
import { CLUSTER_TAG, legacyClusterTag, NODEPOOL_TAG } from '../domain/tags.ts';
import type { TerminationResult } from '../ports/aws.ts';
import { oneLine } from '../snapshot/shape.ts';
import { chunks } from '../support/concurrency.ts';
import type { CleanupContext, StepEnd } from './run.ts';
import { hasEnded, isCleanupCandidate, isClusterKarpenterInstance } from './select.ts';
import { counted, failedCall, namesOf, plannedLine } from './text.ts';

/** TerminateInstances calls stay well below EC2's request limits, and the deadline is checked between them. */
export const TERMINATE_BATCH_SIZE = 50;

/** The candidates when the run starts (what a dry run lists); undefined when they could not be listed. */
export async function listCleanupCandidates(ctx: CleanupContext): Promise<Instance[] | undefined> {
  const instances = await describeClusterInstances(ctx);
  return instances?.filter((i) => isCleanupCandidate(i, ctx.request.clusterName, ctx.request.nodePools));
}

/** `atStart`: the candidates listed before the NodePools went; those Karpenter terminated since count as done. */
export async function terminateInstancesStep(ctx: CleanupContext, atStart: readonly Instance[] | undefined): Promise<StepEnd> {
  const { request, run } = ctx;
  const hold = run.instanceHold;
  if (request.dryRun) {
    const ids = (atStart ?? []).map((i) => i.id).sort();
    run.note('instances', plannedLine(true, 'terminate', 'instance', ids));
    // A dry run lists what the steps would do in order; applied, this is what would keep them.
    if (hold) run.note('instances', `applied now, these would not be terminated: ${hold.reason}`);
    run.result.instancesTerminated.push(...ids);
    return 'done';
  }
  if (hold && hold.nodePools === undefined) {
    run.notStarted('instances', hold.reason);
    notAllTerminated(ctx, 'the instances step did not start');
    return 'done';
  }
  if (run.outOfTime('instances')) return 'stopped';
  const current = (await describeClusterInstances(ctx))?.filter((i) =>
    isClusterKarpenterInstance(i, request.clusterName, request.nodePools),
  );
  if (!current) {
    notAllTerminated(ctx, run.result.errors.at(-1)?.message ?? 'DescribeInstances failed');
    return 'done';
  }

  const ended = new Set(current.filter(hasEnded).map((i) => i.id));
  run.result.instancesTerminated.push(...(atStart ?? []).filter((i) => ended.has(i.id)).map((i) => i.id));
  const isHeld = (i: Instance) => hold?.nodePools?.includes(i.tags[NODEPOOL_TAG] ?? '') === true;
  if (hold?.nodePools) {
    run.notStarted('instances', hold.reason, hold.nodePools);
    const held = current.filter((i) => isHeld(i) && !hasEnded(i)).map((i) => i.id);
    if (held.length > 0) notAllTerminated(ctx, `${counted(held.length, 'instance')} of NodePools not deleted left running`);
  }
  const toTerminate = current
    .filter((i) => !hasEnded(i) && !isHeld(i))
    .map((i) => i.id)
    .sort();
  run.note('instances', plannedLine(false, 'terminate', 'instance', toTerminate));
  const { terminated, end } = await terminateInBatches(ctx, toTerminate, new Map(current.map((i) => [i.id, i])));
  if (end === 'stopped') return 'stopped';
  const failed = toTerminate.filter((id) => !terminated.includes(id));
  if (failed.length > 0)
    notAllTerminated(ctx, `${counted(failed.length, 'instance')} not terminated (${namesOf(failed)}; see errors)`);
  // Already shutting down (Karpenter's doing, or an earlier run's) is waited for, never terminated twice.
  const shuttingDown = current.filter((i) => i.state === 'shutting-down').map((i) => i.id);
  return waitForTermination(ctx, [...terminated, ...shuttingDown]);
}

/** Why the launch templates and instance profiles must wait (they are in use while an instance may run). */
function notAllTerminated(ctx: CleanupContext, why: string): void {
  const before = ctx.run.instancesNotAllTerminated;
  ctx.run.instancesNotAllTerminated = before === undefined ? why : `${before}; ${why}`;
}

async function describeClusterInstances(ctx: CleanupContext): Promise<Instance[] | undefined> {
  const { clusterName } = ctx.request;
  try {
    return await ctx.connection.aws.ec2.describeInstances({ clusterName, tagKey: NODEPOOL_TAG });
  } catch (error) {
    ctx.run.fail('instances', failedCall('DescribeInstances', `(instances of cluster ${clusterName})`, error));
    return undefined;
  }
}

async function terminateInBatches(
  ctx: CleanupContext,
  ids: readonly string[],
  byId: ReadonlyMap<string, Instance>,
): Promise<{ terminated: string[]; end: StepEnd }> {
  const { run } = ctx;
  const fail = (id: string, error: unknown) => run.fail('instances', terminationFailure(ctx, id, byId.get(id), error), id);
  const terminated: string[] = [];
  for (const batch of chunks(ids, TERMINATE_BATCH_SIZE)) {
    if (run.outOfTime('instances')) return { terminated, end: 'stopped' };
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
        run.result.instancesTerminated.push(id);
      } else fail(id, result?.error ?? 'no result for this instance');
    }
  }
  return { terminated, end: 'done' };
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
    `--cluster ${clusterName}`,
    `--region ${region}`,
    ...(nodePools ?? []).map((pool) => `--nodepool ${pool}`),
    ...(deleteNodePools ? [] : ['--keep-nodepools']),
    '--apply',
  ];
  const hint =
    `this instance carries only the pre-1.0 tag ${legacyClusterTag(clusterName)}, which the cleanup function's role may not terminate: ` +
    `aws ec2 terminate-instances --region ${region} --instance-ids ${id} (or karpenter-sentinel cleanup ${cliOptions.join(' ')} with your credentials)`;
  return `${oneLine(failed, 200)} — ${hint}`;
}

/** Until every one is terminated (an instance no longer listed counts as gone), or the deadline. */
async function waitForTermination(ctx: CleanupContext, ids: readonly string[]): Promise<StepEnd> {
  const { run } = ctx;
  let waitingFor = [...new Set(ids)];
  const startedAt = run.now().getTime();
  while (waitingFor.length > 0) {
    if (run.outOfTime('instances')) return 'stopped';
    let seen: Instance[];
    try {
      seen = await ctx.connection.aws.ec2.describeInstances({ instanceIds: waitingFor });
    } catch (error) {
      const what = `(waiting for ${counted(waitingFor.length, 'instance')} to terminate)`;
      const failed = failedCall('DescribeInstances', what, error);
      run.fail('instances', failed);
      notAllTerminated(ctx, failed);
      return 'done';
    }
    const state = new Map(seen.map((i) => [i.id, i.state]));
    waitingFor = waitingFor.filter((id) => state.has(id) && state.get(id) !== 'terminated');
    if (waitingFor.length === 0) return 'done';
    run.progress({
      kind: 'waiting',
      step: 'instances',
      shuttingDown: waitingFor.length,
      waitedMs: run.now().getTime() - startedAt,
    });
    if (!(await run.pause('instances', ctx.pollIntervalMs))) return 'stopped';
  }
  return 'done';
}
