/**
 * Step 2: terminate every instance Karpenter launched for the cluster that is still there (the
 * controller may be gone, or gave up), then wait until they are terminated: a VPC or security
 * group cannot be deleted while any of them is shutting down. The plan (which to terminate, which
 * to leave and why) is computed the same in a dry run; only the writes and the wait are apply's.
 */
import { counted } from '../domain/words.ts';
import type { InstanceNotProven } from '../domain/cleanup.ts';
import { NODEPOOL_TAG } from '../domain/tags.ts';
import type { Instance } from '../domain/aws.ts';
import type { CleanupContext } from './budget.ts';
import { describeClusterInstances, provenOnly, type CleanupCandidates } from './candidates.ts';
import type { InstanceHold } from './nodepools-outcome.ts';
import { frozen, recorded, StepRecord, type StepOutcome } from './outcome.ts';
import { hasEnded, isClusterKarpenterInstance } from './select.ts';
import { terminateInBatches, waitForTermination } from './terminate.ts';
import { namesOf, plannedLine } from './text.ts';

export interface InstancesOutcome extends StepOutcome {
  /** Tagged as Karpenter's for the cluster but not proven launched by it: left, listed with why. */
  readonly notProven: readonly InstanceNotProven[];
  /**
   * Why not every Karpenter instance of the cluster can be shown terminated: listing failed, some
   * were held or not terminated, or their end was not seen. Launch templates and instance profiles
   * wait while any reason stands; a dry run plans the same reasons (save the writes' own).
   */
  readonly notAllTerminated: readonly string[];
}

class InstancesRecord extends StepRecord {
  readonly notProven: InstanceNotProven[] = [];
  readonly notAllTerminated: string[] = [];

  override outcome(): InstancesOutcome {
    return Object.freeze({
      ...super.outcome(),
      notProven: frozen(this.notProven),
      notAllTerminated: frozen(this.notAllTerminated),
    });
  }
}

/** `hold`: the instances the steps before must keep (src/cleanup/nodepools-outcome.ts, instanceHoldOf). */
export async function instancesStep(
  ctx: CleanupContext,
  before: { candidates: CleanupCandidates; hold: InstanceHold | undefined },
): Promise<InstancesOutcome> {
  return recorded(new InstancesRecord('instances', ctx.budget), (out) =>
    terminateProven(ctx, out, before.candidates, before.hold),
  );
}

async function terminateProven(
  ctx: CleanupContext,
  out: InstancesRecord,
  atStart: CleanupCandidates,
  hold: InstanceHold | undefined,
): Promise<void> {
  const { request } = ctx;
  out.errors.push(...atStart.errors);
  out.notAllTerminated.push(...atStart.notAllTerminated);
  out.notProven.push(...atStart.notProven);
  if (hold && hold.nodePools === undefined) {
    out.notStart(hold.reason);
    out.notAllTerminated.push('the instances step did not start');
    return;
  }
  if (out.outOfTime()) return;
  // Listed again, in a dry run too: tags may have changed since the run started, and a failure must plan what apply meets.
  const listed = await describeClusterInstances(ctx, (message) => out.fail(message));
  if (!listed) {
    out.notAllTerminated.push(out.errors.at(-1)?.message ?? 'DescribeInstances failed');
    return;
  }
  const current = listed.filter((i) => isClusterKarpenterInstance(i, request.clusterName, request.nodePools));
  // Without the launch templates nothing is proven, so nothing is terminated: they must stay for the next run.
  if (atStart.launchTemplates === undefined) out.notAllTerminated.push('the launch templates could not be listed');

  // Found at the start and ended since: Karpenter drained them (a dry run finds none).
  const ended = new Set(current.filter(hasEnded).map((i) => i.id));
  out.done.push(...(atStart.instances ?? []).filter((i) => ended.has(i.id)).map((i) => i.id));
  const isHeld = (i: Instance) => hold?.nodePools?.includes(i.tags[NODEPOOL_TAG] ?? '') === true;
  if (hold?.nodePools) {
    out.notStart(hold.reason, hold.nodePools);
    const held = current.filter((i) => isHeld(i) && !hasEnded(i)).map((i) => i.id);
    if (held.length > 0) out.notAllTerminated.push(`${counted(held.length, 'instance')} of NodePools not deleted left running`);
  }
  const toTerminate = provenOnly(
    ctx,
    current.filter((i) => !isHeld(i)),
    atStart,
    out.notProven,
  )
    .map((i) => i.id)
    .sort();
  if (out.notProven.length > 0) {
    const ids = out.notProven.map((n) => n.id);
    out.note(`leaving ${counted(ids.length, 'instance')} not proven launched by Karpenter: ${namesOf(ids)}`);
  }
  out.note(plannedLine(request.dryRun, 'terminate', 'instance', toTerminate));
  if (request.dryRun) {
    out.done.push(...toTerminate);
    return;
  }
  const terminated = await terminateInBatches(ctx, out, toTerminate, new Map(current.map((i) => [i.id, i])));
  if (out.stopped) return;
  const failed = toTerminate.filter((id) => !terminated.includes(id));
  if (failed.length > 0)
    out.notAllTerminated.push(`${counted(failed.length, 'instance')} not terminated (${namesOf(failed)}; see errors)`);
  // Already shutting down (Karpenter's doing, or an earlier run's) is waited for, never terminated twice.
  const shuttingDown = current.filter((i) => i.state === 'shutting-down').map((i) => i.id);
  const unseen = await waitForTermination(ctx, out, [...terminated, ...shuttingDown]);
  if (unseen !== undefined) out.notAllTerminated.push(unseen);
}

/** Why the launch templates and instance profiles must wait, or undefined when every Karpenter instance is (or is planned) gone. */
export function whyInstancesMayRun(instances: InstancesOutcome): string | undefined {
  if (instances.notAllTerminated.length === 0) return undefined;
  return `instances not all known terminated: ${instances.notAllTerminated.join('; ')}`;
}

/**
 * Whether an instance still runs once this step is through: not ending, and not among those the
 * step terminated (or, in a dry run, plans to terminate). What it names stays in use.
 */
export function stillRuns(instances: InstancesOutcome): (instance: Instance) => boolean {
  const ending = new Set(instances.done);
  return (i) => !hasEnded(i) && !ending.has(i.id);
}
