import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import {
  handleInterruptions,
  type InterruptionsDependencies as UseCaseDependencies,
} from '../../usecases/handle-interruptions.ts';
import { sqsRecordsOf } from '../event-shape.ts';
import { beginInvocation, serviceMiddlewares, TIMEOUT_EARLY_MS, type ServiceHooks } from '../middleware.ts';

export type InterruptionsDependencies = UseCaseDependencies & ServiceHooks;

/** A claim outlives the invocation by this much, so a crashed invocation's records can be retried soon after. */
const CLAIM_MARGIN_MS = 10_000;

/** The work stops this long before Lambda's deadline: the records not done are then returned as batch item failures. */
export const INTERRUPTIONS_STOP_MARGIN_MS = 5_000;

/** SQS (ReportBatchItemFailures): the sentinel's interruption queue, up to 10 EventBridge events per batch. */
export function createInterruptionsHandler(deps: InterruptionsDependencies) {
  return middy<SQSEvent, SQSBatchResponse>({ timeoutEarlyInMillis: TIMEOUT_EARLY_MS })
    .use(
      serviceMiddlewares(deps, {
        logger: deps.logger,
        functionName: 'interruptions',
        summarise: (response) => ({ failed: (response as SQSBatchResponse | undefined)?.batchItemFailures.length ?? 0 }),
      }),
    )
    .handler(async (event, context, options) => {
      const signal = beginInvocation(deps, context, options, INTERRUPTIONS_STOP_MARGIN_MS);
      const records = sqsRecordsOf(event).map(({ messageId, body, firstReceivedAt }) => ({ messageId, body, firstReceivedAt }));
      const claimHoldMs = context.getRemainingTimeInMillis() + CLAIM_MARGIN_MS;
      const { failed } = await handleInterruptions(deps, records, { claimHoldMs, signal });
      return { batchItemFailures: failed.map((itemIdentifier) => ({ itemIdentifier })) };
    });
}
