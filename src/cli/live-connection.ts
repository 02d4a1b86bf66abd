/**
 * Composition root of the CLI's live commands: AWS SDK v3 clients for the region, and the
 * Kubernetes API through a kubeconfig context (`--context`) or an EKS token for the ambient AWS
 * credentials (endpoint and CA from eks:DescribeCluster, as the deployed service does).
 */
import type { ClusterInfo } from '../domain/aws.ts';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { awsPorts, createAwsClients } from '../adapters/aws/index.ts';
import { connectToEks } from '../adapters/kubernetes/connect-eks.ts';
import type { KubernetesApi } from '../adapters/kubernetes/kubernetes-api.ts';
import { KubeUnreachableError } from '../ports/errors.ts';
import type { ClusterConnection } from '../ports/cluster.ts';
import { kubeconfigReadFor, noAwsRegionError, type LiveTarget } from './live-target.ts';

/** The target as resolveLiveTarget resolved it: the flags and the environment are not read again here. */
export async function connectLive(target: LiveTarget): Promise<ClusterConnection> {
  const { region, readLimits = {} } = target;
  if (!region) throw noAwsRegionError(target.clusterName);
  // One credential chain for the SDK clients and the EKS token: SSO or assume-role resolves once.
  // --profile as the AWS CLI's: the credential chain reads that profile (SSO, assume-role, keys).
  const credentials = defaultProvider(target.profile ? { profile: target.profile } : {});
  const aws = awsPorts(createAwsClients({ region, credentials }));
  // client-node (~0.9 s to import) is only needed to read a kubeconfig. A context is connected now,
  // on the kubeconfig resolveLiveTarget read for it, so a wrong one is a usage error before any AWS call.
  let kube: KubernetesApi | undefined =
    target.context === undefined
      ? undefined
      : (await import('../adapters/kubernetes/connect.ts')).connectWithKubeconfig(
          { context: target.context, ...(target.kubeconfig ? { kubeconfigPath: target.kubeconfig } : {}) },
          { readLimits },
          kubeconfigReadFor(target),
        );
  const connectKube = async (cluster: ClusterInfo | undefined) => {
    if (kube) return kube;
    if (!cluster) {
      throw new KubeUnreachableError(
        `no endpoint for cluster ${target.clusterName}: eks:DescribeCluster failed (or pass --context)`,
      );
    }
    kube = connectToEks({ cluster, region, token: { credentials } }, { readLimits });
    return kube;
  };
  return { aws, connectKube };
}
