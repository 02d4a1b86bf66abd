/**
 * Composition root of the CLI's live commands: AWS SDK v3 clients for the region, and the
 * Kubernetes API through a kubeconfig context (`--context`) or an EKS token for the ambient AWS
 * credentials (endpoint and CA from eks:DescribeCluster, as the deployed service does).
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { ClusterInfo } from '../domain/aws.ts';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { awsPorts, createAwsClients } from '../adapters/aws/index.ts';
import { connectToEks } from '../adapters/kubernetes/connect-eks.ts';
import type { KubernetesApi, KubernetesApiOptions } from '../adapters/kubernetes/kubernetes-api.ts';
import { KubeUnreachableError } from '../ports/errors.ts';
import type { ClusterConnection } from '../ports/cluster.ts';
import { noAwsRegionError, type LiveTarget } from './live-target.ts';

/**
 * The target as resolveLiveTarget resolved it, with the kubeconfig it read for the context: the
 * flags, the environment and the kubeconfig file are not read again here (without `kubeconfig`,
 * a target with a context reads its file now).
 */
export async function connectLive(target: LiveTarget, kubeconfig?: KubeConfig): Promise<ClusterConnection> {
  const { region, readLimits = {} } = target;
  if (!region) throw noAwsRegionError(target.clusterName);
  // One credential chain for the SDK clients and the EKS token: SSO or assume-role resolves once.
  // --profile as the AWS CLI's: the credential chain reads that profile (SSO, assume-role, keys).
  const credentials = defaultProvider(target.profile ? { profile: target.profile } : {});
  const aws = awsPorts(createAwsClients({ region, credentials }));
  // client-node (~0.9 s to import) is only needed to read a kubeconfig. A context is connected now,
  // on the kubeconfig resolveLiveTarget read for it, so a wrong one is a usage error before any AWS call.
  let kube: KubernetesApi | undefined =
    target.context === undefined ? undefined : await contextApi(target, target.context, { readLimits }, kubeconfig);
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

/** The API through the target's context: on the kubeconfig already loaded for it, else read from its file now. */
async function contextApi(
  target: LiveTarget,
  context: string,
  options: KubernetesApiOptions,
  loaded: KubeConfig | undefined,
): Promise<KubernetesApi> {
  if (loaded) return new (await import('../adapters/kubernetes/kubernetes-api.ts')).KubernetesApi(loaded, options);
  const selection = { context, ...(target.kubeconfig ? { kubeconfigPath: target.kubeconfig } : {}) };
  return (await import('../adapters/kubernetes/connect.ts')).connectWithKubeconfig(selection, options);
}
