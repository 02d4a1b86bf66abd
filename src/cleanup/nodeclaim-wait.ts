/**
 * Karpenter drains and terminates the nodes of deleted NodePools; their NodeClaims go when it is
 * done. The wait is bounded from the NodeClaims' own deletionTimestamp, not from this run's start,
 * so a run that resumes after a timeout does not wait the whole bound again. With no controller to
 * drain them there is no wait at all.
 */
import type { ClusterInfo } from '../domain/aws.ts';
import type { NodeClaim } from '../domain/kube.ts';
import { formatDuration } from '../domain/settings.ts';
import type { KubernetesReader } from '../ports/kubernetes.ts';
import { whyNothingDrains } from './controller-check.ts';
import { listNodeClaims } from './kube-objects.ts';
import type { CleanupContext, StepEnd } from './run.ts';
import { counted, failedCall } from './text.ts';
import { shellQuote } from '../domain/shell.ts';

export async function waitForNodeClaims(
  ctx: CleanupContext,
  kube: KubernetesReader,
  cluster: ClusterInfo,
  isWaitedFor: (claim: NodeClaim) => boolean,
): Promise<StepEnd> {
  const { run, nodeClaimWaitMs: limitMs } = ctx;
  let since: number | undefined;
  let drainerChecked = false;
  let oddReported = false;
  for (;;) {
    if (run.outOfTime('nodepools')) return 'stopped';
    let claims: NodeClaim[];
    try {
      const listed = await listNodeClaims(kube);
      // Reported once: the wait lists them again and again.
      if (!oddReported) for (const line of listed.setAside) run.fail('nodepools', `${line}: not waited for`);
      oddReported = true;
      claims = listed.objects.filter(isWaitedFor);
    } catch (error) {
      run.fail('nodepools', `NodeClaims not waited for: ${failedCall('list NodeClaims', undefined, error)}`);
      return 'done';
    }
    if (claims.length === 0) return 'done';

    const now = run.now().getTime();
    since ??= Math.min(now, earliestDeletion(claims) ?? now);
    const waitedMs = now - since;
    if (waitedMs >= limitMs) {
      // Not an error: the instances step terminates whatever Karpenter did not get to.
      run.note(
        'nodepools',
        `stopped waiting for ${counted(claims.length, 'NodeClaim')} after ${formatDuration(limitMs)}: their instances are terminated next`,
      );
      return 'done';
    }
    // Asked once, and only when a wait would follow: with no controller, waiting only costs time.
    if (!drainerChecked) {
      drainerChecked = true;
      const why = await whyNothingDrains(kube, cluster);
      if (why !== undefined) {
        run.note(
          'nodepools',
          `${why}: nothing will drain the ${counted(claims.length, 'NodeClaim')}; their instances are terminated next`,
        );
        const release = releaseLine(claims);
        if (release) run.note('nodepools', release);
        return 'done';
      }
    }
    run.progress({ kind: 'waiting', step: 'nodepools', nodeClaims: claims.length, waitedMs, limitMs });
    if (!(await run.pause('nodepools', Math.min(ctx.pollIntervalMs, limitMs - waitedMs)))) return 'stopped';
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
