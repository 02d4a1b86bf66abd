import middy from '@middy/core';
import type { SNSEvent, SNSEventRecord } from 'aws-lambda';
import {
  slackNotifier,
  type NotifySlackDependencies,
  type NotifySlackResult,
  type SlackDelivery,
} from '../../usecases/notify-slack.ts';
import { invocationLog } from '../middleware.ts';

export type SlackNotifyDependencies = NotifySlackDependencies;

/**
 * SNS alert topic → Slack. Invoked asynchronously: a rejection makes Lambda retry the event and
 * then send it to the on-failure DLQ, which is how an unposted message is kept.
 */
export function createSlackNotifyHandler(deps: SlackNotifyDependencies) {
  const notify = slackNotifier(deps);
  return middy<SNSEvent, NotifySlackResult>()
    .use(invocationLog({ logger: deps.logger, functionName: 'slack-notify', summarise }))
    .handler(async (event, context) =>
      notify((event.Records ?? []).map(deliveryOf), { remainingTimeMs: () => context.getRemainingTimeInMillis() }),
    );
}

function deliveryOf({ Sns: sns }: SNSEventRecord): SlackDelivery {
  const attributes = Object.fromEntries(Object.entries(sns.MessageAttributes ?? {}).map(([name, a]) => [name, a.Value]));
  return { messageId: sns.MessageId, message: sns.Message ?? '', subject: sns.Subject ?? undefined, attributes };
}

function summarise(response: unknown): Record<string, unknown> {
  const result = response as NotifySlackResult | undefined;
  return result ? { posted: result.posted, attempts: result.attempts } : {};
}
