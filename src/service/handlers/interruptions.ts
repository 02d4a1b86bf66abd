import type { SQSBatchResponse } from 'aws-lambda';
import {
  handleInterruptions,
  type InterruptionsDependencies as UseCaseDependencies,
} from '../../usecases/handle-interruptions.ts';
import { batchItemFailures, sqsRecordsOf } from '../event-shape.ts';
import type { ServiceHooks } from '../middleware.ts';
import { serviceHandler } from '../service-handler.ts';

export type InterruptionsDependencies = UseCaseDependencies & ServiceHooks;

/** A claim outlives the invocation by this much, so a crashed invocation's records can be retried soon after. */
const CLAIM_MARGIN_MS = 10_000;

/** The work stops this long before Lambda's deadline: the records not done are then returned as batch item failures. */
export const INTERRUPTIONS_STOP_MARGIN_MS = 5_000;

/** SQS (ReportBatchItemFailures): the sentinel's interruption queue, up to 10 EventBridge events per batch. */
export function createInterruptionsHandler(deps: InterruptionsDependencies) {
  return serviceHandler(deps, {
    name: 'interruptions',
    stopMarginMs: INTERRUPTIONS_STOP_MARGIN_MS,
    parse: sqsRecordsOf,
    run: async (records, { context, signal }): Promise<SQSBatchResponse> => {
      const claimHoldMs = context.getRemainingTimeInMillis() + CLAIM_MARGIN_MS;
      const { failed } = await handleInterruptions(deps, records, { claimHoldMs, signal });
      return batchItemFailures(failed);
    },
    summarise: (response) => ({ failed: response?.batchItemFailures.length ?? 0 }),
  });
}
