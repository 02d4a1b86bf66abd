/**
 * Composition root of `scan`: AWS clients built once per cold start, sharing one credential chain
 * with the EKS tokens (as the CLI's live connection does), and one Kubernetes connection per
 * cluster kept across invocations (its TLS sessions and token are reused minute after minute).
 */
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SNSClient } from '@aws-sdk/client-sns';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { CloudWatchMetricsSink } from '../../adapters/aws/cloudwatch.ts';
import { DynamoStateStore } from '../../adapters/aws/dynamodb-state.ts';
import { awsPorts, createAwsClients } from '../../adapters/aws/index.ts';
import { SnsAlertPublisher } from '../../adapters/aws/sns.ts';
import { connectToEks } from '../../adapters/kubernetes/connect-eks.ts';
import type { ScanConfig } from '../../config.ts';
import type { ClusterInfo } from '../../domain/aws.ts';
import { SYSTEM_CLOCK } from '../../ports/clock.ts';
import { KubeUnreachableError } from '../../ports/errors.ts';
import type { KubernetesPort } from '../../ports/kubernetes.ts';
import type { ScanDependencies } from '../handlers/scan.ts';
import { jsonLogger } from '../../support/logger.ts';
import { sdkClientConfig } from '../../adapters/aws/sdk-config.ts';

export function composeScan(config: ScanConfig): ScanDependencies {
  const credentials = defaultProvider();
  const aws = awsPorts(createAwsClients({ region: config.region, credentials }));
  const sdk = sdkClientConfig({ region: config.region, credentials });
  const kube = kubeConnections((cluster) => connectToEks({ cluster, region: config.region, token: { credentials } }));
  return {
    settings: config,
    connect: async (clusterName) => ({ aws, connectKube: (cluster) => kube.connect(clusterName, cluster) }),
    state: new DynamoStateStore(new DynamoDBClient(sdk), config.stateTable),
    alerts: new SnsAlertPublisher(new SNSClient(sdk), config.alerts.topicArn),
    metrics: new CloudWatchMetricsSink(new CloudWatchClient(sdk)),
    clock: SYSTEM_CLOCK,
    logger: jsonLogger(),
  };
}

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
