import type { SQSBatchResponse } from 'aws-lambda';
import { batchItemFailures, sqsRecordsOf } from '../event-shape.ts';
import type { ServiceHooks } from '../middleware.ts';
import { serviceHandler } from '../service-handler.ts';
import { scanBatch, type ScanServiceDependencies } from '../../usecases/scan-service.ts';

export type ScanDependencies = ScanServiceDependencies & ServiceHooks;

/** Claims outlive the invocation a little: a crashed invocation's clusters are free again soon after. */
const CLAIM_MARGIN_MS = 30_000;

/** The scans stop this long before Lambda's deadline: each unfinished one is logged as stopped and retried. */
export const SCAN_STOP_MARGIN_MS = 10_000;

/** SQS scan queue → one scan per record; failed records come back as batch item failures. */
export function createScanHandler(deps: ScanDependencies) {
  return serviceHandler(deps, {
    name: 'scan',
    stopMarginMs: SCAN_STOP_MARGIN_MS,
    parse: sqsRecordsOf,
    run: async (deliveries, { context, signal }): Promise<SQSBatchResponse> => {
      const result = await scanBatch(deps, deliveries, {
        claimHoldMs: context.getRemainingTimeInMillis() + CLAIM_MARGIN_MS,
        invocationId: context.awsRequestId,
        signal,
      });
      return batchItemFailures(result.failedMessageIds);
    },
    summarise: (response) => ({ batchItemFailures: response?.batchItemFailures.length ?? 0 }),
  });
}
