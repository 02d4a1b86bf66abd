/**
 * The Slack incoming-webhook URL, from SSM Parameter Store (a SecureString, decrypted on read) or
 * Secrets Manager (the SecretString is the URL itself, or JSON with a `url` or `webhookUrl` field).
 *
 * Any https URL is accepted, not only hooks.slack.com: Slack's GovSlack hooks, Workflow Builder
 * triggers and egress proxies use other hosts. Errors name the parameter or secret, never its value.
 */
import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { GetParameterCommand, type SSMClient } from '@aws-sdk/client-ssm';
import { SentinelError } from '../../domain/errors.ts';
import type { WebhookUrlSource } from '../../ports/notify.ts';
import { isRecord } from '../../domain/shape.ts';
import { awsCall } from './errors.ts';

/** The stored value is missing or not an https URL; the message names where it was read from. */
export class WebhookUrlError extends SentinelError {}

export class SsmParameterWebhookUrl implements WebhookUrlSource {
  readonly #client: SSMClient;
  readonly #name: string;

  constructor(client: SSMClient, name: string) {
    this.#client = client;
    this.#name = name;
  }

  async webhookUrl(): Promise<string> {
    const output = await awsCall(`GetParameter ${this.#name}`, () =>
      this.#client.send(new GetParameterCommand({ Name: this.#name, WithDecryption: true })),
    );
    return httpsUrlIn(output.Parameter?.Value, `SSM parameter ${this.#name}`);
  }
}

export class SecretsManagerWebhookUrl implements WebhookUrlSource {
  readonly #client: SecretsManagerClient;
  readonly #secretId: string;

  constructor(client: SecretsManagerClient, secretId: string) {
    this.#client = client;
    this.#secretId = secretId;
  }

  async webhookUrl(): Promise<string> {
    const where = `secret ${this.#secretId}`;
    const output = await awsCall(`GetSecretValue ${this.#secretId}`, () =>
      this.#client.send(new GetSecretValueCommand({ SecretId: this.#secretId })),
    );
    const value = output.SecretString?.trim();
    if (value === undefined || value === '') throw new WebhookUrlError(`${where} has no SecretString (the webhook URL)`);
    return httpsUrlIn(value.startsWith('{') ? urlFieldOf(value, where) : value, where);
  }
}

const URL_FIELDS = ['url', 'webhookUrl'] as const;

function urlFieldOf(json: string, where: string): string {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    // JSON.parse's message quotes the text: it must not reach a log.
    throw new WebhookUrlError(`${where} is neither an https URL nor valid JSON`);
  }
  const field = isRecord(value) ? URL_FIELDS.map((k) => value[k]).find((v) => typeof v === 'string') : undefined;
  if (typeof field !== 'string') throw new WebhookUrlError(`${where} is JSON without a ${URL_FIELDS.join(' or ')} field`);
  return field;
}

function httpsUrlIn(value: string | undefined, where: string): string {
  const text = value?.trim() ?? '';
  if (text === '') throw new WebhookUrlError(`${where} is empty (it should hold the Slack incoming-webhook URL)`);
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (url?.protocol !== 'https:' || url.hostname === '' || /\s/.test(text))
    throw new WebhookUrlError(`${where} does not hold an https URL (expected https://hooks.slack.com/services/...)`);
  return text;
}
