/**
 * The NodeClaim wait, the step after the NodePools step (under its name: its errors, notes and
 * progress are the NodePools step's). Karpenter drains and terminates the nodes of deleted
 * NodePools; their NodeClaims go when it is done. The wait is bounded from the NodeClaims' own
 * deletionTimestamp, not from this run's start, so a run that resumes after a timeout does not wait
 * the whole bound again. With no controller to drain them there is no wait at all. NodeClaims that
 * cannot be listed cannot be waited for: their instances are then held, in a dry run as in apply
 * (docs/cleanup.md, "Dry run = apply"). A dry run looks once and waits for nothing.
 */
import { counted } from '../domain/words.ts';
import type { NodeClaim } from '../domain/kube.ts';
import { formatDuration } from '../domain/settings.ts';
import { whyNothingDrains } from './controller-check.ts';
import { oneLine } from '../domain/shape.ts';
import type { CleanupContext } from './budget.ts';
import { listNodeClaims } from './kube-objects.ts';
import type { InstanceHold, NodeClaimDrain } from './nodepools-outcome.ts';
import { recorded, StepRecord, type StepOutcome } from './outcome.ts';
import { failedCall } from './text.ts';
import { shellQuote } from '../domain/shell.ts';

/** Why the instances stay when the NodeClaims cannot be listed while a controller may be draining them. */
const CANNOT_WAIT_HINT =
  'give the caller list on nodeclaims (infra/kubernetes/rbac.yaml) and run again, or once the controller is gone run with deleteNodePools false / --keep-nodepools';

export interface NodeClaimWaitOutcome extends StepOutcome {
  /** Every instance, when the NodeClaims could not be listed while a controller may be draining them. */
  readonly hold: InstanceHold | undefined;
}

class NodeClaimWaitRecord extends StepRecord {
  hold: InstanceHold | undefined;

  override outcome(): NodeClaimWaitOutcome {
    return Object.freeze({ ...super.outcome(), hold: this.hold && Object.freeze({ ...this.hold }) });
  }
}

export async function nodeClaimWaitStep(ctx: CleanupContext, drain: NodeClaimDrain): Promise<NodeClaimWaitOutcome> {
  return recorded(new NodeClaimWaitRecord('nodepools', ctx.budget), async (out) => {
    if (ctx.request.dryRun) await firstNodeClaimLook(ctx, out, drain);
    else await waitForNodeClaims(ctx, out, drain);
  });
}

/**
 * The NodeClaims the wait is for, or undefined when they could not be listed: an error, and unless
 * no controller runs to drain them, every instance is held (terminating them now would cut the
 * drain short). A dry run looks once, through this same function, so it plans the same hold.
 */
async function firstNodeClaimLook(
  ctx: CleanupContext,
  out: NodeClaimWaitRecord,
  drain: NodeClaimDrain,
): Promise<NodeClaim[] | undefined> {
  try {
    const listed = await listNodeClaims(drain.kube);
    // Reported once, here: the wait lists them again and again.
    for (const line of listed.setAside) out.fail(`${line}: not waited for`);
    const claims = listed.objects.filter(drain.isWaitedFor);
    if (ctx.request.dryRun && claims.length > 0) {
      out.note(
        `would wait up to ${formatDuration(ctx.nodeClaimWaitMs)} for ${counted(claims.length, 'NodeClaim')} to be drained`,
      );
    }
    return claims;
  } catch (error) {
    await cannotWait(out, drain, error);
    return undefined;
  }
}

async function cannotWait(out: NodeClaimWaitRecord, drain: NodeClaimDrain, error: unknown): Promise<void> {
  const failed = failedCall('list NodeClaims', undefined, error);
  out.fail(`NodeClaims not waited for: ${failed}`);
  const nothingDrains = await whyNothingDrains(drain.kube, drain.cluster);
  if (nothingDrains !== undefined) {
    out.note(`${nothingDrains}: nothing drains the NodeClaims, so their instances are terminated next`);
    return;
  }
  out.hold = { reason: `Karpenter's drain cannot be waited for (${oneLine(failed, 200)}): ${CANNOT_WAIT_HINT}` };
}

async function waitForNodeClaims(ctx: CleanupContext, out: NodeClaimWaitRecord, drain: NodeClaimDrain): Promise<void> {
  const limitMs = ctx.nodeClaimWaitMs;
  const { budget } = ctx;
  let since: number | undefined;
  let drainerChecked = false;
  let claims = await firstNodeClaimLook(ctx, out, drain);
  while (claims !== undefined && claims.length > 0) {
    if (out.outOfTime()) return;
    const now = budget.now().getTime();
    since ??= Math.min(now, earliestDeletion(claims) ?? now);
    const waitedMs = now - since;
    if (waitedMs >= limitMs) {
      // Not an error: the instances step terminates whatever Karpenter did not get to.
      out.note(
        `stopped waiting for ${counted(claims.length, 'NodeClaim')} after ${formatDuration(limitMs)}: their instances are terminated next`,
      );
      return;
    }
    // Asked once, and only when a wait would follow: with no controller, waiting only costs time.
    if (!drainerChecked) {
      drainerChecked = true;
      const why = await whyNothingDrains(drain.kube, drain.cluster);
      if (why !== undefined) {
        out.note(`${why}: nothing will drain the ${counted(claims.length, 'NodeClaim')}; their instances are terminated next`);
        const release = releaseLine(claims);
        if (release) out.note(release);
        return;
      }
    }
    budget.progress({ kind: 'waiting', step: 'nodepools', nodeClaims: claims.length, waitedMs, limitMs });
    if (!(await out.pause(Math.min(ctx.pollIntervalMs, limitMs - waitedMs)))) return;
    if (out.outOfTime()) return;
    claims = await nextLook(out, drain);
  }
}

async function nextLook(out: NodeClaimWaitRecord, drain: NodeClaimDrain): Promise<NodeClaim[] | undefined> {
  try {
    return (await listNodeClaims(drain.kube)).objects.filter(drain.isWaitedFor);
  } catch (error) {
    await cannotWait(out, drain, error);
    return undefined;
  }
}

/** Commands shown in full; the rest are counted, so the line stays readable. */
const MAX_COMMANDS = 5;
const RELEASE_PATCH = `--type merge -p '{"metadata":{"finalizers":null}}'`;

/**
 * Without a controller nothing removes the `karpenter.sh/termination` finalizer, so the NodeClaims
 * outlive their instances (and block deleting the CRDs). Only said, never done: releasing one whose
 * instance still runs would leave that instance unknown to Kubernetes.
 */
function releaseLine(claims: readonly NodeClaim[]): string | undefined {
  const names = claims.flatMap((c) => (c.metadata?.name ? [c.metadata.name] : [])).sort();
  if (names.length === 0) return undefined;
  const commands = names.slice(0, MAX_COMMANDS).map((name) => `kubectl patch nodeclaim ${shellQuote(name)} ${RELEASE_PATCH}`);
  const more = names.length > MAX_COMMANDS ? ` and ${names.length - MAX_COMMANDS} more` : '';
  const held =
    names.length === 1
      ? 'the NodeClaim stays held by the karpenter.sh/termination finalizer; once its instance is terminated, run'
      : `the ${names.length} NodeClaims stay held by the karpenter.sh/termination finalizer; once their instances are terminated, run`;
  return `${held}: ${commands.join('; ')}${more}`;
}

/** The earliest deletionTimestamp; undefined when none is set or readable. */
function earliestDeletion(claims: readonly NodeClaim[]): number | undefined {
  const times = claims.map((c) => Date.parse(c.metadata?.deletionTimestamp ?? '')).filter((t) => Number.isFinite(t));
  return times.length ? Math.min(...times) : undefined;
}
