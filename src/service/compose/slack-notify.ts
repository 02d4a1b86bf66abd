/**
 * Composition root of `slack-notify`: the client of the one store holding the webhook URL (SSM or
 * Secrets Manager) and the fetch-based poster. Built once per cold start; nothing of Kubernetes,
 * EC2, EKS or IAM is loaded.
 */
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SSMClient } from '@aws-sdk/client-ssm';
import { SecretsManagerWebhookUrl, SsmParameterWebhookUrl } from '../../adapters/aws/webhook-url.ts';
import { FetchWebhookPoster } from '../../adapters/http/webhook-poster.ts';
import type { LoggingConfig, SlackConfig } from '../../config.ts';
import { SYSTEM_CLOCK } from '../../ports/clock.ts';
import type { WebhookUrlSource } from '../../ports/notify.ts';
import { InvocationSignal, type SignalSource } from '../../support/abort.ts';
import type { SlackNotifyDependencies } from '../handlers/slack-notify.ts';
import { powertoolsLogging } from '../powertools-logger.ts';
import { abortable, sdkClientConfig } from '../../adapters/calls/sdk-config.ts';
import { slackEffectiveConfiguration } from './effective-config.ts';

export function composeSlackNotify(config: SlackConfig, logging: LoggingConfig): SlackNotifyDependencies {
  const invocationSignal = new InvocationSignal();
  const { logger, context } = powertoolsLogging(logging);
  return {
    webhookUrl: webhookUrlSource(config, invocationSignal.current),
    poster: new FetchWebhookPoster({ signal: invocationSignal.current }),
    clock: SYSTEM_CLOCK,
    logger,
    maxAttempts: config.maxAttempts,
    logContext: context,
    effectiveConfiguration: slackEffectiveConfiguration(config, logging),
    invocationSignal,
  };
}

function webhookUrlSource(config: SlackConfig, signal: SignalSource): WebhookUrlSource {
  const sdk = sdkClientConfig({ region: config.region, maxAttempts: 3, requestTimeoutMs: 10_000 });
  // Only the client of the configured store is created (both modules are small next to the SDK core).
  return config.webhook.kind === 'ssm-parameter'
    ? new SsmParameterWebhookUrl(abortable(new SSMClient(sdk), signal), config.webhook.name)
    : new SecretsManagerWebhookUrl(abortable(new SecretsManagerClient(sdk), signal), config.webhook.secretId);
}
