import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { handleInterruptions, type InterruptionsDependencies } from '../../usecases/handle-interruptions.ts';
import { sqsRecordsOf } from '../event-shape.ts';
import { invocationLog } from '../middleware.ts';

export type { InterruptionsDependencies } from '../../usecases/handle-interruptions.ts';

/** A claim outlives the invocation by this much, so a crashed invocation's records can be retried soon after. */
const CLAIM_MARGIN_MS = 10_000;

/** SQS (ReportBatchItemFailures): the sentinel's interruption queue, up to 10 EventBridge events per batch. */
export function createInterruptionsHandler(deps: InterruptionsDependencies) {
  return middy<SQSEvent, SQSBatchResponse>()
    .use(
      invocationLog({
        logger: deps.logger,
        functionName: 'interruptions',
        summarise: (response) => ({ failed: (response as SQSBatchResponse | undefined)?.batchItemFailures.length ?? 0 }),
      }),
    )
    .handler(async (event, context) => {
      const records = sqsRecordsOf(event).map(({ messageId, body }) => ({ messageId, body }));
      const claimHoldMs = context.getRemainingTimeInMillis() + CLAIM_MARGIN_MS;
      const { failed } = await handleInterruptions(deps, records, { claimHoldMs });
      return { batchItemFailures: failed.map((itemIdentifier) => ({ itemIdentifier })) };
    });
}
