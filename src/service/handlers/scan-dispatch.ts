import type { Clock } from '../../ports/clock.ts';
import {
  dispatchScans,
  type DispatchScansDependencies,
  type DispatchScansSettings,
  type DispatchSummary,
} from '../../usecases/dispatch-scans.ts';
import { eventTimeOf } from '../event-shape.ts';
import type { ServiceHooks } from '../middleware.ts';
import { serviceHandler } from '../service-handler.ts';

export interface ScanDispatchDependencies extends DispatchScansDependencies, ServiceHooks {
  settings: DispatchScansSettings;
  /** The tick time when an event carries none (a hand-made test invoke). */
  clock: Clock;
}

/** The EKS and SQS calls are aborted this long before Lambda's deadline (the next tick dispatches again). */
const DISPATCH_STOP_MARGIN_MS = 3_000;

/** EventBridge schedule tick → one scan request per opted-in cluster, stamped with the tick's time. */
export function createScanDispatchHandler(deps: ScanDispatchDependencies) {
  return serviceHandler(deps, {
    name: 'scan-dispatch',
    stopMarginMs: DISPATCH_STOP_MARGIN_MS,
    parse: eventTimeOf,
    run: (tickTime) => dispatchScans(deps, deps.settings, tickTime ?? deps.clock.now()),
    summarise,
  });
}

function summarise(summary: DispatchSummary | undefined): Record<string, unknown> {
  return summary
    ? {
        requestedAt: summary.requestedAt,
        dispatched: summary.dispatched.length,
        notFound: summary.notFound.length,
        ...summary.skipped,
      }
    : {};
}
