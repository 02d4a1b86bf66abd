/**
 * middy middlewares shared by the functions: small, each with validated options.
 */
import type { MiddlewareObj } from '@middy/core';
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

/** The middlewares of every function, in order: Lambda context first (its `after` then runs last), the closing line, the configuration line. */
export function serviceMiddlewares(hooks: ServiceHooks, options: InvocationLogOptions): MiddlewareObj[] {
  return [
    ...(hooks.logContext ? [hooks.logContext] : []),
    invocationLog(options) as MiddlewareObj,
    ...(hooks.effectiveConfiguration
      ? [effectiveConfigurationLog(options.logger, hooks.effectiveConfiguration, hooks.configWarnings)]
      : []),
  ];
}
