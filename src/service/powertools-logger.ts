/**
 * The `Logger` port over Powertools' Logger: every line of an invocation is one JSON object with
 * `level`, `message`, `timestamp`, `service` and, once `injectLambdaContext` ran, the invocation's
 * `function_request_id`, `function_name`, `cold_start` (and ARN, memory, X-Ray trace id). Our
 * fields are appended to the line as they are. `with(fields)` keeps the fields on the port's side
 * (nothing is stored in the Powertools Logger), so a per-cluster logger never leaks into the next
 * invocation, and the Lambda context the middleware sets is on every line.
 */
import { Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { MiddlewareObj } from '@middy/core';
import type { Logger } from '../support/logger.ts';

export interface PowertoolsLoggingOptions {
  serviceName: string;
  /** DEBUG, INFO, WARN, ERROR or SILENT. */
  logLevel: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'SILENT';
}

export interface LambdaLogging {
  logger: Logger;
  /** Powertools' middy middleware: puts the invocation's Lambda context on every line. */
  context: MiddlewareObj;
}

/** One Powertools Logger per function (cold start), behind the port, with its middleware. */
export function powertoolsLogging(options: PowertoolsLoggingOptions, powertools = new PowertoolsLogger(options)): LambdaLogging {
  return {
    logger: portOf(powertools, {}),
    context: injectLambdaContext(powertools, { resetKeys: true }) as MiddlewareObj,
  };
}

type Level = 'info' | 'warn' | 'error';

function portOf(powertools: PowertoolsLogger, base: Record<string, unknown>): Logger {
  const emit = (level: Level) => (message: string, fields?: Record<string, unknown>) =>
    powertools[level](message, { ...base, ...fields });
  return {
    info: emit('info'),
    warn: emit('warn'),
    error: emit('error'),
    with: (fields) => portOf(powertools, { ...base, ...fields }),
  };
}
