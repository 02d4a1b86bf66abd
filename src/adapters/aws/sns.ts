/**
 * The alert topic: each alert one SNS message in the chat custom notification format, with message
 * attributes for subscription filter policies and a subject for e-mail subscribers. PublishBatch
 * takes 10 messages (256 KiB) per call; a call succeeds even when some of its messages were refused, so the
 * response's `Failed` list is read too. Every batch is tried before `publish` rejects.
 */
import { Buffer } from 'node:buffer';
import {
  PublishBatchCommand,
  type MessageAttributeValue,
  type PublishBatchRequestEntry,
  type SNSClient,
} from '@aws-sdk/client-sns';
import type { Alert } from '../../domain/alert.ts';
import { alertMessageAttributes, chatNotificationOf, chatTitle } from '../../domain/chat-notification.ts';
import { SourceError } from '../../ports/errors.ts';
import type { AlertPublisher } from '../../ports/notify.ts';
import { oneLine } from '../../domain/shape.ts';
import { sourceError } from './errors.ts';

/** PublishBatch's limit of messages per call. */
const PUBLISH_BATCH_SIZE = 10;
/** PublishBatch's limit on the messages of one call together (256 KiB), less room for the envelope. */
const PUBLISH_BATCH_BYTES = 250 * 1024;
/** SNS's limit on a subject: ASCII, no line breaks. */
const SUBJECT_MAX = 100;

interface NotPublished {
  code: string;
  message: string;
}

export class SnsAlertPublisher implements AlertPublisher {
  readonly #client: SNSClient;
  readonly #topicArn: string;

  constructor(client: SNSClient, topicArn: string) {
    this.#client = client;
    this.#topicArn = topicArn;
  }

  async publish(alerts: readonly Alert[]): Promise<void> {
    const failures: NotPublished[] = [];
    // One batch after the other, so a thread's alerts reach the topic in the order they were planned.
    for (const batch of batchesOf(alerts.map(entryOf))) failures.push(...(await this.#publishBatch(batch)));
    const first = failures[0];
    if (!first) return;
    throw new SourceError(
      oneLine(
        `PublishBatch failed for ${failures.length} of ${alerts.length} alerts: first ${first.code}: ${first.message}`,
        500,
      ),
      { code: first.code },
    );
  }

  /** One batch; resolves with the alerts not published (a failed call fails all of them), never rejects. */
  async #publishBatch(batch: PublishBatchRequestEntry[]): Promise<NotPublished[]> {
    try {
      const output = await this.#client.send(
        new PublishBatchCommand({ TopicArn: this.#topicArn, PublishBatchRequestEntries: batch }),
      );
      return (output.Failed ?? []).map((f) => ({ code: f.Code ?? 'Failed', message: f.Message ?? `entry ${f.Id ?? '?'}` }));
    } catch (error) {
      const failure = sourceError('PublishBatch', error);
      return batch.map(() => ({ code: failure.code ?? 'Error', message: failure.summary }));
    }
  }
}

function entryOf(alert: Alert, index: number): PublishBatchRequestEntry {
  const attributes: Record<string, MessageAttributeValue> = {};
  for (const [name, value] of Object.entries(alertMessageAttributes(alert))) {
    // SNS refuses an empty attribute value.
    attributes[name] = { DataType: 'String', StringValue: value === '' ? '-' : value };
  }
  return {
    Id: `alert-${index}`,
    Message: JSON.stringify(chatNotificationOf(alert)),
    Subject: subjectOf(alert),
    MessageAttributes: attributes,
  };
}

/** Up to 10 entries per batch, and no more bytes than one call may carry. */
function batchesOf(entries: readonly PublishBatchRequestEntry[]): PublishBatchRequestEntry[][] {
  const batches: PublishBatchRequestEntry[][] = [];
  let current: PublishBatchRequestEntry[] = [];
  let bytes = 0;
  for (const entry of entries) {
    const size = entryBytes(entry);
    if (current.length === PUBLISH_BATCH_SIZE || (current.length > 0 && bytes + size > PUBLISH_BATCH_BYTES)) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(entry);
    bytes += size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

function entryBytes(entry: PublishBatchRequestEntry): number {
  const attributes = Object.entries(entry.MessageAttributes ?? {}).map(
    ([name, v]) => `${name}${v.DataType ?? ''}${v.StringValue ?? ''}`,
  );
  return Buffer.byteLength([entry.Message ?? '', entry.Subject ?? '', ...attributes].join(''), 'utf8');
}

/** The chat title as an SNS subject: printable ASCII only (accents dropped, anything else `?`), at most 100 characters. */
export function subjectOf(alert: Alert): string {
  const ascii = chatTitle(alert)
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[\u2013\u2014]/g, '-')
    .replace(/\u2026/g, '...')
    .replace(/[^\x20-\x7e]/g, '?')
    .trim();
  return ascii.length <= SUBJECT_MAX ? ascii : `${ascii.slice(0, SUBJECT_MAX - 3)}...`;
}
