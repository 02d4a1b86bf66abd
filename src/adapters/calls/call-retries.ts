/**
 * The retries made inside one measured port call. A throttled API that the SDK's adaptive retry (or
 * the Kubernetes client's) still absorbs ends `ok`, only slower: counting the retried attempts says
 * why it was slower. measured-ports.ts opens a counter per call; the SDK middleware (sdk-config.ts)
 * and the Kubernetes retries (../kubernetes/kube-retry.ts) add to the counter of the call they run in.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface RetryCounter {
  count: number;
}

const callRunning = new AsyncLocalStorage<RetryCounter>();

/** Runs `call` with `counter` as the counter of the retries made inside it. */
export function countingRetries<T>(counter: RetryCounter, call: () => Promise<T>): Promise<T> {
  return callRunning.run(counter, call);
}

/** Adds `retries` to the counter of the measured call running now; outside one (the CLI), nothing. */
export function noteRetries(retries: number): void {
  const counter = callRunning.getStore();
  if (counter && retries > 0) counter.count += retries;
}
