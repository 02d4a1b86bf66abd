/**
 * The settings every SDK v3 client of the project is built with. No client is imported here, so a
 * function's composition root takes only the clients it uses into its bundle.
 */
import type { defaultProvider } from '@aws-sdk/credential-provider-node';

const DEFAULT_MAX_ATTEMPTS = 5;

export interface SdkClientOptions {
  /** The CLI's `--region` or the deployed function's configured region: never guessed here. */
  region: string;
  /** Share one provider between a function's clients: SSO / assume-role credentials resolve once. Default: the SDK's chain. */
  credentials?: ReturnType<typeof defaultProvider>;
  /** Attempts per call, first one included; adaptive retry also slows the client down when throttled. */
  maxAttempts?: number;
  /** A hung connection must not eat a Lambda's whole timeout. */
  requestTimeoutMs?: number;
}

export function sdkClientConfig(options: SdkClientOptions) {
  return {
    region: options.region,
    retryMode: 'adaptive',
    maxAttempts: options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
    ...(options.credentials ? { credentials: options.credentials } : {}),
    requestHandler: { connectionTimeout: 5_000, requestTimeout: options.requestTimeoutMs ?? 30_000 },
  };
}
