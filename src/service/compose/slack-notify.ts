/**
 * Composition root of `slack-notify`: the client of the one store holding the webhook URL (SSM or
 * Secrets Manager) and the fetch-based poster. Built once per cold start; nothing of Kubernetes,
 * EC2, EKS or IAM is loaded.
 */
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SSMClient } from '@aws-sdk/client-ssm';
import { SecretsManagerWebhookUrl, SsmParameterWebhookUrl } from '../../adapters/aws/webhook-url.ts';
import { FetchWebhookPoster } from '../../adapters/http/webhook-poster.ts';
import type { SlackConfig } from '../../config.ts';
import { SYSTEM_CLOCK } from '../../ports/clock.ts';
import type { WebhookUrlSource } from '../../ports/notify.ts';
import type { SlackNotifyDependencies } from '../handlers/slack-notify.ts';
import { jsonLogger } from '../../support/logger.ts';
import { sdkClientConfig } from '../../adapters/aws/sdk-config.ts';

export function composeSlackNotify(config: SlackConfig): SlackNotifyDependencies {
  return {
    webhookUrl: webhookUrlSource(config),
    poster: new FetchWebhookPoster(),
    clock: SYSTEM_CLOCK,
    logger: jsonLogger(),
    maxAttempts: config.maxAttempts,
  };
}

function webhookUrlSource(config: SlackConfig): WebhookUrlSource {
  const sdk = sdkClientConfig({ region: config.region, maxAttempts: 3, requestTimeoutMs: 10_000 });
  // Only the client of the configured store is created (both modules are small next to the SDK core).
  return config.webhook.kind === 'ssm-parameter'
    ? new SsmParameterWebhookUrl(new SSMClient(sdk), config.webhook.name)
    : new SecretsManagerWebhookUrl(new SecretsManagerClient(sdk), config.webhook.secretId);
}
