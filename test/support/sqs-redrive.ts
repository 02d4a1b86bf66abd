/**
 * A tiny model of an SQS queue with a redrive policy, as an event source mapping with
 * ReportBatchItemFailures drives a function: every message in flight is delivered (its
 * ApproximateReceiveCount incremented), the records the function lists in `batchItemFailures` come
 * back, and a message that has been received `maxReceiveCount` times and failed again is moved to
 * the DLQ instead. A rejected invocation fails its whole batch. Enough to show which messages a
 * handler lets through, retries and gives up on; not SQS timing.
 */
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';

export interface RedriveOptions {
  /** The queue's redrive policy: receives before a message goes to the DLQ. */
  maxReceiveCount: number;
  /** Runs before each delivery round (the visibility timeout passing): e.g. advance a test clock. */
  beforeRound?: (round: number) => void | Promise<void>;
  /** Safety stop for a handler that never settles its messages. */
  maxRounds?: number;
}

export interface RedriveResult {
  /** Messages moved to the dead-letter queue, as last delivered. */
  dlq: SQSRecord[];
  /** Message ids the function acknowledged, in the order it did. */
  processed: string[];
  /** Receives per message id. */
  receives: Map<string, number>;
  /** Invocations of the function (one per round). */
  invocations: number;
}

export async function redrive(
  invoke: (event: SQSEvent) => Promise<SQSBatchResponse | void>,
  records: readonly SQSRecord[],
  options: RedriveOptions,
): Promise<RedriveResult> {
  const maxRounds = options.maxRounds ?? options.maxReceiveCount * 4 + 4;
  const receives = new Map<string, number>();
  const result: RedriveResult = { dlq: [], processed: [], receives, invocations: 0 };
  let inFlight = records.map((r) => structuredClone(r));
  for (let round = 1; inFlight.length > 0; round++) {
    if (round > maxRounds) throw new Error(`redrive: messages still in flight after ${maxRounds} rounds`);
    await options.beforeRound?.(round);
    const batch = inFlight.map((record) => {
      const count = (receives.get(record.messageId) ?? 0) + 1;
      receives.set(record.messageId, count);
      return {
        ...record,
        receiptHandle: `${record.receiptHandle.split('#')[0]}#${count}`,
        attributes: { ...record.attributes, ApproximateReceiveCount: String(count) },
      };
    });
    result.invocations += 1;
    let failed: Set<string>;
    try {
      const response = await invoke({ Records: batch });
      failed = new Set((response?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
    } catch {
      failed = new Set(batch.map((r) => r.messageId));
    }
    inFlight = [];
    for (const record of batch) {
      if (!failed.has(record.messageId)) result.processed.push(record.messageId);
      else if (receives.get(record.messageId)! >= options.maxReceiveCount) result.dlq.push(record);
      else inFlight.push(record);
    }
  }
  return result;
}
