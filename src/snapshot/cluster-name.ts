import type { ClusterInfo, Instance } from '../domain/aws.ts';
import { UsageError } from '../domain/errors.ts';
import type { Container, Deployment, Pod } from '../domain/kube.ts';
import { CONTROLLER_LABEL, CONTROLLER_LABEL_VALUE } from './snapshot-index.ts';

export const UNKNOWN_CLUSTER = 'unknown';
const CLUSTER_TAG = 'eks:eks-cluster-name';

export interface ClusterNameEvidence {
  /** `--cluster NAME`. */
  option: string | undefined;
  /** From `aws eks describe-cluster` (or its "no cluster found" error). */
  cluster: ClusterInfo | undefined;
  deployments: readonly Deployment[];
  pods: readonly Pod[];
  instances: readonly Instance[];
}

/**
 * Which cluster a capture is about, most explicit first: --cluster, describe-cluster, the
 * Karpenter controller's CLUSTER_NAME, the instances' cluster tag. A capture that mixes clusters
 * must not be analysed as one: orphan detection would terminate another cluster's nodes.
 */
export function resolveClusterName(evidence: ClusterNameEvidence): string {
  const { option, cluster } = evidence;
  if (option && cluster && option !== cluster.name) {
    throw new UsageError(
      `--cluster ${option} does not match the captured describe-cluster output, which is for cluster ${cluster.name}`,
    );
  }
  if (option) return option;
  if (cluster) return cluster.name;
  const configured = controllerClusterNames(evidence.deployments, evidence.pods);
  if (configured.length === 1) return configured[0] as string;
  if (configured.length > 1) {
    throw new UsageError(
      `cannot tell which cluster this capture is for (Karpenter controllers configured for ${configured.join(', ')}): pass --cluster NAME`,
    );
  }
  const tagged = distinctSorted(evidence.instances.map((i) => i.tags[CLUSTER_TAG]));
  if (tagged.length === 1) return tagged[0] as string;
  if (tagged.length > 1) {
    throw new UsageError(
      `cannot tell which cluster this capture is for (instances tagged for ${tagged.join(', ')}): pass --cluster NAME`,
    );
  }
  return UNKNOWN_CLUSTER;
}

/**
 * The Karpenter controller configured for another cluster than the one the capture is taken to
 * be about: kubectl pointed at another cluster than the AWS CLI (then NodeClaims and instances
 * do not belong together), or a controller whose CLUSTER_NAME is wrong (then its nodes cannot
 * join). Either way the user should know; neither is for the loader to decide.
 */
export function controllerClusterMismatch(evidence: ClusterNameEvidence, clusterName: string): string | undefined {
  const configured = controllerClusterNames(evidence.deployments, evidence.pods);
  if (configured.length === 0 || configured.includes(clusterName)) return undefined;
  const from = evidence.option ? '--cluster' : 'aws eks describe-cluster';
  return `${from} names cluster ${clusterName}, but the Karpenter controller in the capture is configured for ${configured.join(', ')} (CLUSTER_NAME): was kubectl pointed at another cluster?`;
}

/** CLUSTER_NAME env values of Deployments and pods labelled as the Karpenter controller. */
function controllerClusterNames(deployments: readonly Deployment[], pods: readonly Pod[]): string[] {
  const isController = (labels: Record<string, string> | undefined) => labels?.[CONTROLLER_LABEL] === CONTROLLER_LABEL_VALUE;
  const containers: unknown[] = [];
  for (const d of deployments) {
    if (!isController(d.metadata?.labels) && !isController(d.spec?.template?.metadata?.labels)) continue;
    containers.push(...listOf(d.spec?.template?.spec?.containers));
  }
  for (const p of pods) if (isController(p.metadata?.labels)) containers.push(...listOf(p.spec?.containers));
  return distinctSorted(containers.flatMap((c) => listOf((c as Container | null)?.env).map(clusterNameOfEnv)));
}

function clusterNameOfEnv(variable: unknown): string | undefined {
  if (typeof variable !== 'object' || variable === null) return undefined;
  const { name, value } = variable as { name?: unknown; value?: unknown };
  return name === 'CLUSTER_NAME' && typeof value === 'string' ? value : undefined;
}

/** Captured objects are only checked where every object is; deeper fields may be anything. */
function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function distinctSorted(values: readonly (string | undefined)[]): string[] {
  return [...new Set(values.filter((v): v is string => typeof v === 'string' && v !== ''))].sort();
}
