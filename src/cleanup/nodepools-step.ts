/**
 * Step 1: delete the NodePools while the controller still runs, so Karpenter drains and terminates
 * their nodes itself. Without a reachable API the instances step does the work instead, so no
 * failure here stops the run.
 */
import type { ClusterInfo } from '../domain/aws.ts';
import type { NodePool } from '../domain/kube.ts';
import { KubeUnreachableError } from '../ports/errors.ts';
import type { KubernetesPort } from '../ports/kubernetes.ts';
import { waitForNodeClaims } from './nodeclaim-wait.ts';
import type { CleanupContext, StepEnd } from './run.ts';
import { isNodeClaimOfGoingPool, selectNodePools } from './select.ts';
import { failedCall, namesOf, plannedLine } from './text.ts';

export async function deleteNodePoolsStep(ctx: CleanupContext): Promise<StepEnd> {
  const { request, run } = ctx;
  if (!request.deleteNodePools) {
    run.note('nodepools', 'NodePools left alone (deleteNodePools: false)');
    return 'done';
  }
  if (run.outOfTime('nodepools')) return 'stopped';
  const reached = await reachKube(ctx);
  if (!reached) return 'done';
  const { kube, cluster } = reached;

  let pools: NodePool[];
  try {
    pools = (await kube.list({ resource: 'nodepools' })) as NodePool[];
  } catch (error) {
    run.fail('nodepools', `NodePools not deleted: ${whyUnreadable('list NodePools', error)}`);
    return 'done';
  }
  const selection = selectNodePools(pools, request.nodePools);
  const autoMode = selection.autoMode.length ? ` (EKS Auto Mode's left alone: ${namesOf(selection.autoMode)})` : '';
  run.note('nodepools', plannedLine(request.dryRun, 'delete', 'NodePool', selection.toDelete) + autoMode);
  if (request.dryRun) {
    run.result.nodePoolsDeleted.push(...selection.toDelete);
    return 'done';
  }

  for (const name of selection.toDelete) {
    try {
      // false: gone since it was listed, which is what was wanted (and not this run's doing).
      if (await kube.deleteNodePool(name)) run.result.nodePoolsDeleted.push(name);
    } catch (error) {
      run.fail('nodepools', failedCall('delete NodePool', name, error), name);
    }
  }
  return waitForNodeClaims(ctx, kube, cluster, (claim) => isNodeClaimOfGoingPool(claim, selection, request.nodePools));
}

/** The cluster and its API, or undefined (noted or recorded as an error) when there is none to reach. */
async function reachKube(ctx: CleanupContext): Promise<{ kube: KubernetesPort; cluster: ClusterInfo } | undefined> {
  const { request, run, connection } = ctx;
  let cluster: ClusterInfo;
  try {
    cluster = await connection.aws.eks.describeCluster(request.clusterName);
  } catch (error) {
    run.fail('nodepools', `NodePools not deleted: ${failedCall('DescribeCluster', request.clusterName, error)}`);
    return undefined;
  }
  // A cluster on its way out has no API to ask: its instances are terminated directly.
  if (cluster.gone || cluster.status === 'DELETING') {
    run.note('nodepools', `cluster ${cluster.gone ? 'gone' : 'DELETING'}: no NodePools to delete`);
    return undefined;
  }
  try {
    return { kube: await connection.connectKube(cluster), cluster };
  } catch (error) {
    run.fail('nodepools', `NodePools not deleted: ${whyUnreadable('connect to the Kubernetes API', error)}`);
    return undefined;
  }
}

function whyUnreadable(operation: string, error: unknown): string {
  if (error instanceof KubeUnreachableError) return `Kubernetes API unreachable: ${error.summary}`;
  return failedCall(operation, undefined, error);
}
