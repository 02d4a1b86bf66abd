/**
 * Composition root of `interruptions`: EC2 (DescribeInstances only), the state table and the alert
 * topic, built once per cold start; metrics are EMF lines on stdout, the DescribeInstances calls
 * measured among them (src/adapters/calls/measured-ports.ts). Nothing of Kubernetes, EKS or
 * IAM is loaded (test/functions/interruptions.test.ts checks the bundle's inputs).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EC2Client } from '@aws-sdk/client-ec2';
import { SNSClient } from '@aws-sdk/client-sns';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { DynamoStateStore } from '../../adapters/aws/dynamodb-state.ts';
import { Ec2Adapter } from '../../adapters/aws/ec2.ts';
import { EmfMetricsSink } from '../../adapters/aws/emf-metrics.ts';
import { ApiCallMeter, apiCallFlush, withApiCallMetrics } from '../../adapters/calls/api-call-metrics.ts';
import { measuredEc2 } from '../../adapters/aws/measured-aws.ts';
import { SnsAlertPublisher } from '../../adapters/aws/sns.ts';
import { METRICS_NAMESPACE, type InterruptionsConfig, type LoggingConfig } from '../../config.ts';
import { SYSTEM_CLOCK } from '../../ports/clock.ts';
import { InvocationSignal } from '../../support/abort.ts';
import type { InterruptionsDependencies } from '../handlers/interruptions.ts';
import { powertoolsLogging } from '../powertools-logger.ts';
import { abortable, retriesNoted, sdkClientConfig } from '../../adapters/calls/sdk-config.ts';
import { interruptionSettings } from '../../usecases/handle-interruptions.ts';
import { interruptionsEffectiveConfiguration } from './effective-config.ts';

export function composeInterruptions(config: InterruptionsConfig, logging: LoggingConfig): InterruptionsDependencies {
  // One credential chain for the three clients, resolved once. A hung connection must not eat the
  // invocation: its records would wait out the claim.
  const sdk = sdkClientConfig({ region: config.region, credentials: defaultProvider(), requestTimeoutMs: 20_000 });
  const invocationSignal = new InvocationSignal();
  const signal = invocationSignal.current;
  const { logger, context } = powertoolsLogging(logging);
  const emf = new EmfMetricsSink(METRICS_NAMESPACE, { logger });
  const meter = new ApiCallMeter();
  return {
    ec2: measuredEc2(new Ec2Adapter(abortable(retriesNoted(new EC2Client(sdk)), signal)), meter),
    state: new DynamoStateStore(abortable(new DynamoDBClient(sdk), signal), config.stateTable),
    alerts: new SnsAlertPublisher(abortable(new SNSClient(sdk), signal), config.alerts.topicArn),
    metrics: withApiCallMetrics(emf, meter),
    clock: SYSTEM_CLOCK,
    logger,
    settings: interruptionSettings(config),
    logContext: context,
    effectiveConfiguration: interruptionsEffectiveConfiguration(config, logging),
    invocationSignal,
    // What no put of the use case carried (a duplicate delivery puts nothing) goes out as the invocation ends.
    afterInvocation: apiCallFlush(meter, emf, { clock: SYSTEM_CLOCK, logger }),
  };
}
