/**
 * The Kubernetes connections a function keeps across invocations (its TLS sessions and token are
 * reused minute after minute). Its own module so that a composition root importing it takes none
 * of another function's clients into its bundle.
 */
import type { ClusterInfo } from '../../domain/aws.ts';
import { KubeUnreachableError } from '../../ports/errors.ts';
import type { KubernetesPort } from '../../ports/kubernetes.ts';

export interface ClosableKubernetesPort extends KubernetesPort {
  close(): void;
}

/**
 * One Kubernetes connection per cluster for the life of the Lambda environment; a cluster whose
 * endpoint or CA changed (recreated under the same name, CA rotated) gets a new one.
 */
export function kubeConnections(open: (cluster: ClusterInfo) => ClosableKubernetesPort) {
  const cache = new Map<string, { endpoint: string; ca: string; port: ClosableKubernetesPort }>();
  return {
    async connect(clusterName: string, cluster: ClusterInfo | undefined): Promise<KubernetesPort> {
      if (!cluster?.endpoint || !cluster.certificateAuthority) {
        throw new KubeUnreachableError(`no endpoint for cluster ${clusterName}: eks:DescribeCluster failed or gave none`);
      }
      const cached = cache.get(clusterName);
      if (cached && cached.endpoint === cluster.endpoint && cached.ca === cluster.certificateAuthority) return cached.port;
      cached?.port.close();
      const port = open(cluster);
      cache.set(clusterName, { endpoint: cluster.endpoint, ca: cluster.certificateAuthority, port });
      return port;
    },
  };
}
