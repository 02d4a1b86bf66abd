/** `slack-notify` posting nowhere: the poster keeps each Block Kit payload it would have sent, and Slack answers 200. */
import type { SNSEvent } from 'aws-lambda';
import { readSlackConfig } from '../../src/config.ts';
import { createSlackNotifyHandler } from '../../src/service/handlers/slack-notify.ts';
import { PLACEHOLDER_ENV, deployedHooks, type LocalFunction, type LocalSetup } from './local.ts';
import { slackEffectiveConfiguration } from '../../src/service/compose/effective-config.ts';

/** Never fetched: the poster below does not post. */
const FAKE_WEBHOOK_URL = 'https://hooks.slack.com/services/T00000000/B00000000/local-invoke-posts-nowhere';

export async function localSlackNotify(setup: LocalSetup): Promise<LocalFunction> {
  const config = readSlackConfig(PLACEHOLDER_ENV);
  const payloads: unknown[] = [];
  const handler = createSlackNotifyHandler({
    webhookUrl: { webhookUrl: async () => FAKE_WEBHOOK_URL },
    poster: {
      post: async (_url, body) => {
        payloads.push(JSON.parse(body));
        return { status: 200, body: 'ok' };
      },
    },
    clock: setup.clock,
    logger: setup.logger,
    ...deployedHooks(setup, slackEffectiveConfiguration(config, setup.logging)),
    maxAttempts: config.maxAttempts,
  });
  return {
    invoke: (event, context) => handler(event as SNSEvent, context),
    outputs: () => ({ slack: payloads, notes: ['nothing was posted: slack lists the payloads the webhook would have received'] }),
    close: async () => undefined,
  };
}
