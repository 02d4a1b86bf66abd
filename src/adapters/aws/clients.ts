import { EC2Client, type EC2ClientConfig } from '@aws-sdk/client-ec2';
import { EKSClient } from '@aws-sdk/client-eks';
import { IAMClient } from '@aws-sdk/client-iam';
import { defaultProvider } from '@aws-sdk/credential-provider-node';

export interface AwsClientOptions {
  /** The CLI's `--region` or the deployed function's configured region: never guessed here. */
  region: string;
  /** Attempts per call, first one included; adaptive retry also slows the client down when throttled. */
  maxAttempts?: number;
  /** Default: the SDK's default chain (env, SSO, profile, web identity, container, IMDS), resolved once for all three. */
  credentials?: EC2ClientConfig['credentials'];
}

export interface AwsClients {
  ec2: EC2Client;
  eks: EKSClient;
  iam: IAMClient;
  region: string;
}

export const DEFAULT_MAX_ATTEMPTS = 5;

/** Built once per region and reused: each client keeps its connections and its retry rate limiter. */
export function createAwsClients(options: AwsClientOptions): AwsClients {
  const config = {
    region: options.region,
    retryMode: 'adaptive',
    maxAttempts: options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
    // One provider for the three clients: SSO / assume-role credentials are fetched once, not three times.
    credentials: options.credentials ?? defaultProvider(),
    // A hung connection must not eat a Lambda's whole timeout.
    requestHandler: { connectionTimeout: 5_000, requestTimeout: 30_000 },
  };
  return { ec2: new EC2Client(config), eks: new EKSClient(config), iam: new IAMClient(config), region: options.region };
}

/** Closes the clients' sockets (the CLI exits sooner; Lambda keeps them). */
export function destroyAwsClients(clients: AwsClients): void {
  clients.ec2.destroy();
  clients.eks.destroy();
  clients.iam.destroy();
}
