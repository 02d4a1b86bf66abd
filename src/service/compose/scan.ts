/**
 * Composition root of `scan`: AWS clients built once per cold start, sharing one credential chain
 * with the EKS tokens (as the CLI's live connection does), and one Kubernetes connection per
 * cluster kept across invocations (kube-connections.ts). Metrics are EMF lines on stdout. Every
 * AWS and Kubernetes request gets the invocation's AbortSignal; every port call is measured
 * (src/adapters/calls/measured-ports.ts): its metrics go out with the scan's, the rest as the invocation ends.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SNSClient } from '@aws-sdk/client-sns';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { DynamoStateStore } from '../../adapters/aws/dynamodb-state.ts';
import { EmfMetricsSink } from '../../adapters/aws/emf-metrics.ts';
import { awsPorts, createAwsClients } from '../../adapters/aws/index.ts';
import { ApiCallMeter, apiCallFlush, withApiCallMetrics } from '../../adapters/calls/api-call-metrics.ts';
import { measuredAwsPorts } from '../../adapters/aws/measured-aws.ts';
import { measuredKubernetes } from '../../adapters/kubernetes/measured-kubernetes.ts';
import { SnsAlertPublisher } from '../../adapters/aws/sns.ts';
import { connectToEks } from '../../adapters/kubernetes/connect-eks.ts';
import { METRICS_NAMESPACE, type LoggingConfig, type ScanConfig } from '../../config.ts';
import { SYSTEM_CLOCK } from '../../ports/clock.ts';
import { InvocationSignal } from '../../support/abort.ts';
import type { ScanDependencies } from '../handlers/scan.ts';
import { powertoolsLogging } from '../powertools-logger.ts';
import { abortable, sdkClientConfig } from '../../adapters/calls/sdk-config.ts';
import { scanEffectiveConfiguration } from './effective-config.ts';
import { kubeConnections } from './kube-connections.ts';

export function composeScan(config: ScanConfig, logging: LoggingConfig): ScanDependencies {
  const credentials = defaultProvider();
  const invocationSignal = new InvocationSignal();
  const signal = invocationSignal.current;
  const meter = new ApiCallMeter();
  const aws = measuredAwsPorts(awsPorts(createAwsClients({ region: config.region, credentials, signal })), meter);
  const sdk = sdkClientConfig({ region: config.region, credentials });
  const kube = kubeConnections((cluster) =>
    measuredKubernetes(
      connectToEks({ cluster, region: config.region, token: { credentials } }, { signal, readLimits: config.kubeReadLimits }),
      meter,
    ),
  );
  const { logger, context } = powertoolsLogging(logging);
  const emf = new EmfMetricsSink(METRICS_NAMESPACE, { logger });
  return {
    settings: config,
    connect: async (clusterName) => ({ aws, connectKube: (cluster) => kube.connect(clusterName, cluster) }),
    state: new DynamoStateStore(abortable(new DynamoDBClient(sdk), signal), config.stateTable),
    alerts: new SnsAlertPublisher(abortable(new SNSClient(sdk), signal), config.alerts.topicArn),
    metrics: withApiCallMetrics(emf, meter),
    clock: SYSTEM_CLOCK,
    logger,
    logContext: context,
    effectiveConfiguration: scanEffectiveConfiguration(config, logging),
    configWarnings: config.warnings,
    invocationSignal,
    // What no put of the use case carried (a duplicate delivery puts nothing) goes out as the invocation ends.
    afterInvocation: apiCallFlush(meter, emf, { clock: SYSTEM_CLOCK, logger }),
  };
}
