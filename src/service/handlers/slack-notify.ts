import middy from '@middy/core';
import type { SNSEvent } from 'aws-lambda';
import {
  slackNotifier,
  type NotifySlackDependencies,
  type NotifySlackResult,
  type SlackDelivery,
} from '../../usecases/notify-slack.ts';
import { snsRecordsOf, type SnsRecordEnvelope } from '../event-shape.ts';
import { beginInvocation, serviceMiddlewares, TIMEOUT_EARLY_MS, type ServiceHooks } from '../middleware.ts';

export type SlackNotifyDependencies = NotifySlackDependencies & ServiceHooks;

/** The webhook POST and the URL read are aborted this long before Lambda's deadline (the event is then retried). */
const SLACK_STOP_MARGIN_MS = 2_000;

/**
 * SNS alert topic → Slack. Invoked asynchronously: a rejection makes Lambda retry the event and
 * then send it to the on-failure DLQ, which is how an unposted message is kept.
 */
export function createSlackNotifyHandler(deps: SlackNotifyDependencies) {
  const notify = slackNotifier(deps);
  return middy<SNSEvent, NotifySlackResult>({ timeoutEarlyInMillis: TIMEOUT_EARLY_MS })
    .use(serviceMiddlewares(deps, { logger: deps.logger, functionName: 'slack-notify', summarise }))
    .handler(async (event, context, options) => {
      beginInvocation(deps, context, options, SLACK_STOP_MARGIN_MS);
      return notify(snsRecordsOf(event).map(deliveryOf), { remainingTimeMs: () => context.getRemainingTimeInMillis() });
    });
}

function deliveryOf(record: SnsRecordEnvelope): SlackDelivery {
  const { subject, ...rest } = record;
  return subject === undefined ? rest : { ...rest, subject };
}

function summarise(response: unknown): Record<string, unknown> {
  const result = response as NotifySlackResult | undefined;
  return result ? { posted: result.posted, attempts: result.attempts } : {};
}
