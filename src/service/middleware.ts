/**
 * middy middlewares shared by the functions: small, each with validated options.
 */
import type { MiddlewareObj, Request } from '@middy/core';
import type { Context } from 'aws-lambda';
import type { InvocationSignal } from '../support/abort.ts';
import { errorFields, type Logger } from '../support/logger.ts';

export interface InvocationLogOptions {
  logger: Logger;
  /** The function's name as deployed (for the log line). */
  functionName: string;
  /** Turns the handler's response into a few numbers for the closing log line. */
  summarise?: (response: unknown) => Record<string, unknown>;
}

/** One line when an invocation ends: its request id, duration and summary, or its error (one line, no stack). */
function invocationLog(options: InvocationLogOptions): MiddlewareObj<unknown, unknown, Error, Context> {
  if (!options?.logger || !options.functionName) throw new TypeError('invocationLog: logger and functionName are required');
  const { logger, functionName, summarise } = options;
  let startedAt = 0;
  return {
    name: 'invocationLog',
    before: () => {
      startedAt = Date.now();
    },
    after: (request) => {
      logger.info('invocation done', {
        function: functionName,
        requestId: request.context.awsRequestId,
        durationMs: Date.now() - startedAt,
        ...summarise?.(request.response),
      });
    },
    onError: (request) => {
      logger.error('invocation failed', {
        function: functionName,
        requestId: request.context.awsRequestId,
        durationMs: Date.now() - startedAt,
        ...errorFields(request.error),
      });
    },
  };
}

/**
 * What a deployed function adds around its handler (the composition root sets it; tests may leave
 * it out): the Lambda context on every log line, its configuration logged once, and the holder
 * through which the adapters see the invocation's AbortSignal.
 */
export interface ServiceHooks {
  /** Powertools' injectLambdaContext (src/service/powertools-logger.ts). */
  logContext?: MiddlewareObj;
  /** Logged once per cold start, on the environment's first invocation, as `effective configuration`. */
  effectiveConfiguration?: Record<string, unknown>;
  /** Settings that cannot take effect as given (src/config.ts): each a warning after that line, once per cold start. */
  configWarnings?: readonly string[];
  /** Set to the invocation's work signal when it starts (the adapters built at cold start read it). */
  invocationSignal?: InvocationSignal;
  /**
   * Run once the handler is done, whether it answered or failed (the API call metrics measured in
   * the invocation, src/adapters/calls/api-call-metrics.ts): never changes the answer or the error,
   * never runs past the invocation's deadline.
   */
  afterInvocation?: () => Promise<void>;
}

/** Kept back from the hook's time: the closing log line and middy's answer must still fit before the deadline. */
const AFTER_INVOCATION_RESERVE_MS = 200;

/** Resolves true when `work` ended within `ms` (unbounded when `ms` is undefined), false when the time ran out first. */
async function endedWithin(work: () => Promise<void>, ms: number | undefined): Promise<boolean> {
  if (ms === undefined) return work().then(() => true);
  let timer: NodeJS.Timeout | undefined;
  const outOfTime = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([work().then(() => true), outOfTime]);
  } finally {
    clearTimeout(timer);
  }
}

/** The `afterInvocation` hook in middy's `after` and `onError`: its failure or its overrun is one WARN line, nothing more. */
function afterInvocationHook(logger: Logger, hook: () => Promise<void>): MiddlewareObj<unknown, unknown, Error, Context> {
  const run = async (request: Request<unknown, unknown, Error, Context>): Promise<void> => {
    const remainingMs = request.context.getRemainingTimeInMillis?.();
    const allowedMs = Number.isFinite(remainingMs) ? Math.max(0, remainingMs - AFTER_INVOCATION_RESERVE_MS) : undefined;
    try {
      if (!(await endedWithin(async () => hook(), allowedMs))) {
        logger.warn('after-invocation work cut short: the invocation ran out of time', { allowedMs });
      }
    } catch (error) {
      // Returning nothing (and throwing nothing) leaves middy's answer, or the handler's own error, as it was.
      logger.warn('after-invocation work failed', errorFields(error));
    }
  };
  return { name: 'afterInvocation', after: run, onError: run };
}

/** The configuration line, on the first invocation only (it then carries `cold_start: true` and the request id). */
function effectiveConfigurationLog(
  logger: Logger,
  configuration: Record<string, unknown>,
  warnings: readonly string[] = [],
): MiddlewareObj {
  let logged = false;
  return {
    name: 'effectiveConfigurationLog',
    before: () => {
      if (logged) return;
      logged = true;
      logger.info('effective configuration', configuration);
      for (const warning of warnings) logger.warn(`configuration: ${warning}`);
    },
  };
}

/**
 * The middlewares of every function, in order: Lambda context first (its `after` then runs last),
 * the closing line, the configuration line, the after-invocation hook (last, so its `after` and
 * `onError` run first: before the closing line, which stays the invocation's last).
 */
export function serviceMiddlewares(hooks: ServiceHooks, options: InvocationLogOptions): MiddlewareObj[] {
  return [
    ...(hooks.logContext ? [hooks.logContext] : []),
    invocationLog(options) as MiddlewareObj,
    ...(hooks.effectiveConfiguration
      ? [effectiveConfigurationLog(options.logger, hooks.effectiveConfiguration, hooks.configWarnings)]
      : []),
    ...(hooks.afterInvocation ? [afterInvocationHook(options.logger, hooks.afterInvocation) as MiddlewareObj] : []),
  ];
}
