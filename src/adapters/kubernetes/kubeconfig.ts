/**
 * Where the Kubernetes API is and how to authenticate: a kubeconfig file (kubeconfig-file.ts,
 * client-node) or `eks:DescribeCluster` plus an EKS token (below, without client-node, so a
 * Lambda does not import it). Either way TLS is verified against the cluster's CA: a kubeconfig
 * asking otherwise is refused.
 */
import type { Cluster, User } from '@kubernetes/client-node';
import type { ClusterInfo } from '../../domain/aws.ts';
import { InputError } from '../../domain/errors.ts';
import { KubeUnreachableError } from '../../ports/errors.ts';
import type { KubeAccess } from './kube-transport.ts';

export function assertVerifiedTls(cluster: Cluster, where: string): void {
  if (cluster.skipTLSVerify) {
    throw new InputError(
      where,
      `cluster "${cluster.name}" sets insecure-skip-tls-verify; karpenter-sentinel always verifies TLS (give certificate-authority-data instead)`,
    );
  }
  if (!cluster.server.startsWith('https://')) {
    throw new InputError(
      where,
      `cluster "${cluster.name}" server ${cluster.server} is not https://; karpenter-sentinel only talks TLS`,
    );
  }
}

/** Anything with a current bearer token, e.g. EksTokenSource. */
export interface BearerTokenSource {
  token(): Promise<string>;
}

/**
 * The access to an EKS cluster from `eks:DescribeCluster` (endpoint, CA) and a token source: what a
 * client-node KubeConfig of that cluster and a bearer-token user gives the transport (the cluster
 * CA, and a fresh token on every request), without loading client-node.
 */
export function kubeConfigForEks(cluster: ClusterInfo, tokens: BearerTokenSource): KubeAccess {
  if (!cluster.endpoint || !cluster.certificateAuthority) {
    const status = cluster.gone ? 'it does not exist' : `status ${cluster.status ?? 'unknown'}`;
    throw new KubeUnreachableError(`EKS cluster ${cluster.name} has no API endpoint or CA yet (${status})`);
  }
  const kubeCluster: Cluster = {
    name: cluster.name,
    server: cluster.endpoint,
    caData: cluster.certificateAuthority,
    skipTLSVerify: false,
  };
  assertVerifiedTls(kubeCluster, `EKS cluster ${cluster.name}`);
  const ca = Buffer.from(cluster.certificateAuthority, 'base64');
  const user: User = { name: 'eks-token' };
  return {
    getCurrentCluster: () => kubeCluster,
    getCurrentContext: () => 'loaded-context',
    getCurrentUser: () => user,
    async applyToHTTPSOptions(opts) {
      opts.ca = ca;
      opts.headers = { ...opts.headers, Authorization: `Bearer ${await tokens.token()}` };
    },
  };
}
