import { EC2Client } from '@aws-sdk/client-ec2';
import { EKSClient } from '@aws-sdk/client-eks';
import { IAMClient } from '@aws-sdk/client-iam';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { sdkClientConfig, type SdkClientOptions } from './sdk-config.ts';

/** One credential provider for the three clients: SSO / assume-role credentials are fetched once, not three times. */
export type AwsClientOptions = SdkClientOptions;

export interface AwsClients {
  ec2: EC2Client;
  eks: EKSClient;
  iam: IAMClient;
  region: string;
}

/** Built once per region and reused: each client keeps its connections and its retry rate limiter. */
export function createAwsClients(options: AwsClientOptions): AwsClients {
  const config = sdkClientConfig({ ...options, credentials: options.credentials ?? defaultProvider() });
  return { ec2: new EC2Client(config), eks: new EKSClient(config), iam: new IAMClient(config), region: options.region };
}

/** Closes the clients' sockets (the CLI exits sooner; Lambda keeps them). */
export function destroyAwsClients(clients: AwsClients): void {
  clients.ec2.destroy();
  clients.eks.destroy();
  clients.iam.destroy();
}
