/**
 * Composition root of `interruptions`: EC2 (DescribeInstances only), the state table, the alert
 * topic and CloudWatch, built once per cold start. Nothing of Kubernetes, EKS or IAM is loaded
 * (test/functions/interruptions.test.ts checks the bundle's inputs).
 */
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EC2Client } from '@aws-sdk/client-ec2';
import { SNSClient } from '@aws-sdk/client-sns';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { CloudWatchMetricsSink } from '../../adapters/aws/cloudwatch.ts';
import { DynamoStateStore } from '../../adapters/aws/dynamodb-state.ts';
import { Ec2Adapter } from '../../adapters/aws/ec2.ts';
import { SnsAlertPublisher } from '../../adapters/aws/sns.ts';
import { METRICS_NAMESPACE, type InterruptionsConfig } from '../../config.ts';
import { SYSTEM_CLOCK } from '../../ports/clock.ts';
import type { InterruptionsDependencies } from '../handlers/interruptions.ts';
import { jsonLogger } from '../../support/logger.ts';
import { sdkClientConfig } from '../../adapters/aws/sdk-config.ts';
import { interruptionSettings } from '../../usecases/handle-interruptions.ts';

export function composeInterruptions(config: InterruptionsConfig): InterruptionsDependencies {
  // One credential chain for the four clients, resolved once. A hung connection must not eat the
  // invocation: its records would wait out the claim.
  const sdk = sdkClientConfig({ region: config.region, credentials: defaultProvider(), requestTimeoutMs: 20_000 });
  return {
    ec2: new Ec2Adapter(new EC2Client(sdk)),
    state: new DynamoStateStore(new DynamoDBClient(sdk), config.stateTable),
    alerts: new SnsAlertPublisher(new SNSClient(sdk), config.alerts.topicArn),
    metrics: new CloudWatchMetricsSink(new CloudWatchClient(sdk), METRICS_NAMESPACE),
    clock: SYSTEM_CLOCK,
    logger: jsonLogger(),
    settings: interruptionSettings(config),
  };
}
