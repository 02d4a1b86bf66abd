import type { ClusterInfo, Instance } from '../domain/aws.ts';
import { UsageError } from '../domain/errors.ts';
import type { Container } from '../domain/kube.ts';
import { CLUSTER_TAG } from '../domain/tags.ts';
import type { ControllerInfo } from '../domain/snapshot-index.ts';
import { UNKNOWN_CLUSTER } from '../domain/snapshot.ts';

export interface ClusterNameEvidence {
  /** `--cluster NAME`. */
  option: string | undefined;
  /** From `aws eks describe-cluster` (or its "no cluster found" error). */
  cluster: ClusterInfo | undefined;
  /** The Karpenter controllers' CLUSTER_NAME values (controllerClusterNames). */
  configured: readonly string[];
  instances: readonly Instance[];
}

/**
 * Which cluster a capture is about, most explicit first: --cluster, describe-cluster, the
 * Karpenter controller's CLUSTER_NAME, the instances' cluster tag. A capture that mixes clusters
 * must not be analysed as one: orphan detection would terminate another cluster's nodes.
 */
export function resolveClusterName(evidence: ClusterNameEvidence): string {
  const { option, cluster, configured } = evidence;
  if (option && cluster && option !== cluster.name) {
    throw new UsageError(
      `--cluster ${option} does not match the captured describe-cluster output, which is for cluster ${cluster.name}`,
    );
  }
  if (option) return option;
  if (cluster) return cluster.name;
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
  const { configured } = evidence;
  if (configured.length === 0 || configured.includes(clusterName)) return undefined;
  const from = evidence.option ? '--cluster' : 'aws eks describe-cluster';
  return `${from} names cluster ${clusterName}, but the Karpenter controller in the capture is configured for ${configured.join(', ')} (CLUSTER_NAME): was kubectl pointed at another cluster?`;
}

/** CLUSTER_NAME env values of the Karpenter controllers' Deployments and pods, sorted. */
export function controllerClusterNames(controllers: readonly ControllerInfo[]): string[] {
  const containers = controllers.flatMap((c) => [
    ...listOf(c.deployment?.spec?.template?.spec?.containers),
    ...c.pods.flatMap((p) => listOf(p.spec?.containers)),
  ]);
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
