/**
 * Karpenter drains and terminates the nodes of deleted NodePools; their NodeClaims go when it is
 * done. The wait is bounded from the NodeClaims' own deletionTimestamp, not from this run's start,
 * so a run that resumes after a timeout does not wait the whole bound again. With no controller to
 * drain them there is no wait at all. NodeClaims that cannot be listed cannot be waited for: their
 * instances are then held, in a dry run as in apply (docs/cleanup.md, "Dry run = apply").
 */
import { counted } from '../domain/counted.ts';
import type { ClusterInfo } from '../domain/aws.ts';
import type { NodeClaim } from '../domain/kube.ts';
import { formatDuration } from '../domain/settings.ts';
import type { KubernetesReader } from '../ports/kubernetes.ts';
import { whyNothingDrains } from './controller-check.ts';
import { oneLine } from '../domain/shape.ts';
import type { CleanupContext } from './budget.ts';
import { listNodeClaims } from './kube-objects.ts';
import type { NodePoolsOutcome } from './nodepools-outcome.ts';
import { failedCall } from './text.ts';
import { shellQuote } from '../domain/shell.ts';

/** Why the instances stay when the NodeClaims cannot be listed while a controller may be draining them. */
const CANNOT_WAIT_HINT =
  'give the caller list on nodeclaims (infra/kubernetes/rbac.yaml) and run again, or once the controller is gone run with deleteNodePools false / --keep-nodepools';

type IsWaitedFor = (claim: NodeClaim) => boolean;

/**
 * The NodeClaims the wait is for, or undefined when they could not be listed: an error, and unless
 * no controller runs to drain them, every instance is held (terminating them now would cut the
 * drain short). A dry run looks once, through this same function, so it plans the same hold.
 */
export async function firstNodeClaimLook(
  ctx: CleanupContext,
  out: NodePoolsOutcome,
  kube: KubernetesReader,
  cluster: ClusterInfo,
  isWaitedFor: IsWaitedFor,
): Promise<NodeClaim[] | undefined> {
  try {
    const listed = await listNodeClaims(kube);
    // Reported once, here: the wait lists them again and again.
    for (const line of listed.setAside) out.fail(`${line}: not waited for`);
    const claims = listed.objects.filter(isWaitedFor);
    if (ctx.request.dryRun && claims.length > 0) {
      out.note(
        `would wait up to ${formatDuration(ctx.nodeClaimWaitMs)} for ${counted(claims.length, 'NodeClaim')} to be drained`,
      );
    }
    return claims;
  } catch (error) {
    await cannotWait(out, kube, cluster, error);
    return undefined;
  }
}

async function cannotWait(out: NodePoolsOutcome, kube: KubernetesReader, cluster: ClusterInfo, error: unknown): Promise<void> {
  const failed = failedCall('list NodeClaims', undefined, error);
  out.fail(`NodeClaims not waited for: ${failed}`);
  const nothingDrains = await whyNothingDrains(kube, cluster);
  if (nothingDrains !== undefined) {
    out.note(`${nothingDrains}: nothing drains the NodeClaims, so their instances are terminated next`);
    return;
  }
  if (out.hold !== undefined && out.hold.nodePools === undefined) return;
  out.hold = { reason: `Karpenter's drain cannot be waited for (${oneLine(failed, 200)}): ${CANNOT_WAIT_HINT}` };
}

export async function waitForNodeClaims(
  ctx: CleanupContext,
  out: NodePoolsOutcome,
  kube: KubernetesReader,
  cluster: ClusterInfo,
  isWaitedFor: IsWaitedFor,
): Promise<void> {
  const limitMs = ctx.nodeClaimWaitMs;
  const { budget } = ctx;
  let since: number | undefined;
  let drainerChecked = false;
  let claims = await firstNodeClaimLook(ctx, out, kube, cluster, isWaitedFor);
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
      const why = await whyNothingDrains(kube, cluster);
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
    claims = await nextLook(out, kube, cluster, isWaitedFor);
  }
}

async function nextLook(
  out: NodePoolsOutcome,
  kube: KubernetesReader,
  cluster: ClusterInfo,
  isWaitedFor: IsWaitedFor,
): Promise<NodeClaim[] | undefined> {
  try {
    return (await listNodeClaims(kube)).objects.filter(isWaitedFor);
  } catch (error) {
    await cannotWait(out, kube, cluster, error);
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
