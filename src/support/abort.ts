/**
 * The current invocation's AbortSignal, for the adapters a Lambda function builds once per cold
 * start (AWS clients, Kubernetes connections, the webhook poster): the handler sets it when an
 * invocation starts, each request reads it when it is made. One invocation at a time runs in a
 * Lambda environment, so one holder per function is enough. Ports stay free of it: only adapters
 * (given `current`) and the handler (given the holder) see it.
 */
export type SignalSource = () => AbortSignal | undefined;

export class InvocationSignal {
  #signal: AbortSignal | undefined;
  /** What adapters are given: the signal of the invocation running now (none outside one). */
  readonly current: SignalSource = () => this.#signal;
  set(signal: AbortSignal | undefined): void {
    this.#signal = signal;
  }
}

/** The invocation ran out of time: its work was stopped (aborted) before Lambda's deadline. */
export class InvocationTimeoutError extends Error {
  override name = 'InvocationTimeoutError';
  constructor(message = 'stopped before the invocation’s deadline', options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** `signal` combined with the source's current signal (either aborting aborts the request). */
export function withCurrent(source: SignalSource | undefined, signal?: AbortSignal): AbortSignal | undefined {
  const current = source?.();
  if (!current) return signal;
  return signal ? AbortSignal.any([signal, current]) : current;
}

/** True when `error` (or its cause chain) is the abort of `signal`, or an InvocationTimeoutError. */
export function isInvocationTimeout(error: unknown, signal?: AbortSignal): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof InvocationTimeoutError) return true;
  }
  return signal?.aborted === true;
}
