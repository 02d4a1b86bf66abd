import type { LogLine } from '../../domain/aws.ts';
import { logHeadText, trimError } from '../cloud-errors/cloud-errors.ts';
import { QUEUE_NOT_FOUND } from '../karpenter/queue-not-found.ts';

/**
 * Karpenter's own words around a failed queue call, in the eras QUEUE_NOT_FOUND lists
 * (aws@v1.14.1 pkg/controllers/interruption/controller.go and pkg/providers/sqs/sqs.go).
 */
const QUEUE_CONTEXT =
  /getting messages from queue|discovering queue url|fetching queue url|creating sqs provider|failed to create valid sqs provider|deleting messages from sqs queue|deleting sqs message/;
/** An IAM action named in a denial (`not authorized to perform: sqs:ReceiveMessage`). */
const DENIED_ACTION = /not authorized to perform: (sqs:[A-Za-z]+)/;
/** Go's context.Canceled: a poll cut short (shutdown, leader change), not a failing queue. */
const CANCELED = /context canceled/;
/** One failed poll happens (a network blip); a failing queue fails every 20 s poll. */
const OTHER_ERROR_MIN_LINES = 2;

interface QueueLogLine {
  /** The newest such line. */
  line: LogLine;
  /** `file:line: text` of the newest, one line, bounded. */
  quote: string;
  /** The time of the first such line, when it has one: since when it fails. */
  since?: string;
}

export interface QueueLog {
  /** The lines saying the queue does not exist. */
  notFound?: QueueLogLine;
  /** Other failed queue calls (AccessDenied, a network error, ...), when they repeat. */
  otherError?: QueueLogLine;
  /** The SQS action a denial names, when its text names one. */
  deniedAction?: string;
}

export function queueLog(logs: readonly LogLine[]): QueueLog {
  let notFound: QueueLogLine | undefined;
  let otherError: QueueLogLine | undefined;
  let otherCount = 0;
  let deniedAction: string | undefined;
  const seen = (before: QueueLogLine | undefined, line: LogLine): QueueLogLine => ({
    line,
    quote: `${line.origin}: ${trimError(logHeadText(line), 300)}`,
    ...(before ? (before.since ? { since: before.since } : {}) : line.time ? { since: line.time } : {}),
  });
  for (const line of logs) {
    const text = `${logHeadText(line)}\n${line.continuation ?? ''}`;
    if (QUEUE_NOT_FOUND.test(text)) notFound = seen(notFound, line);
    else if (QUEUE_CONTEXT.test(text) && !CANCELED.test(text)) {
      otherError = seen(otherError, line);
      otherCount++;
      deniedAction = DENIED_ACTION.exec(text)?.[1] ?? deniedAction;
    }
  }
  return {
    ...(notFound ? { notFound } : {}),
    ...(otherError && otherCount >= OTHER_ERROR_MIN_LINES ? { otherError } : {}),
    ...(otherError && otherCount >= OTHER_ERROR_MIN_LINES && deniedAction ? { deniedAction } : {}),
  };
}
