import { PublishBatchCommand, SNSClient, SNSServiceException, type PublishBatchCommandInput } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { SnsAlertPublisher, subjectOf } from '../../../src/adapters/aws/sns.ts';
import type { Alert } from '../../../src/domain/alert.ts';
import { SourceError } from '../../../src/ports/errors.ts';

const TOPIC = 'arn:aws:sns:eu-west-1:069057294951:karpenter-sentinel-alerts';
const client = new SNSClient({
  region: 'eu-west-1',
  credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'not-a-secret' },
});
const sns = mockClient(client);
afterEach(() => sns.reset());

function alert(n: number, overrides: Partial<Alert> = {}): Alert {
  return {
    event: 'opened',
    severity: 'warning',
    cluster: 'prod',
    code: 'ORPHANED_INSTANCE',
    title: `Instance i-0a3f1c9e8b7d6a5${String(n).padStart(2, '0')} (NodePool default) is running with no NodeClaim`,
    description: '**Cause:** `CONTROLLER_UNAVAILABLE`: no Karpenter controller is running',
    nextSteps: [`aws ec2 terminate-instances --instance-ids i-0a3f1c9e8b7d6a5${String(n).padStart(2, '0')}`],
    threadId: `finding-${n}`,
    ...overrides,
  };
}

const inputs = (): PublishBatchCommandInput[] => sns.commandCalls(PublishBatchCommand).map((c) => c.args[0].input);

function snsError(code: string, message: string): SNSServiceException {
  return new SNSServiceException({ name: code, $fault: 'client', $metadata: { httpStatusCode: 403 }, message });
}

describe('SnsAlertPublisher', () => {
  it('publishes each alert as the chat custom notification, with attributes and a subject', async () => {
    // Prepare
    sns.on(PublishBatchCommand).resolves({ Successful: [{ Id: 'alert-0', MessageId: 'm-1' }], Failed: [] });
    const a = alert(1, {
      severity: 'critical',
      code: 'KARPENTER_CONTROLLER_PENDING',
      title: 'Karpenter controller karpenter/karpenter Pending',
    });

    // Act
    await new SnsAlertPublisher(client, TOPIC).publish([a]);

    // Assess
    const [input] = inputs();
    expect(input?.TopicArn).toBe(TOPIC);
    const [entry] = input?.PublishBatchRequestEntries ?? [];
    const message = JSON.parse(entry?.Message ?? '{}');
    expect(message).toMatchObject({
      version: '1.0',
      source: 'custom',
      content: {
        textType: 'client-markdown',
        title: '[critical] prod: Karpenter controller karpenter/karpenter Pending',
        description: a.description,
        nextSteps: ['`aws ec2 terminate-instances --instance-ids i-0a3f1c9e8b7d6a501`'],
      },
      metadata: { threadId: 'prod/finding-1', eventType: 'opened' },
    });
    expect(entry?.MessageAttributes).toEqual({
      severity: { DataType: 'String', StringValue: 'critical' },
      cluster: { DataType: 'String', StringValue: 'prod' },
      code: { DataType: 'String', StringValue: 'KARPENTER_CONTROLLER_PENDING' },
      event: { DataType: 'String', StringValue: 'opened' },
    });
    expect(entry?.Subject).toBe('[critical] prod: Karpenter controller karpenter/karpenter Pending');
    expect(entry?.Id).toMatch(/^[A-Za-z0-9_-]{1,80}$/);
  });

  it('sends 12 alerts in two calls of 10 and 2, in order, with ids unique per call', async () => {
    sns.on(PublishBatchCommand).resolves({ Failed: [] });
    const alerts = Array.from({ length: 12 }, (_, i) => alert(i));

    await new SnsAlertPublisher(client, TOPIC).publish(alerts);

    const calls = inputs();
    expect(calls.map((c) => c.PublishBatchRequestEntries?.length)).toEqual([10, 2]);
    const threads = calls
      .flatMap((c) => c.PublishBatchRequestEntries ?? [])
      .map((e) => JSON.parse(e.Message ?? '{}').metadata.threadId);
    expect(threads).toEqual(alerts.map((a) => `prod/${a.threadId}`));
    for (const c of calls) {
      const ids = (c.PublishBatchRequestEntries ?? []).map((e) => e.Id);
      expect(new Set(ids).size).toBe(ids.length);
    }
  });

  it('makes no call for no alerts', async () => {
    await new SnsAlertPublisher(client, TOPIC).publish([]);

    expect(inputs()).toEqual([]);
  });

  it('splits batches that would exceed 256 KiB together', async () => {
    sns.on(PublishBatchCommand).resolves({ Failed: [] });
    // ~31 KB each in UTF-8 (3-byte characters): 10 of them are well over 256 KiB
    const big = Array.from({ length: 10 }, (_, i) => alert(i, { description: '€'.repeat(7900), nextSteps: ['✓'.repeat(2400)] }));

    await new SnsAlertPublisher(client, TOPIC).publish(big);

    const calls = inputs();
    expect(calls.length).toBeGreaterThan(1);
    expect(calls.flatMap((c) => c.PublishBatchRequestEntries ?? [])).toHaveLength(10);
    for (const c of calls) {
      const bytes = (c.PublishBatchRequestEntries ?? []).reduce((n, e) => n + Buffer.byteLength(e.Message ?? ''), 0);
      expect(bytes).toBeLessThanOrEqual(256 * 1024);
    }
  });

  it('rejects naming how many alerts failed and the first error code, after trying every batch', async () => {
    // Prepare
    sns
      .on(PublishBatchCommand)
      .resolvesOnce({
        Successful: [],
        Failed: [
          { Id: 'alert-3', Code: 'KMSAccessDenied', Message: 'KMS key access denied', SenderFault: true },
          { Id: 'alert-7', Code: 'KMSAccessDenied', Message: 'KMS key access denied', SenderFault: true },
        ],
      })
      .resolvesOnce({ Failed: [] });
    const alerts = Array.from({ length: 12 }, (_, i) => alert(i));

    // Act
    const published = new SnsAlertPublisher(client, TOPIC).publish(alerts);

    // Assess
    await expect(published).rejects.toBeInstanceOf(SourceError);
    await expect(published).rejects.toMatchObject({
      code: 'KMSAccessDenied',
      message: 'PublishBatch failed for 2 of 12 alerts: first KMSAccessDenied: KMS key access denied',
    });
    expect(inputs()).toHaveLength(2);
  });

  it('rejects when the call itself fails, counting its whole batch', async () => {
    sns
      .on(PublishBatchCommand)
      .rejectsOnce(snsError('AuthorizationError', 'User is not authorized to perform: SNS:Publish on resource: ' + TOPIC))
      .resolvesOnce({ Failed: [] });
    const alerts = Array.from({ length: 12 }, (_, i) => alert(i));

    const published = new SnsAlertPublisher(client, TOPIC).publish(alerts);

    await expect(published).rejects.toMatchObject({ code: 'AuthorizationError' });
    await expect(published).rejects.toThrow(/^PublishBatch failed for 10 of 12 alerts: first AuthorizationError: .*SNS:Publish/);
    expect(inputs()).toHaveLength(2);
  });
});

describe('subjectOf', () => {
  it('is printable ASCII, one line, at most 100 characters', () => {
    const subject = subjectOf(
      alert(1, { title: `Café — nodepool “spot” ✓ is stuck…\nsecond line ${'x'.repeat(200)}`, cluster: 'prod-eu' }),
    );

    expect(subject).toMatch(/^[\x20-\x7e]{1,100}$/);
    expect(subject.startsWith('[warning] prod-eu: Cafe - nodepool ?spot? ? is stuck... second line')).toBe(true);
    expect(subject).toHaveLength(100);
  });
});
