/**
 * Step 1: delete the NodePools while the controller still runs, so Karpenter drains and terminates
 * their nodes itself. A cluster that is gone or DELETING has no NodePools to delete: the instances
 * step does the work. But while the cluster exists, a NodePool that could not be deleted (or
 * NodePools that could not be listed) keeps its instances: a controller that still runs would
 * launch replacements for every one terminated. The outcome says which instances stay (its
 * `hold`), carries the EC2NodeClasses the instance-profiles step checks roles against, and the
 * NodeClaims the wait after it is for (its `drain`, src/cleanup/nodeclaim-wait.ts).
 */
import type { ClusterInfo } from '../domain/aws.ts';
import type { EC2NodeClass, NodePool } from '../domain/kube.ts';
import { networkFailureOf } from '../domain/network-errors.ts';
import { KubeUnreachableError, SourceError } from '../ports/errors.ts';
import type { KubernetesPort } from '../ports/kubernetes.ts';
import { oneLine } from '../domain/shape.ts';
import type { CleanupContext } from './budget.ts';
import { listNodeClasses, listNodePools, type CheckedList } from './kube-objects.ts';
import { NodePoolsRecord, type NodePoolsOutcome } from './nodepools-outcome.ts';
import { recorded } from './outcome.ts';
import { isNodeClaimOfGoingPool, selectNodePools } from './select.ts';
import { failedCall, namesOf, plannedLine } from './text.ts';

/**
 * What to do about a Kubernetes API that refuses (401, 403): the run goes on without the NodePools,
 * and the next one fails the same way until the access is there or they are left alone.
 */
const KUBE_ACCESS_HINT =
  'give the caller list/delete on nodepools (infra/kubernetes/rbac.yaml, group karpenter-sentinel-cleanup; ' +
  'for the function, its access entry) or run with deleteNodePools false / --keep-nodepools';

/** What to do about an API endpoint the caller cannot reach (DNS, refused, timed out, TLS): no permission helps there. */
const KUBE_REACH_HINT =
  "check that the cluster's API endpoint is reachable from where this runs: its name resolves (DNS), public endpoint " +
  'access is on (the cleanup function reaches it only that way), or from inside the VPC of a private endpoint port 443 ' +
  'is open to you; then run again, or run with deleteNodePools false / --keep-nodepools';

/** Any other failure (a 5xx, a missing CRD): the reason says what; nothing to advise but another run. */
const KUBE_RETRY_HINT = 'run again once the reason above is fixed, or run with deleteNodePools false / --keep-nodepools';

/** RBAC advice only where the API refused the caller; reachability advice where the network failed (domain/network-errors.ts). */
function kubeHint(error: unknown): string {
  const code = error instanceof SourceError ? error.code : undefined;
  if (code === '401' || code === '403') return KUBE_ACCESS_HINT;
  if (networkFailureOf(code) !== undefined) return KUBE_REACH_HINT;
  return KUBE_RETRY_HINT;
}

export function nodePoolsStep(ctx: CleanupContext): Promise<NodePoolsOutcome> {
  return recorded(new NodePoolsRecord('nodepools', ctx.budget), (out) => deleteNodePools(ctx, out));
}

async function deleteNodePools(ctx: CleanupContext, out: NodePoolsRecord): Promise<void> {
  const { request } = ctx;
  if (!request.deleteNodePools) {
    out.note(
      'NodePools left alone (deleteNodePools: false): if the Karpenter controller still runs it replaces the instances terminated next; run this once the controller is gone',
    );
    return;
  }
  if (out.outOfTime()) return;
  const reached = await reachKube(ctx, out);
  if (!reached) return;
  const { kube, cluster } = reached;

  let listed: CheckedList<NodePool>;
  try {
    listed = await listNodePools(kube);
  } catch (error) {
    const why = whyUnreadable('list NodePools', error);
    out.fail(notDeleted(why, error));
    out.holdAll(why);
    return;
  }
  out.nodeClasses = await nodeClassesIfReadable(kube, out);
  const pools = listed.objects;
  holdSetAside(out, listed);
  const selection = selectNodePools(pools, request.nodePools);
  const absent = absentNamed(pools, request.nodePools, listed.setAsideNames);
  if (absent) out.note(absent);
  const autoMode = selection.autoMode.length ? ` (EKS Auto Mode's left alone: ${namesOf(selection.autoMode)})` : '';
  out.note(plannedLine(request.dryRun, 'delete', 'NodePool', selection.toDelete) + autoMode);
  // The NodeClaims are looked at (a dry run) or waited for the same: a failure holds the same instances.
  out.drain = { kube, cluster, isWaitedFor: (claim) => isNodeClaimOfGoingPool(claim, selection, request.nodePools) };
  if (request.dryRun) {
    out.done.push(...selection.toDelete);
    return;
  }

  const notDeletedPools: string[] = [];
  for (const name of selection.toDelete) {
    try {
      // false: gone since it was listed, which is what was wanted (and not this run's doing).
      if (await kube.deleteNodePool(name)) out.done.push(name);
    } catch (error) {
      out.fail(`${failedCall('delete NodePool', name, error)} — ${kubeHint(error)}`, name);
      notDeletedPools.push(name);
    }
  }
  if (notDeletedPools.length > 0) out.holdNodePools(notDeletedPools);
}

/**
 * The EC2NodeClasses when the caller may list them; else undefined, and profiles are judged by
 * Karpenter's path and name alone, as before there were any (a note says so, not an error).
 */
async function nodeClassesIfReadable(kube: KubernetesPort, out: NodePoolsRecord): Promise<EC2NodeClass[] | undefined> {
  try {
    const listed = await listNodeClasses(kube);
    // One set aside could name a role: without it the others do not tell the whole story.
    if (listed.setAside.length === 0) return listed.objects;
    out.note(`${oneLine(listed.setAside[0] ?? '', 200)}: instance profiles are judged by Karpenter's path and name alone`);
  } catch (error) {
    out.note(
      `EC2NodeClasses not listed (${oneLine(whyUnreadable('list EC2NodeClasses', error), 200)}): instance profiles are judged by Karpenter's path and name alone`,
    );
  }
  return undefined;
}

/**
 * NodePools set aside as unreadable are neither deleted nor trusted: each is an error, and their
 * instances are held as a NodePool that could not be deleted would hold them (every instance, when
 * one of them has no name to tell its instances by).
 */
function holdSetAside(out: NodePoolsRecord, listed: CheckedList<NodePool>): void {
  for (const line of listed.setAside) out.fail(`${oneLine(line, 300)}: not deleted`);
  if (listed.setAside.length === 0) return;
  if (listed.setAsideNames.length < listed.setAside.length) out.holdAll('a NodePool could not be read (see errors)');
  else out.holdNodePools(listed.setAsideNames);
}

/** The cluster and its API, or undefined (noted or recorded as an error) when there is none to reach. */
async function reachKube(
  ctx: CleanupContext,
  out: NodePoolsRecord,
): Promise<{ kube: KubernetesPort; cluster: ClusterInfo } | undefined> {
  const { request, connection } = ctx;
  let cluster: ClusterInfo;
  try {
    cluster = await connection.aws.eks.describeCluster(request.clusterName);
  } catch (error) {
    const failed = failedCall('DescribeCluster', request.clusterName, error);
    out.fail(`NodePools not deleted: ${failed}`);
    // Unknown whether the cluster (and its controller) still runs: as if it did.
    out.holdAll(failed);
    return undefined;
  }
  // A cluster on its way out has no API to ask: its instances are terminated directly.
  if (cluster.gone) {
    // Said where it looked: a typo in the name or the region looks just like a deleted cluster.
    const region = connection.aws.region;
    out.noteInResult(
      `no cluster ${request.clusterName} in ${region} (deleted already, or a wrong name or region?): no NodePools to delete; only leftovers tagged for it in ${region} are cleaned`,
    );
    return undefined;
  }
  if (cluster.status === 'DELETING') {
    out.noteInResult('cluster DELETING: no NodePools to delete');
    return undefined;
  }
  try {
    return { kube: await connection.connectKube(cluster), cluster };
  } catch (error) {
    const why = whyUnreadable('connect to the Kubernetes API', error);
    out.fail(notDeleted(why, error));
    out.holdAll(why);
    return undefined;
  }
}

/** One line: why, then what to do about `error`; the why is cut first, so the hint always shows. */
function notDeleted(why: string, error: unknown): string {
  return `NodePools not deleted: ${oneLine(why, 300)} — ${kubeHint(error)}`;
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
