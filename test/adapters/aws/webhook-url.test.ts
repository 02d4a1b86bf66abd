import { GetSecretValueCommand, ResourceNotFoundException, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { GetParameterCommand, ParameterNotFound, SSMClient } from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { SecretsManagerWebhookUrl, SsmParameterWebhookUrl, WebhookUrlError } from '../../../src/adapters/aws/webhook-url.ts';
import { SourceError } from '../../../src/ports/errors.ts';

const OFFLINE = { region: 'us-east-1', credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'not-a-secret' } };
const ssmClient = new SSMClient(OFFLINE);
const secretsClient = new SecretsManagerClient(OFFLINE);
const ssm = mockClient(ssmClient);
const secrets = mockClient(secretsClient);
afterEach(() => {
  ssm.reset();
  secrets.reset();
});

const URL_VALUE = 'https://hooks.slack.com/services/T0EXAMPLE/B0EXAMPLE/s3cr3tT0k3nXYZ';
const PARAMETER = '/karpenter-sentinel/slack-webhook-url';
const SECRET = 'karpenter-sentinel/slack-webhook';

async function failure(read: () => Promise<unknown>): Promise<Error> {
  const error = await read().then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof Error)) throw new Error('expected a rejection');
  return error;
}

describe('SsmParameterWebhookUrl', () => {
  it('reads the SecureString decrypted', async () => {
    // Prepare
    ssm
      .on(GetParameterCommand, { Name: PARAMETER, WithDecryption: true })
      .resolves({ Parameter: { Name: PARAMETER, Type: 'SecureString', Value: `${URL_VALUE}\n` } });

    // Act
    const url = await new SsmParameterWebhookUrl(ssmClient, PARAMETER).webhookUrl();

    // Assess
    expect(url).toBe(URL_VALUE);
    expect(ssm.commandCalls(GetParameterCommand)).toHaveLength(1);
    expect(ssm.commandCalls(GetParameterCommand)[0]?.args[0].input).toEqual({ Name: PARAMETER, WithDecryption: true });
  });

  it.each([
    ['not a URL', 'T0EXAMPLE/B0EXAMPLE/s3cr3tT0k3nXYZ'],
    ['plain http', 'http://hooks.slack.com/services/T0EXAMPLE/B0EXAMPLE/s3cr3tT0k3nXYZ'],
    ['a placeholder with spaces', 'https://hooks.slack.com/services/ s3cr3tT0k3nXYZ'],
  ])('rejects %s naming the parameter, never the value', async (_case, value) => {
    // Prepare
    ssm.on(GetParameterCommand).resolves({ Parameter: { Name: PARAMETER, Type: 'SecureString', Value: value } });

    // Act
    const error = await failure(() => new SsmParameterWebhookUrl(ssmClient, PARAMETER).webhookUrl());

    // Assess
    expect(error).toBeInstanceOf(WebhookUrlError);
    expect(error.message).toBe(
      `SSM parameter ${PARAMETER} does not hold an https URL (expected https://hooks.slack.com/services/...)`,
    );
    expect(error.message).not.toContain('s3cr3t');
  });

  it('says when the parameter is empty', async () => {
    // Prepare
    ssm.on(GetParameterCommand).resolves({ Parameter: { Name: PARAMETER, Type: 'SecureString', Value: ' ' } });

    // Act
    const error = await failure(() => new SsmParameterWebhookUrl(ssmClient, PARAMETER).webhookUrl());

    // Assess
    expect(error.message).toBe(`SSM parameter ${PARAMETER} is empty (it should hold the Slack incoming-webhook URL)`);
  });

  it('turns a missing parameter into a one-line SourceError naming it', async () => {
    // Prepare
    ssm.on(GetParameterCommand).rejects(new ParameterNotFound({ message: '', $metadata: { httpStatusCode: 400 } }));

    // Act
    const error = await failure(() => new SsmParameterWebhookUrl(ssmClient, PARAMETER).webhookUrl());

    // Assess
    expect(error).toBeInstanceOf(SourceError);
    expect(error.message).toMatch(new RegExp(`^GetParameter ${PARAMETER} failed: ParameterNotFound`));
    expect(error.message).not.toContain('\n');
  });
});

describe('SecretsManagerWebhookUrl', () => {
  it('reads a SecretString that is the URL itself', async () => {
    // Prepare
    secrets.on(GetSecretValueCommand, { SecretId: SECRET }).resolves({ Name: SECRET, SecretString: URL_VALUE });

    // Act
    const url = await new SecretsManagerWebhookUrl(secretsClient, SECRET).webhookUrl();

    // Assess
    expect(url).toBe(URL_VALUE);
  });

  it.each([
    ['url', { url: URL_VALUE }],
    ['webhookUrl', { webhookUrl: URL_VALUE, channel: '#karpenter-alerts' }],
  ])('reads the %s field of a JSON SecretString', async (_field, secret) => {
    // Prepare
    secrets.on(GetSecretValueCommand, { SecretId: SECRET }).resolves({ Name: SECRET, SecretString: JSON.stringify(secret) });

    // Act
    const url = await new SecretsManagerWebhookUrl(secretsClient, SECRET).webhookUrl();

    // Assess
    expect(url).toBe(URL_VALUE);
  });

  it.each([
    ['JSON without a url field', JSON.stringify({ token: 's3cr3tT0k3nXYZ' }), 'is JSON without a url or webhookUrl field'],
    ['a JSON url that is not https', JSON.stringify({ url: 'hooks.slack.com/s3cr3tT0k3nXYZ' }), 'does not hold an https URL'],
    ['broken JSON', '{"url": "https://hooks.slack.com/services/s3cr3tT0k3nXYZ"', 'is neither an https URL nor valid JSON'],
    ['text that is not a URL', 's3cr3tT0k3nXYZ', 'does not hold an https URL'],
  ])('rejects %s naming the secret, never the value', async (_case, secretString, problem) => {
    // Prepare
    secrets.on(GetSecretValueCommand).resolves({ Name: SECRET, SecretString: secretString });

    // Act
    const error = await failure(() => new SecretsManagerWebhookUrl(secretsClient, SECRET).webhookUrl());

    // Assess
    expect(error).toBeInstanceOf(WebhookUrlError);
    expect(error.message).toContain(`secret ${SECRET} ${problem}`);
    expect(error.message).not.toContain('s3cr3t');
  });

  it('rejects a binary secret', async () => {
    // Prepare
    secrets.on(GetSecretValueCommand).resolves({ Name: SECRET, SecretBinary: new Uint8Array([1, 2, 3]) });

    // Act
    const error = await failure(() => new SecretsManagerWebhookUrl(secretsClient, SECRET).webhookUrl());

    // Assess
    expect(error.message).toBe(`secret ${SECRET} has no SecretString (the webhook URL)`);
  });

  it('turns a missing secret into a one-line SourceError naming it', async () => {
    // Prepare
    secrets
      .on(GetSecretValueCommand)
      .rejects(new ResourceNotFoundException({ message: "Secrets Manager can't find the specified secret.", $metadata: {} }));

    // Act
    const error = await failure(() => new SecretsManagerWebhookUrl(secretsClient, SECRET).webhookUrl());

    // Assess
    expect(error).toBeInstanceOf(SourceError);
    expect(error.message).toBe(
      `GetSecretValue ${SECRET} failed: ResourceNotFoundException: Secrets Manager can't find the specified secret.`,
    );
  });
});
