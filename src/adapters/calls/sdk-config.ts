/**
 * The settings every SDK v3 client of the project is built with. No client is imported here, so a
 * function's composition root takes only the clients it uses into its bundle.
 */
import type { defaultProvider } from '@aws-sdk/credential-provider-node';
import { isRecord } from '../../domain/shape.ts';
import type { SignalSource } from '../../support/abort.ts';
import { noteFailedRequest, noteRetries } from './call-retries.ts';

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

type SendOptions = { abortSignal?: AbortSignal } & Record<string, unknown>;
type Send = (command: unknown, options?: SendOptions | ((...args: unknown[]) => void), callback?: unknown) => Promise<unknown>;

/**
 * Every call `client` makes (paginators included: they call `send`) gets the invocation's signal as
 * its `abortSignal`, so an invocation near its deadline stops its AWS calls instead of being killed
 * mid-way. The client is built once per cold start; the signal is read per call.
 */
export function abortable<C extends object>(client: C, signal: SignalSource | undefined): C {
  if (!signal) return client;
  const target = client as unknown as { send: Send };
  const send = target.send.bind(client);
  target.send = (command, options, callback) => {
    const current = signal();
    if (!current || typeof options === 'function') return send(command, options, callback);
    const abortSignal = options?.abortSignal ? AbortSignal.any([options.abortSignal, current]) : current;
    return send(command, { ...options, abortSignal });
  };
  return client;
}

type Handler = (args: unknown) => Promise<{ output?: unknown }>;
type Stack = { add(middleware: (next: Handler) => Handler, options: { step: 'initialize'; name: string }): void };

/** The attempts the SDK's retry middleware made, as it writes them on an output's or an error's `$metadata`. */
function attemptsOf(value: unknown): number {
  const attempts = isRecord(value) && isRecord(value.$metadata) ? value.$metadata.attempts : undefined;
  return typeof attempts === 'number' ? attempts : 1;
}

/**
 * Every command `client` sends (paginators included) tells the measured call it runs in how many of
 * its attempts the SDK retried, and how it failed when it did (call-retries.ts): a middleware of the
 * client's own stack, outside the SDK's retries, so it sees their count and the final error once per
 * command, even when the adapter then records the failure in its result instead of throwing it.
 */
export function retriesNoted<C extends object>(client: C): C {
  const stack = (client as unknown as { middlewareStack: Stack }).middlewareStack;
  stack.add(
    (next) => async (args) => {
      try {
        const result = await next(args);
        noteRetries(attemptsOf(result.output) - 1);
        return result;
      } catch (error) {
        noteRetries(attemptsOf(error) - 1);
        noteFailedRequest(error);
        throw error;
      }
    },
    { step: 'initialize', name: 'retriesNoted' },
  );
  return client;
}
