import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { EC2Client } from '@aws-sdk/client-ec2';
import { EKSClient } from '@aws-sdk/client-eks';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { IAMClient } from '@aws-sdk/client-iam';
import { SQSClient } from '@aws-sdk/client-sqs';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import type { SignalSource } from '../../support/abort.ts';
import { abortable, retriesNoted, sdkClientConfig, type SdkClientOptions } from '../calls/sdk-config.ts';

/** One credential provider for all the clients: SSO / assume-role credentials are fetched once, not once per client. */
export interface AwsClientOptions extends SdkClientOptions {
  /** The invocation's AbortSignal (a Lambda function), passed to every call. */
  signal?: SignalSource;
}

export interface AwsClients {
  ec2: EC2Client;
  eks: EKSClient;
  iam: IAMClient;
  /** Karpenter's interruption queue: SQS, EventBridge and CloudWatch reads (interruption-queue.ts). */
  sqs: SQSClient;
  events: EventBridgeClient;
  cloudwatch: CloudWatchClient;
  region: string;
}

/** Built once per region and reused: each client keeps its connections and its retry rate limiter. */
export function createAwsClients(options: AwsClientOptions): AwsClients {
  const { signal, ...sdk } = options;
  const config = sdkClientConfig({ ...sdk, credentials: sdk.credentials ?? defaultProvider() });
  return {
    ec2: abortable(retriesNoted(new EC2Client(config)), signal),
    eks: abortable(retriesNoted(new EKSClient(config)), signal),
    iam: abortable(retriesNoted(new IAMClient(config)), signal),
    sqs: abortable(retriesNoted(new SQSClient(config)), signal),
    events: abortable(retriesNoted(new EventBridgeClient(config)), signal),
    cloudwatch: abortable(retriesNoted(new CloudWatchClient(config)), signal),
    region: options.region,
  };
}

/** Closes the clients' sockets (the CLI exits sooner; Lambda keeps them). */
export function destroyAwsClients(clients: AwsClients): void {
  clients.ec2.destroy();
  clients.eks.destroy();
  clients.iam.destroy();
  clients.sqs.destroy();
  clients.events.destroy();
  clients.cloudwatch.destroy();
}
