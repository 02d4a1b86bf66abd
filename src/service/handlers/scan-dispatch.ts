import middy from '@middy/core';
import type { ScheduledEvent } from 'aws-lambda';
import type { Clock } from '../../ports/clock.ts';
import {
  dispatchScans,
  type DispatchScansDependencies,
  type DispatchScansSettings,
  type DispatchSummary,
} from '../../usecases/dispatch-scans.ts';
import { eventTimeOf } from '../event-shape.ts';
import { beginInvocation, serviceMiddlewares, TIMEOUT_EARLY_MS, type ServiceHooks } from '../middleware.ts';

export interface ScanDispatchDependencies extends DispatchScansDependencies, ServiceHooks {
  settings: DispatchScansSettings;
  /** The tick time when an event carries none (a hand-made test invoke). */
  clock: Clock;
}

/** The EKS and SQS calls are aborted this long before Lambda's deadline (the next tick dispatches again). */
const DISPATCH_STOP_MARGIN_MS = 3_000;

/** EventBridge schedule tick → one scan request per opted-in cluster, stamped with the tick's time. */
export function createScanDispatchHandler(deps: ScanDispatchDependencies) {
  return middy<ScheduledEvent, DispatchSummary>({ timeoutEarlyInMillis: TIMEOUT_EARLY_MS })
    .use(serviceMiddlewares(deps, { logger: deps.logger, functionName: 'scan-dispatch', summarise }))
    .handler(async (event, context, options) => {
      beginInvocation(deps, context, options, DISPATCH_STOP_MARGIN_MS);
      return dispatchScans(deps, deps.settings, eventTimeOf(event) ?? deps.clock.now());
    });
}

function summarise(response: unknown): Record<string, unknown> {
  const summary = response as DispatchSummary | undefined;
  return summary
    ? {
        requestedAt: summary.requestedAt,
        dispatched: summary.dispatched.length,
        notFound: summary.notFound.length,
        ...summary.skipped,
      }
    : {};
}
