/**
 * An EKS cluster described by AWS plus a token signed with the ambient AWS credentials (Lambda):
 * nothing here loads client-node, so a handler importing this module does not pay for it.
 */
import type { ClusterInfo } from '../../domain/aws.ts';
import { EksTokenSource } from './eks-token.ts';
import type { EksTokenSourceOptions } from './eks-token.ts';
import { kubeConfigForEks } from './kubeconfig.ts';
import { KubernetesApi } from './kubernetes-api.ts';
import type { KubernetesApiOptions } from './kubernetes-api.ts';

export interface EksConnection {
  /** From `eks:DescribeCluster`: endpoint and base64 CA. */
  cluster: ClusterInfo;
  region: string;
  /** Credentials, clock, STS endpoint and token age for the EKS token; cluster name and region come from above. */
  token?: Omit<EksTokenSourceOptions, 'clusterName' | 'region'>;
}

export function connectToEks(connection: EksConnection, options: KubernetesApiOptions = {}): KubernetesApi {
  const tokens = new EksTokenSource({
    clock: options.clock,
    ...connection.token,
    clusterName: connection.cluster.name,
    region: connection.region,
  });
  return new KubernetesApi(kubeConfigForEks(connection.cluster, tokens), options);
}
