/**
 * Step 2: terminate every instance Karpenter launched for the cluster that is still there (the
 * controller may be gone, or gave up), then wait until they are terminated: a VPC or security
 * group cannot be deleted while any of them is shutting down.
 */
import type { Instance, InstanceProfile, LaunchTemplate } from '../domain/aws.ts';
import { launchTemplateIdsOf, needsInstanceProfileProof, type LaunchEvidence } from '../domain/provenance.ts';
import { CLUSTER_TAG, legacyClusterTag, NODEPOOL_TAG } from '../domain/tags.ts';
import type { TerminationResult } from '../ports/aws.ts';
import { oneLine } from '../domain/shape.ts';
import { chunks } from '../support/concurrency.ts';
import type { CleanupContext, StepEnd } from './run.ts';
import { cleanupVerdict, hasEnded, isClusterKarpenterInstance } from './select.ts';
import { counted, failedCall, namesOf, plannedLine } from './text.ts';
import { shellQuote } from '../domain/shell.ts';

/** TerminateInstances calls stay well below EC2's request limits, and the deadline is checked between them. */
export const TERMINATE_BATCH_SIZE = 50;

/** What the run starts from, listed before the NodePools go. */
export interface CleanupCandidates {
  /** Proven Karpenter instances to terminate (what a dry run lists); undefined when they could not be listed. */
  instances: Instance[] | undefined;
  /**
   * The cluster's launch templates: the evidence that Karpenter launched an instance. Listed here,
   * before any instance step, and undefined when they could not be (then nothing is terminated).
   */
  launchTemplates: LaunchTemplate[] | undefined;
  /**
   * Every instance profile, listed only when an instance names a launch template that is gone (its
   * profile is then the proof); undefined when not needed or the listing failed.
   */
  instanceProfiles: InstanceProfile[] | undefined;
}

/** The candidates when the run starts; instances tagged as Karpenter's without proof go to `instancesNotProven`. */
export async function listCleanupCandidates(ctx: CleanupContext): Promise<CleanupCandidates> {
  const listed = await describeClusterInstances(ctx);
  const launchTemplates = await describeClusterLaunchTemplates(ctx, listed ?? []);
  if (!listed) return { instances: undefined, launchTemplates, instanceProfiles: undefined };
  const { clusterName, nodePools } = ctx.request;
  const needProfiles = listed.some(
    (i) => isClusterKarpenterInstance(i, clusterName, nodePools) && !hasEnded(i) && needsInstanceProfileProof(i, launchTemplates),
  );
  const instanceProfiles = needProfiles ? await listInstanceProfilesForProof(ctx) : undefined;
  const atStart = { launchTemplates, instanceProfiles };
  return { instances: provenOnly(ctx, listed, atStart), ...atStart };
}

/** `atStart`: the candidates listed before the NodePools went; those Karpenter terminated since count as done. */
export async function terminateInstancesStep(ctx: CleanupContext, atStart: CleanupCandidates): Promise<StepEnd> {
  const { request, run } = ctx;
  const hold = run.instanceHold;
  if (request.dryRun) {
    const ids = (atStart.instances ?? []).map((i) => i.id).sort();
    noteNotProven(ctx);
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
  const listed = await describeClusterInstances(ctx);
  if (!listed) {
    notAllTerminated(ctx, run.result.errors.at(-1)?.message ?? 'DescribeInstances failed');
    return 'done';
  }
  const current = listed.filter((i) => isClusterKarpenterInstance(i, request.clusterName, request.nodePools));
  // Without the launch templates nothing is proven, so nothing is terminated: they must stay for the next run.
  if (atStart.launchTemplates === undefined) notAllTerminated(ctx, 'the launch templates could not be listed');

  const ended = new Set(current.filter(hasEnded).map((i) => i.id));
  run.result.instancesTerminated.push(...(atStart.instances ?? []).filter((i) => ended.has(i.id)).map((i) => i.id));
  const isHeld = (i: Instance) => hold?.nodePools?.includes(i.tags[NODEPOOL_TAG] ?? '') === true;
  if (hold?.nodePools) {
    run.notStarted('instances', hold.reason, hold.nodePools);
    const held = current.filter((i) => isHeld(i) && !hasEnded(i)).map((i) => i.id);
    if (held.length > 0) notAllTerminated(ctx, `${counted(held.length, 'instance')} of NodePools not deleted left running`);
  }
  // Checked again on the fresh listing: tags may have changed since the run started.
  const toTerminate = provenOnly(
    ctx,
    current.filter((i) => !isHeld(i)),
    atStart,
  )
    .map((i) => i.id)
    .sort();
  noteNotProven(ctx);
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

/**
 * The instances cleanup may terminate: tagged for the cluster, not ending, and proven Karpenter's.
 * The others tagged so are recorded in `instancesNotProven` (once per instance) and left alone.
 */
function provenOnly(
  ctx: CleanupContext,
  instances: readonly Instance[],
  listed: Pick<CleanupCandidates, 'launchTemplates' | 'instanceProfiles'>,
): Instance[] {
  const { clusterName, nodePools } = ctx.request;
  const launched: LaunchEvidence = { ...listed, region: ctx.connection.aws.region };
  const proven: Instance[] = [];
  const notProven = ctx.run.result.instancesNotProven;
  for (const instance of instances) {
    const verdict = cleanupVerdict(instance, clusterName, launched, nodePools);
    if (verdict?.terminate) proven.push(instance);
    else if (verdict && !notProven.some((n) => n.id === instance.id))
      notProven.push({ id: instance.id, reason: verdict.notProven });
  }
  notProven.sort((a, b) => a.id.localeCompare(b.id));
  return proven;
}

/** Said in the instances step, whichever listing found them. */
function noteNotProven(ctx: CleanupContext): void {
  const ids = ctx.run.result.instancesNotProven.map((n) => n.id);
  if (ids.length > 0)
    ctx.run.note('instances', `leaving ${counted(ids.length, 'instance')} not proven launched by Karpenter: ${namesOf(ids)}`);
}

/**
 * Listed before the instance step: the evidence of which instances Karpenter launched. The
 * templates the instances name are looked up by id as well, so one that exists untagged is never
 * taken for gone (docs/guardrails.md, "Provenance").
 */
async function describeClusterLaunchTemplates(
  ctx: CleanupContext,
  instances: readonly Instance[],
): Promise<LaunchTemplate[] | undefined> {
  const { clusterName } = ctx.request;
  try {
    return await ctx.connection.aws.ec2.describeLaunchTemplates(clusterName, launchTemplateIdsOf(instances));
  } catch (error) {
    const what = `(cluster ${clusterName}: without them no instance is proven Karpenter's, so none is terminated)`;
    ctx.run.fail('instances', failedCall('DescribeLaunchTemplates', what, error));
    return undefined;
  }
}

/**
 * For instances whose launch template Karpenter already deleted: their profile is the proof. A
 * failure leaves them unproven (and running), and so keeps the later steps from deleting the
 * profiles that are the proof for the next run.
 */
async function listInstanceProfilesForProof(ctx: CleanupContext): Promise<InstanceProfile[] | undefined> {
  try {
    return await ctx.connection.aws.iam.listInstanceProfiles();
  } catch (error) {
    const what = '(the proof for instances whose launch template is gone: they are not terminated)';
    ctx.run.fail('instances', failedCall('ListInstanceProfiles', what, error));
    notAllTerminated(ctx, 'the instance profiles could not be listed to prove instances whose launch template is gone');
    return undefined;
  }
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
