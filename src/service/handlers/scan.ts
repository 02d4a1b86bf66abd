import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { sqsRecordsOf } from '../event-shape.ts';
import { beginInvocation, serviceMiddlewares, TIMEOUT_EARLY_MS, type ServiceHooks } from '../middleware.ts';
import { scanBatch, type ScanServiceDependencies } from '../../usecases/scan-service.ts';

export type ScanDependencies = ScanServiceDependencies & ServiceHooks;

/** Claims outlive the invocation a little: a crashed invocation's clusters are free again soon after. */
const CLAIM_MARGIN_MS = 30_000;

/** The scans stop this long before Lambda's deadline: each unfinished one is logged as stopped and retried. */
export const SCAN_STOP_MARGIN_MS = 10_000;

/** SQS scan queue → one scan per record; failed records come back as batch item failures. */
export function createScanHandler(deps: ScanDependencies) {
  return middy<SQSEvent, SQSBatchResponse>({ timeoutEarlyInMillis: TIMEOUT_EARLY_MS })
    .use(serviceMiddlewares(deps, { logger: deps.logger, functionName: 'scan', summarise }))
    .handler(async (event, context, options) => {
      const signal = beginInvocation(deps, context, options, SCAN_STOP_MARGIN_MS);
      const deliveries = sqsRecordsOf(event);
      const result = await scanBatch(deps, deliveries, {
        claimHoldMs: context.getRemainingTimeInMillis() + CLAIM_MARGIN_MS,
        invocationId: context.awsRequestId,
        signal,
      });
      return { batchItemFailures: result.failedMessageIds.map((itemIdentifier) => ({ itemIdentifier })) };
    });
}

function summarise(response: unknown): Record<string, unknown> {
  return { batchItemFailures: (response as SQSBatchResponse | undefined)?.batchItemFailures.length ?? 0 };
}
