/**
 * Composition root of `cleanup`: the EKS, EC2 and IAM clients, built once per cold start and sharing
 * one credential chain with the EKS tokens; Kubernetes reached with the function's own role (mapped
 * to the karpenter-sentinel-cleanup group by an access entry), one connection per cluster.
 */
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { awsPorts, createAwsClients } from '../../adapters/aws/index.ts';
import { connectToEks } from '../../adapters/kubernetes/connect-eks.ts';
import type { CleanupConfig } from '../../config.ts';
import { SYSTEM_CLOCK } from '../../ports/clock.ts';
import { jsonLogger } from '../../support/logger.ts';
import type { CleanupFunctionDependencies } from '../handlers/cleanup.ts';
import { kubeConnections } from './kube-connections.ts';

export function composeCleanup(config: CleanupConfig): CleanupFunctionDependencies {
  const credentials = defaultProvider();
  const aws = awsPorts(createAwsClients({ region: config.region, credentials }));
  const kube = kubeConnections((cluster) => connectToEks({ cluster, region: config.region, token: { credentials } }));
  return {
    connection: { aws, connectKube: (cluster) => kube.connect(cluster?.name ?? '', cluster) },
    clock: SYSTEM_CLOCK,
    logger: jsonLogger(),
    settings: config,
  };
}
