/**
 * Composition root of `cleanup`: the EKS, EC2 and IAM clients, built once per cold start and sharing
 * one credential chain with the EKS tokens; Kubernetes reached with the function's own role (mapped
 * to the karpenter-sentinel-cleanup group by an access entry), one connection per cluster.
 */
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { awsPorts, createAwsClients } from '../../adapters/aws/index.ts';
import { connectToEks } from '../../adapters/kubernetes/connect-eks.ts';
import type { CleanupConfig, LoggingConfig } from '../../config.ts';
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
  const aws = awsPorts(createAwsClients({ region: config.region, credentials, signal }));
  const kube = kubeConnections((cluster) => connectToEks({ cluster, region: config.region, token: { credentials } }, { signal }));
  const { logger, context } = powertoolsLogging(logging);
  return {
    connection: { aws, connectKube: (cluster) => kube.connect(cluster?.name ?? '', cluster) },
    clock: SYSTEM_CLOCK,
    logger,
    settings: config,
    logContext: context,
    effectiveConfiguration: cleanupEffectiveConfiguration(config, logging),
    invocationSignal,
  };
}
