/**
 * Composition root of the CLI's live commands: AWS SDK v3 clients for the region, and the
 * Kubernetes API through a kubeconfig context (`--context`) or an EKS token for the ambient AWS
 * credentials (endpoint and CA from eks:DescribeCluster, as the deployed service does).
 */
import { readCliCloudEnvironment, type CliCloudEnvironment } from '../config.ts';
import { KUBE_READ_LIMITS_VARIABLE, parseKubeReadLimits, type KubeReadLimits } from '../domain/kube-read-limits.ts';
import type { ClusterInfo } from '../domain/aws.ts';
import { UsageError } from '../domain/errors.ts';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { awsPorts, createAwsClients } from '../adapters/aws/index.ts';
import { connectToEks } from '../adapters/kubernetes/connect-eks.ts';
import type { KubernetesApi } from '../adapters/kubernetes/kubernetes-api.ts';
import { KubeUnreachableError } from '../ports/errors.ts';
import type { ClusterConnection } from '../ports/cluster.ts';
import { noAwsRegionError, type LiveTarget } from './live-target.ts';

export async function connectLive(target: LiveTarget, environment = readCliCloudEnvironment()): Promise<ClusterConnection> {
  const region = target.region ?? environment.region;
  if (!region) throw noAwsRegionError(target.clusterName);
  // One credential chain for the SDK clients and the EKS token: SSO or assume-role resolves once.
  // --profile as the AWS CLI's: the credential chain reads that profile (SSO, assume-role, keys).
  const credentials = defaultProvider(target.profile ? { profile: target.profile } : {});
  const readLimits = kubeReadLimits(target, environment);
  const aws = awsPorts(createAwsClients({ region, credentials }));
  // client-node (~0.9 s to import) is only needed to read a kubeconfig. A context is read now, so a
  // wrong one is a usage error before any AWS call.
  let kube: KubernetesApi | undefined =
    target.context === undefined
      ? undefined
      : (await import('../adapters/kubernetes/connect.ts')).connectWithKubeconfig(
          {
            context: target.context,
            ...((target.kubeconfig ?? environment.kubeconfig)
              ? { kubeconfigPath: target.kubeconfig ?? environment.kubeconfig }
              : {}),
          },
          { readLimits },
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

/** KUBE_READ_LIMITS, then `--kube-read-limits` over it; a bad variable is a usage error naming it. */
function kubeReadLimits(target: LiveTarget, environment: CliCloudEnvironment): Partial<KubeReadLimits> {
  const fromEnvironment = environment.kubeReadLimits === undefined ? {} : parseKubeReadLimits(environment.kubeReadLimits);
  if ('problem' in fromEnvironment) throw new UsageError(`${KUBE_READ_LIMITS_VARIABLE}: ${fromEnvironment.problem}`);
  return { ...fromEnvironment, ...target.readLimits };
}
