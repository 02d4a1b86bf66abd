/**
 * Composition root of `scan-dispatch`: an EKS client (clusters and their tags) and the scan queue.
 * Built once per cold start; nothing of Kubernetes, EC2 or IAM is loaded.
 */
import { EKSClient } from '@aws-sdk/client-eks';
import { SQSClient } from '@aws-sdk/client-sqs';
import { EksAdapter } from '../../adapters/aws/eks.ts';
import { SqsScanQueue } from '../../adapters/aws/sqs.ts';
import type { DispatchConfig } from '../../config.ts';
import { SYSTEM_CLOCK } from '../../ports/clock.ts';
import type { ScanDispatchDependencies } from '../handlers/scan-dispatch.ts';
import { jsonLogger } from '../../support/logger.ts';
import { sdkClientConfig } from '../../adapters/aws/sdk-config.ts';

export function composeScanDispatch(config: DispatchConfig): ScanDispatchDependencies {
  const sdk = sdkClientConfig({ region: config.region });
  return {
    eks: new EksAdapter(new EKSClient(sdk)),
    queue: new SqsScanQueue(new SQSClient(sdk), config.scanQueueUrl),
    clock: SYSTEM_CLOCK,
    logger: jsonLogger(),
    settings: { clusters: config.clusters, optInTag: config.optInTag },
  };
}
