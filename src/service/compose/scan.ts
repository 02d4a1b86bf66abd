/**
 * Composition root of `scan`: AWS clients built once per cold start, sharing one credential chain
 * with the EKS tokens (as the CLI's live connection does), and one Kubernetes connection per
 * cluster kept across invocations (kube-connections.ts).
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
import { METRICS_NAMESPACE, type ScanConfig } from '../../config.ts';
import { SYSTEM_CLOCK } from '../../ports/clock.ts';
import type { ScanDependencies } from '../handlers/scan.ts';
import { jsonLogger } from '../../support/logger.ts';
import { sdkClientConfig } from '../../adapters/aws/sdk-config.ts';
import { kubeConnections } from './kube-connections.ts';

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
    metrics: new CloudWatchMetricsSink(new CloudWatchClient(sdk), METRICS_NAMESPACE),
    clock: SYSTEM_CLOCK,
    logger: jsonLogger(),
  };
}
