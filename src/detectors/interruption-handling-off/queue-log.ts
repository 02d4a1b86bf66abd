import type { LogLine } from '../../domain/aws.ts';
import { logHeadText, trimError } from '../cloud-errors/cloud-errors.ts';
import { QUEUE_NOT_FOUND } from '../karpenter/queue-not-found.ts';

/** Karpenter's own words around a failed queue call, in the eras QUEUE_NOT_FOUND lists. */
const QUEUE_CONTEXT =
  /getting messages from queue|discovering queue url|fetching queue url|creating sqs provider|failed to create valid sqs provider|deleting messages from queue/;
/** An IAM action named in a denial (`not authorized to perform: sqs:ReceiveMessage`). */
const DENIED_ACTION = /not authorized to perform: (sqs:[A-Za-z]+)/;

interface QueueLogLine {
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
    if (QUEUE_NOT_FOUND.test(text)) out.notFound = quote;
    else if (QUEUE_CONTEXT.test(text)) {
      out.otherError = quote;
      const action = DENIED_ACTION.exec(text)?.[1];
      if (action) out.deniedAction = action;
    }
  }
  return out;
}
