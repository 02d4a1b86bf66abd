/**
 * The scan queue: one message per cluster, sent 10 to a SendMessageBatch call (the API's limit).
 * A batch call succeeds even when some of its messages were refused, so the response's `Failed`
 * list is read too; every chunk is tried before the send rejects, naming each cluster not queued.
 */
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { SourceError } from '../../ports/errors.ts';
import type { ScanQueue, ScanRequest } from '../../ports/notify.ts';
import { oneLine } from '../../domain/shape.ts';
import { chunks, mapBounded } from '../../support/concurrency.ts';
import { awsErrorName, awsErrorText } from './errors.ts';

/** SendMessageBatch's limit of messages per call. */
const SEND_BATCH_SIZE = 10;
/** Batch calls in flight at once. */
const SEND_CONCURRENCY = 4;

interface NotQueued {
  cluster: string;
  code: string;
  cause?: unknown;
}

export class SqsScanQueue implements ScanQueue {
  readonly #client: SQSClient;
  readonly #queueUrl: string;

  constructor(client: SQSClient, queueUrl: string) {
    this.#client = client;
    this.#queueUrl = queueUrl;
  }

  async send(requests: readonly ScanRequest[]): Promise<void> {
    const failures = (
      await mapBounded(chunks(requests, SEND_BATCH_SIZE), SEND_CONCURRENCY, (chunk) => this.#sendBatch(chunk))
    ).flat();
    const first = failures[0];
    if (!first) return;
    const named = failures.map((f) => `${f.cluster} (${f.code})`).join(', ');
    // A whole call that failed says why once (denied, throttled), after the names it cost.
    const cause = failures.find((f) => f.cause !== undefined)?.cause;
    const why = cause === undefined ? '' : `; ${awsErrorText(cause)}`;
    throw new SourceError(
      oneLine(`SendMessageBatch failed for ${failures.length} of ${requests.length} scan requests: ${named}${why}`, 1000),
      { code: first.code, cause },
    );
  }

  /** One batch; resolves with the requests not queued (a failed call fails all of them), never rejects. */
  async #sendBatch(chunk: readonly ScanRequest[]): Promise<NotQueued[]> {
    try {
      const output = await this.#client.send(
        new SendMessageBatchCommand({
          QueueUrl: this.#queueUrl,
          Entries: chunk.map((request, index) => ({
            Id: String(index),
            MessageBody: JSON.stringify({ cluster: request.cluster, requestedAt: request.requestedAt }),
          })),
        }),
      );
      return (output.Failed ?? []).map((failed) => ({
        cluster: chunk[Number(failed.Id)]?.cluster ?? `entry ${failed.Id ?? '?'}`,
        code: failed.Code ?? 'Failed',
      }));
    } catch (error) {
      const code = awsErrorName(error);
      return chunk.map((request) => ({ cluster: request.cluster, code, cause: error }));
    }
  }
}
