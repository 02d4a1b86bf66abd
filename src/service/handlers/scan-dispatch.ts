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
import { invocationLog } from '../middleware.ts';

export interface ScanDispatchDependencies extends DispatchScansDependencies {
  settings: DispatchScansSettings;
  /** The tick time when an event carries none (a hand-made test invoke). */
  clock: Clock;
}

/** EventBridge schedule tick → one scan request per opted-in cluster, stamped with the tick's time. */
export function createScanDispatchHandler(deps: ScanDispatchDependencies) {
  return middy<ScheduledEvent, DispatchSummary>()
    .use(invocationLog({ logger: deps.logger, functionName: 'scan-dispatch', summarise }))
    .handler(async (event) => {
      return dispatchScans(deps, deps.settings, eventTimeOf(event) ?? deps.clock.now());
    });
}

function summarise(response: unknown): Record<string, unknown> {
  const summary = response as DispatchSummary | undefined;
  return summary ? { requestedAt: summary.requestedAt, dispatched: summary.dispatched.length, ...summary.skipped } : {};
}
