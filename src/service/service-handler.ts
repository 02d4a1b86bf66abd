/**
 * The one shape of every function: middy with its early timeout, the service middlewares, and the
 * invocation's work signal, around the event's parse and the use-case call. A handler module then
 * says only what is its own: its name, its stop margin, how its event is read, what it runs and
 * what its closing log line counts.
 */
import middy, { type MiddyfiedHandler } from '@middy/core';
import type { Context } from 'aws-lambda';
import type { Logger } from '../support/logger.ts';
import { serviceMiddlewares, type ServiceHooks } from './middleware.ts';

/**
 * middy aborts its `signal` (and answers with a TimeoutError) `timeoutEarlyInMillis` before Lambda's
 * deadline. The work signal aborts `stopMarginMs` before the deadline (so, earlier), leaving the
 * use case time to report what it did not finish (batch item failures) before middy's backstop.
 */
const TIMEOUT_EARLY_MS = 1_000;

/** What the use-case call gets besides the parsed event. */
interface Invocation {
  context: Context;
  /** Aborts `stopMarginMs` before Lambda's deadline, or when middy's own early timeout fires. */
  signal: AbortSignal;
}

interface ServiceHandlerSpec<TRequest, TResult> {
  /** The function's name as deployed (for the closing log line). */
  name: string;
  /** The work stops this long before Lambda's deadline (more than middy's early timeout). */
  stopMarginMs: number;
  /** The event, checked (one clear error for a malformed one) and turned into what `run` needs. */
  parse: (event: unknown) => TRequest;
  run: (request: TRequest, invocation: Invocation) => Promise<TResult>;
  /** Turns the response into a few numbers for the closing log line. */
  summarise: (response: TResult | undefined) => Record<string, unknown>;
}

/**
 * The Lambda handler of one function: `deps` are its composed dependencies (logger and hooks). The
 * event is `unknown` until `parse` has checked it: Lambda hands over whatever JSON it was invoked with.
 */
export function serviceHandler<TRequest, TResult>(
  deps: ServiceHooks & { logger: Logger },
  spec: ServiceHandlerSpec<TRequest, TResult>,
): MiddyfiedHandler<unknown, TResult, Error, Context> {
  const summarise = (response: unknown) => spec.summarise(response as TResult | undefined);
  return middy<unknown, TResult>({ timeoutEarlyInMillis: TIMEOUT_EARLY_MS })
    .use(serviceMiddlewares(deps, { logger: deps.logger, functionName: spec.name, summarise }))
    .handler(async (event, context, options) => {
      const signal = beginInvocation(deps, context, options, spec.stopMarginMs);
      return spec.run(spec.parse(event), { context, signal });
    });
}

function workSignal(context: Context, signal: AbortSignal | undefined, stopMarginMs: number): AbortSignal {
  const remainingMs = context.getRemainingTimeInMillis?.() ?? Number.POSITIVE_INFINITY;
  const signals: AbortSignal[] = signal ? [signal] : [];
  if (Number.isFinite(remainingMs)) signals.push(AbortSignal.timeout(Math.max(0, remainingMs - stopMarginMs)));
  return AbortSignal.any(signals);
}

/** The invocation's work signal, also handed to the adapters built at cold start through the hooks' holder. */
function beginInvocation(
  hooks: ServiceHooks,
  context: Context,
  middyOptions: { signal?: AbortSignal } | undefined,
  stopMarginMs: number,
): AbortSignal {
  const work = workSignal(context, middyOptions?.signal, stopMarginMs);
  hooks.invocationSignal?.set(work);
  return work;
}
