/**
 * Step 1: delete the NodePools while the controller still runs, so Karpenter drains and terminates
 * their nodes itself. A cluster that is gone or DELETING has no NodePools to delete: the instances
 * step does the work. But while the cluster exists, a NodePool that could not be deleted (or
 * NodePools that could not be listed) keeps its instances: a controller that still runs would
 * launch replacements for every one terminated. The run carries on with what is allowed.
 */
import type { ClusterInfo } from '../domain/aws.ts';
import type { NodePool } from '../domain/kube.ts';
import { KubeUnreachableError } from '../ports/errors.ts';
import type { KubernetesPort } from '../ports/kubernetes.ts';
import { oneLine } from '../domain/shape.ts';
import { listNodePools, type CheckedList } from './kube-objects.ts';
import { waitForNodeClaims } from './nodeclaim-wait.ts';
import type { CleanupContext, StepEnd } from './run.ts';
import { isNodeClaimOfGoingPool, selectNodePools } from './select.ts';
import { failedCall, namesOf, plannedLine } from './text.ts';

/**
 * What to do about a Kubernetes API that refuses or cannot be reached: the run goes on without the
 * NodePools, and the next one fails the same way until the access is there or they are left alone.
 */
const KUBE_ACCESS_HINT =
  'give the caller list/delete on nodepools (infra/kubernetes/rbac.yaml, group karpenter-sentinel-cleanup; ' +
  'for the function, its access entry) or run with deleteNodePools false / --keep-nodepools';

/** Why instances stay when the NodePools could not be dealt with, and the way out once nothing replaces them. */
const HOLD_HINT =
  'a Karpenter controller that still runs would replace terminated instances; fix the access and run again, ' +
  'or once the controller is gone run with deleteNodePools false / --keep-nodepools';

function holdAll(ctx: CleanupContext, why: string): void {
  ctx.run.instanceHold = { reason: `NodePools could not be deleted (${oneLine(why, 200)}): ${HOLD_HINT}` };
}

export async function deleteNodePoolsStep(ctx: CleanupContext): Promise<StepEnd> {
  const { request, run } = ctx;
  if (!request.deleteNodePools) {
    run.note(
      'nodepools',
      'NodePools left alone (deleteNodePools: false): if the Karpenter controller still runs it replaces the instances terminated next; run this once the controller is gone',
    );
    return 'done';
  }
  if (run.outOfTime('nodepools')) return 'stopped';
  const reached = await reachKube(ctx);
  if (!reached) return 'done';
  const { kube, cluster } = reached;

  let listed: CheckedList<NodePool>;
  try {
    listed = await listNodePools(kube);
  } catch (error) {
    const why = whyUnreadable('list NodePools', error);
    run.fail('nodepools', notDeleted(why));
    holdAll(ctx, why);
    return 'done';
  }
  const pools = listed.objects;
  holdSetAside(ctx, listed);
  const selection = selectNodePools(pools, request.nodePools);
  const absent = absentNamed(pools, request.nodePools, listed.setAsideNames);
  if (absent) run.note('nodepools', absent);
  const autoMode = selection.autoMode.length ? ` (EKS Auto Mode's left alone: ${namesOf(selection.autoMode)})` : '';
  run.note('nodepools', plannedLine(request.dryRun, 'delete', 'NodePool', selection.toDelete) + autoMode);
  if (request.dryRun) {
    run.result.nodePoolsDeleted.push(...selection.toDelete);
    return 'done';
  }

  const notDeletedPools: string[] = [];
  for (const name of selection.toDelete) {
    try {
      // false: gone since it was listed, which is what was wanted (and not this run's doing).
      if (await kube.deleteNodePool(name)) run.result.nodePoolsDeleted.push(name);
    } catch (error) {
      run.fail('nodepools', failedCall('delete NodePool', name, error), name);
      notDeletedPools.push(name);
    }
  }
  if (notDeletedPools.length > 0) {
    holdNodePools(ctx, notDeletedPools);
  }
  return waitForNodeClaims(ctx, kube, cluster, (claim) => isNodeClaimOfGoingPool(claim, selection, request.nodePools));
}

/**
 * NodePools set aside as unreadable are neither deleted nor trusted: each is an error, and their
 * instances are held as a NodePool that could not be deleted would hold them (every instance, when
 * one of them has no name to tell its instances by).
 */
function holdSetAside(ctx: CleanupContext, listed: CheckedList<NodePool>): void {
  for (const line of listed.setAside) ctx.run.fail('nodepools', `${oneLine(line, 300)}: not deleted`);
  if (listed.setAside.length === 0) return;
  if (listed.setAsideNames.length < listed.setAside.length) holdAll(ctx, 'a NodePool could not be read (see errors)');
  else holdNodePools(ctx, listed.setAsideNames);
}

/** Holds these NodePools' instances too; a hold of every instance stays one. */
function holdNodePools(ctx: CleanupContext, names: readonly string[]): void {
  const held = ctx.run.instanceHold;
  if (held && held.nodePools === undefined) return;
  const nodePools = [...new Set([...(held?.nodePools ?? []), ...names])];
  ctx.run.instanceHold = {
    reason: `${nodePools.length === 1 ? 'NodePool' : 'NodePools'} ${namesOf(nodePools)} could not be deleted (see errors): ${HOLD_HINT}`,
    nodePools,
  };
}

/** The cluster and its API, or undefined (noted or recorded as an error) when there is none to reach. */
async function reachKube(ctx: CleanupContext): Promise<{ kube: KubernetesPort; cluster: ClusterInfo } | undefined> {
  const { request, run, connection } = ctx;
  let cluster: ClusterInfo;
  try {
    cluster = await connection.aws.eks.describeCluster(request.clusterName);
  } catch (error) {
    const failed = failedCall('DescribeCluster', request.clusterName, error);
    run.fail('nodepools', `NodePools not deleted: ${failed}`);
    // Unknown whether the cluster (and its controller) still runs: as if it did.
    holdAll(ctx, failed);
    return undefined;
  }
  // A cluster on its way out has no API to ask: its instances are terminated directly.
  if (cluster.gone) {
    // Said where it looked: a typo in the name or the region looks just like a deleted cluster.
    const region = connection.aws.region;
    run.note(
      'nodepools',
      `no cluster ${request.clusterName} in ${region} (deleted already, or a wrong name or region?): no NodePools to delete; only leftovers tagged for it in ${region} are cleaned`,
    );
    return undefined;
  }
  if (cluster.status === 'DELETING') {
    run.note('nodepools', 'cluster DELETING: no NodePools to delete');
    return undefined;
  }
  try {
    return { kube: await connection.connectKube(cluster), cluster };
  } catch (error) {
    const why = whyUnreadable('connect to the Kubernetes API', error);
    run.fail('nodepools', notDeleted(why));
    holdAll(ctx, why);
    return undefined;
  }
}

/** One line: why, then what to do; the why is cut first, so the hint always shows. */
function notDeleted(why: string): string {
  return `NodePools not deleted: ${oneLine(why, 300)} — ${KUBE_ACCESS_HINT}`;
}

/** `no NodePool named nope (present: ondemand-pool, spot-pool)`: a typo deletes nothing, and says so. */
function absentNamed(
  pools: readonly NodePool[],
  named: readonly string[] | undefined,
  setAside: readonly string[],
): string | undefined {
  const present = pools.flatMap((p) => (p.metadata?.name ? [p.metadata.name] : [])).sort();
  const absent = (named ?? []).filter((name) => !present.includes(name) && !setAside.includes(name));
  if (absent.length === 0) return undefined;
  const which = absent.length === 1 ? `no NodePool named ${absent[0]}` : `no NodePools named ${absent.join(', ')}`;
  return `${which} (${present.length ? `present: ${namesOf(present, 10)}` : 'no NodePools present'})`;
}

function whyUnreadable(operation: string, error: unknown): string {
  if (error instanceof KubeUnreachableError) return `Kubernetes API unreachable: ${error.summary}`;
  return failedCall(operation, undefined, error);
}
