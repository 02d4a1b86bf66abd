/**
 * middy middlewares shared by the functions: small, each with validated options.
 */
import type { MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';
import { errorFields, type Logger } from '../support/logger.ts';

export interface InvocationLogOptions {
  logger: Logger;
  /** The function's name as deployed (for the log line). */
  functionName: string;
  /** Turns the handler's response into a few numbers for the closing log line. */
  summarise?: (response: unknown) => Record<string, unknown>;
}

/** One line when an invocation ends: its request id, duration and summary, or its error (one line, no stack). */
export function invocationLog(options: InvocationLogOptions): MiddlewareObj<unknown, unknown, Error, Context> {
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
