/**
 * The envelope of an event Lambda hands a function (SQS, SNS, EventBridge), checked before any of
 * it is read. Lambda itself never sends a malformed envelope, but a hand-made `aws lambda invoke`
 * or a test console does: it is refused with one line, never read into a TypeError.
 */
import type { SQSBatchResponse } from 'aws-lambda';
import { SentinelError } from '../domain/errors.ts';

/** The event is not of the shape the function is invoked with. Nothing has been done. */
export class EventShapeError extends SentinelError {
  constructor(message: string) {
    super(message);
    // The caller's mistake: the stack's frames would only be noise in the Lambda log.
    this.stack = `${this.name}: ${this.message}`;
  }
}

export interface SqsRecordEnvelope {
  messageId: string;
  /** '' when the record's body is not a string (then it parses as no message at all). */
  body: string;
  /** ApproximateReceiveCount, 1 when missing or unreadable. */
  receiveCount: number;
  /** ApproximateFirstReceiveTimestamp (set by SQS, not the sender): when the queue first handed the message out; undefined when missing or unreadable. */
  firstReceivedAt: Date | undefined;
}

/** The records of an SQS event; every one must name its message, or no batch item failure could. */
export function sqsRecordsOf(event: unknown): SqsRecordEnvelope[] {
  const records = recordsOf(event, 'SQS');
  return records.map((record, i) => {
    if (!isObject(record) || typeof record.messageId !== 'string' || record.messageId === '') {
      throw new EventShapeError(`not an SQS event: Records[${i}] has no messageId`);
    }
    const attributes = isObject(record.attributes) ? record.attributes : {};
    const count = Number(attributes.ApproximateReceiveCount);
    const firstReceived = Number(attributes.ApproximateFirstReceiveTimestamp);
    return {
      messageId: record.messageId,
      body: typeof record.body === 'string' ? record.body : '',
      receiveCount: Number.isSafeInteger(count) && count >= 1 ? count : 1,
      firstReceivedAt: Number.isSafeInteger(firstReceived) && firstReceived > 0 ? new Date(firstReceived) : undefined,
    };
  });
}

export interface SnsRecordEnvelope {
  messageId: string;
  message: string;
  subject: string | undefined;
  /** String message attributes, by name; any other kind is left out. */
  attributes: Record<string, string>;
}

/** The answer to an SQS batch (ReportBatchItemFailures): the messages SQS is to deliver again, none for a batch done. */
export function batchItemFailures(messageIds: readonly string[]): SQSBatchResponse {
  return { batchItemFailures: messageIds.map((itemIdentifier) => ({ itemIdentifier })) };
}

/** The messages of an SNS event (an event without Records has none). */
export function snsRecordsOf(event: unknown): SnsRecordEnvelope[] {
  if (isObject(event) && event.Records === undefined) return [];
  return recordsOf(event, 'SNS').map((record, i) => {
    const sns = isObject(record) ? record.Sns : undefined;
    if (!isObject(sns)) throw new EventShapeError(`not an SNS event: Records[${i}] has no Sns object`);
    const attributes = isObject(sns.MessageAttributes) ? sns.MessageAttributes : {};
    return {
      messageId: typeof sns.MessageId === 'string' ? sns.MessageId : `Records[${i}]`,
      message: typeof sns.Message === 'string' ? sns.Message : '',
      subject: typeof sns.Subject === 'string' ? sns.Subject : undefined,
      attributes: Object.fromEntries(
        Object.entries(attributes).flatMap(([name, a]) =>
          isObject(a) && typeof a.Value === 'string' ? [[name, a.Value] as const] : [],
        ),
      ),
    };
  });
}

/** The `time` of an EventBridge event, or undefined when it has none that parses. */
export function eventTimeOf(event: unknown): Date | undefined {
  const time = isObject(event) && typeof event.time === 'string' ? Date.parse(event.time) : Number.NaN;
  return Number.isNaN(time) ? undefined : new Date(time);
}

function recordsOf(event: unknown, source: string): unknown[] {
  if (!isObject(event) || !Array.isArray(event.Records)) throw new EventShapeError(`not an ${source} event: no Records list`);
  return event.Records;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
