/**
 * What happened inside one measured port call, below the port: the retried attempts, the requests
 * that failed, and whether any request was made at all. A port may resolve although a request of it
 * failed (a denied TerminateInstances is a per-instance error in its result, a denied tags read a
 * profile marked unreadable): the call's outcome is that request's, not `ok`. A throttled API that
 * the SDK's adaptive retry (or the Kubernetes client's) still absorbs ends `ok`, only slower:
 * counting the retried attempts says why it was slower. measured-ports.ts opens the notes of a call;
 * the SDK middleware (sdk-config.ts), the Kubernetes retries (../kubernetes/kube-retry.ts) and the
 * adapters' answers without a request add to the notes of the call they run in.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ApiCallOutcome } from './api-call-metrics.ts';

export interface CallNotes {
  /** Attempts retried inside the call. */
  retries: number;
  /** How its port sorts a failure (the AWS or the Kubernetes classifier). */
  readonly outcomeOf: (error: unknown) => ApiCallOutcome;
  /** The first failed request's outcome, a `not-found` aside (a thing gone where the port expects it is an answer). */
  failed?: ApiCallOutcome;
  /** The call was answered without a request (a cache, a server known unreachable): not an API call. */
  withoutRequest?: boolean;
}

const callRunning = new AsyncLocalStorage<CallNotes>();

/** Runs `call` with `notes` as the notes of the call running now. */
export function notingCall<T>(notes: CallNotes, call: () => Promise<T>): Promise<T> {
  return callRunning.run(notes, call);
}

/** Adds `retries` to the measured call running now; outside one (the CLI), nothing. */
export function noteRetries(retries: number): void {
  const notes = callRunning.getStore();
  if (notes && retries > 0) notes.retries += retries;
}

/** A request of the measured call running now failed, whether or not its port then resolves. */
export function noteFailedRequest(error: unknown): void {
  const notes = callRunning.getStore();
  if (!notes || notes.failed !== undefined) return;
  const outcome = notes.outcomeOf(error);
  if (outcome !== 'not-found') notes.failed = outcome;
}

/** The measured call running now was answered without a request to the API. */
export function noteAnsweredWithoutRequest(): void {
  const notes = callRunning.getStore();
  if (notes) notes.withoutRequest = true;
}
