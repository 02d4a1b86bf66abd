/**
 * Composition root of `cleanup`: the EKS, EC2 and IAM clients, built once per cold start and sharing
 * one credential chain with the EKS tokens; Kubernetes reached with the function's own role (mapped
 * to the karpenter-sentinel-cleanup group by an access entry), one connection per cluster. Every
 * AWS and Kubernetes call is measured (src/adapters/calls/measured-ports.ts) and written as EMF
 * lines when each invocation ends.
 */
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { EmfMetricsSink } from '../../adapters/aws/emf-metrics.ts';
import { awsPorts, createAwsClients } from '../../adapters/aws/index.ts';
import { ApiCallMeter, apiCallFlush } from '../../adapters/calls/api-call-metrics.ts';
import { measuredAwsPorts } from '../../adapters/aws/measured-aws.ts';
import { measuredKubernetes } from '../../adapters/kubernetes/measured-kubernetes.ts';
import { connectToEks } from '../../adapters/kubernetes/connect-eks.ts';
import { METRICS_NAMESPACE, type CleanupConfig, type LoggingConfig } from '../../config.ts';
import { SYSTEM_CLOCK } from '../../ports/clock.ts';
import { InvocationSignal } from '../../support/abort.ts';
import type { CleanupFunctionDependencies } from '../handlers/cleanup.ts';
import { powertoolsLogging } from '../powertools-logger.ts';
import { cleanupEffectiveConfiguration } from './effective-config.ts';
import { kubeConnections } from './kube-connections.ts';

export function composeCleanup(config: CleanupConfig, logging: LoggingConfig): CleanupFunctionDependencies {
  const credentials = defaultProvider();
  const invocationSignal = new InvocationSignal();
  const signal = invocationSignal.current;
  const meter = new ApiCallMeter();
  const aws = measuredAwsPorts(awsPorts(createAwsClients({ region: config.region, credentials, signal })), meter);
  const kube = kubeConnections((cluster) =>
    measuredKubernetes(connectToEks({ cluster, region: config.region, token: { credentials } }, { signal }), meter),
  );
  const { logger, context } = powertoolsLogging(logging);
  return {
    connection: { aws, connectKube: (cluster) => kube.connect(cluster?.name ?? '', cluster) },
    clock: SYSTEM_CLOCK,
    logger,
    settings: config,
    logContext: context,
    effectiveConfiguration: cleanupEffectiveConfiguration(config, logging),
    invocationSignal,
    afterInvocation: apiCallFlush(meter, new EmfMetricsSink(METRICS_NAMESPACE, { logger }), { clock: SYSTEM_CLOCK, logger }),
  };
}
