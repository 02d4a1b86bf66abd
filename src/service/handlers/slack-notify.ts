import {
  slackNotifier,
  type NotifySlackDependencies,
  type NotifySlackResult,
  type SlackDelivery,
} from '../../usecases/notify-slack.ts';
import { snsRecordsOf, type SnsRecordEnvelope } from '../event-shape.ts';
import type { ServiceHooks } from '../middleware.ts';
import { serviceHandler } from '../service-handler.ts';

export type SlackNotifyDependencies = NotifySlackDependencies & ServiceHooks;

/** The webhook POST and the URL read are aborted this long before Lambda's deadline (the event is then retried). */
const SLACK_STOP_MARGIN_MS = 2_000;

/**
 * SNS alert topic → Slack. Invoked asynchronously: a rejection makes Lambda retry the event and
 * then send it to the on-failure DLQ, which is how an unposted message is kept.
 */
export function createSlackNotifyHandler(deps: SlackNotifyDependencies) {
  const notify = slackNotifier(deps);
  return serviceHandler(deps, {
    name: 'slack-notify',
    stopMarginMs: SLACK_STOP_MARGIN_MS,
    parse: (event) => snsRecordsOf(event).map(deliveryOf),
    run: (deliveries, { context }) => notify(deliveries, { remainingTimeMs: () => context.getRemainingTimeInMillis() }),
    summarise: (result: NotifySlackResult | undefined) => (result ? { posted: result.posted, attempts: result.attempts } : {}),
  });
}

function deliveryOf(record: SnsRecordEnvelope): SlackDelivery {
  const { subject, ...rest } = record;
  return subject === undefined ? rest : { ...rest, subject };
}
