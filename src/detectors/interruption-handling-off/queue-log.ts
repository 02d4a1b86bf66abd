import type { LogLine } from '../../domain/aws.ts';
import { logHeadText, trimError } from '../cloud-errors/cloud-errors.ts';

/**
 * SQS's answer for a queue that does not exist, in Karpenter's log: `AWS.SimpleQueueService.NonExistentQueue`
 * (SDK Go v1 and v2) or `QueueDoesNotExist` (the JSON protocol's code). Karpenter writes it in every
 * era: `getting messages from queue, discovering queue url, fetching queue url, ...` (v0.19–v0.32),
 * `panic: fetching queue url, ...` or `panic: AWS.SimpleQueueService.NonExistentQueue: ...`
 * (v0.33–v1.3, a crash loop), `creating sqs provider, ...` (v1.4 on).
 */
const NOT_FOUND = /AWS\.SimpleQueueService\.NonExistentQueue|QueueDoesNotExist/;
/** Karpenter's own words around a failed queue call, in the same eras. */
const QUEUE_CONTEXT =
  /getting messages from queue|discovering queue url|fetching queue url|creating sqs provider|failed to create valid sqs provider|deleting messages from queue/;
/** An IAM action named in a denial (`not authorized to perform: sqs:ReceiveMessage`). */
const DENIED_ACTION = /not authorized to perform: (sqs:[A-Za-z]+)/;

export interface QueueLogLine {
  line: LogLine;
  /** `file:line: text`, one line, bounded. */
  quote: string;
}

export interface QueueLog {
  /** The newest line saying the queue does not exist. */
  notFound?: QueueLogLine;
  /** The newest other failed queue call (AccessDenied, a network error, ...). */
  otherError?: QueueLogLine;
  /** The SQS action a denial names, when its text names one. */
  deniedAction?: string;
}

export function queueLog(logs: readonly LogLine[]): QueueLog {
  const out: QueueLog = {};
  for (const line of logs) {
    const text = `${logHeadText(line)}\n${line.continuation ?? ''}`;
    const quote = { line, quote: `${line.origin}: ${trimError(logHeadText(line), 300)}` };
    if (NOT_FOUND.test(text)) out.notFound = quote;
    else if (QUEUE_CONTEXT.test(text)) {
      out.otherError = quote;
      const action = DENIED_ACTION.exec(text)?.[1];
      if (action) out.deniedAction = action;
    }
  }
  return out;
}
