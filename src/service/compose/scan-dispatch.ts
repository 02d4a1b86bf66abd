/**
 * Composition root of `scan-dispatch`: an EKS client (clusters and their tags) and the scan queue.
 * Built once per cold start; nothing of Kubernetes, EC2 or IAM is loaded. Its EKS calls are measured
 * (src/adapters/calls/measured-ports.ts) and written as EMF lines when each invocation ends.
 */
import { EKSClient } from '@aws-sdk/client-eks';
import { SQSClient } from '@aws-sdk/client-sqs';
import { EksAdapter } from '../../adapters/aws/eks.ts';
import { EmfMetricsSink } from '../../adapters/aws/emf-metrics.ts';
import { SqsScanQueue } from '../../adapters/aws/sqs.ts';
import { ApiCallMeter, apiCallFlush } from '../../adapters/calls/api-call-metrics.ts';
import { measuredEks } from '../../adapters/aws/measured-aws.ts';
import { METRICS_NAMESPACE, type DispatchConfig, type LoggingConfig } from '../../config.ts';
import { SYSTEM_CLOCK } from '../../ports/clock.ts';
import { InvocationSignal } from '../../support/abort.ts';
import type { ScanDispatchDependencies } from '../handlers/scan-dispatch.ts';
import { dispatchSettings } from '../../usecases/dispatch-scans.ts';
import { powertoolsLogging } from '../powertools-logger.ts';
import { abortable, retriesNoted, sdkClientConfig } from '../../adapters/calls/sdk-config.ts';
import { dispatchEffectiveConfiguration } from './effective-config.ts';

export function composeScanDispatch(config: DispatchConfig, logging: LoggingConfig): ScanDispatchDependencies {
  const sdk = sdkClientConfig({ region: config.region });
  const invocationSignal = new InvocationSignal();
  const { logger, context } = powertoolsLogging(logging);
  const meter = new ApiCallMeter();
  return {
    eks: measuredEks(new EksAdapter(abortable(retriesNoted(new EKSClient(sdk)), invocationSignal.current)), meter),
    queue: new SqsScanQueue(abortable(new SQSClient(sdk), invocationSignal.current), config.scanQueueUrl),
    clock: SYSTEM_CLOCK,
    logger,
    settings: dispatchSettings(config),
    logContext: context,
    effectiveConfiguration: dispatchEffectiveConfiguration(config, logging),
    invocationSignal,
    afterInvocation: apiCallFlush(meter, new EmfMetricsSink(METRICS_NAMESPACE, { logger }), { clock: SYSTEM_CLOCK, logger }),
  };
}
