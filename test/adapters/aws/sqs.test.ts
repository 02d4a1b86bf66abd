import { SendMessageBatchCommand, SQSClient, type SendMessageBatchCommandInput } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { SqsScanQueue } from '../../../src/adapters/aws/sqs.ts';
import { SourceError } from '../../../src/ports/errors.ts';
import type { ScanRequest } from '../../../src/ports/notify.ts';

const client = new SQSClient({ region: 'us-east-1', credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'x' } });
const sqs = mockClient(client);
afterEach(() => sqs.reset());

const QUEUE_URL = 'https://sqs.us-east-1.amazonaws.com/111122223333/karpenter-sentinel-scan';
const TICK = '2026-03-02T10:00:00Z';
const requestsFor = (count: number): ScanRequest[] =>
  Array.from({ length: count }, (_, i) => ({ cluster: `cluster-${String(i).padStart(2, '0')}`, requestedAt: TICK }));
const inputs = () => sqs.commandCalls(SendMessageBatchCommand).map((call) => call.args[0].input);
const allSuccessful = (input: SendMessageBatchCommandInput) => ({
  Successful: (input.Entries ?? []).map((e) => ({ Id: e.Id, MessageId: `msg-${e.Id}`, MD5OfMessageBody: 'x' })),
  Failed: [],
});

describe('SqsScanQueue', () => {
  it('sends one message per cluster, 10 per SendMessageBatch call: 23 requests → 3 calls', async () => {
    // Prepare
    sqs.on(SendMessageBatchCommand).callsFake(allSuccessful);
    const requests = requestsFor(23);

    // Act
    await new SqsScanQueue(client, QUEUE_URL).send(requests);

    // Assess
    expect(inputs().map((input) => [input.QueueUrl, input.Entries?.length])).toEqual([
      [QUEUE_URL, 10],
      [QUEUE_URL, 10],
      [QUEUE_URL, 3],
    ]);
    const entries = inputs().flatMap((input) => input.Entries ?? []);
    expect(entries.map((e) => JSON.parse(e.MessageBody ?? ''))).toEqual(requests);
    expect(inputs()[2]?.Entries).toEqual([
      { Id: '0', MessageBody: JSON.stringify({ cluster: 'cluster-20', requestedAt: TICK }) },
      { Id: '1', MessageBody: JSON.stringify({ cluster: 'cluster-21', requestedAt: TICK }) },
      { Id: '2', MessageBody: JSON.stringify({ cluster: 'cluster-22', requestedAt: TICK }) },
    ]);
  });

  it('makes no call for no requests', async () => {
    // Act
    await new SqsScanQueue(client, QUEUE_URL).send([]);

    // Assess
    expect(inputs()).toEqual([]);
  });

  it('rejects naming the clusters whose messages were refused and their codes, after every batch was tried', async () => {
    // Prepare
    sqs.on(SendMessageBatchCommand).callsFake((input: SendMessageBatchCommandInput) =>
      input.Entries?.[0]?.MessageBody?.includes('cluster-00')
        ? {
            ...allSuccessful(input),
            Failed: [{ Id: '4', Code: 'InternalError', SenderFault: false, Message: 'internal error' }],
          }
        : allSuccessful(input),
    );

    // Act
    const sending = new SqsScanQueue(client, QUEUE_URL).send(requestsFor(23));

    // Assess
    await expect(sending).rejects.toThrow(SourceError);
    await expect(sending).rejects.toThrow('SendMessageBatch failed for 1 of 23 scan requests: cluster-04 (InternalError)');
    expect(inputs()).toHaveLength(3);
  });

  it('counts a whole batch call that failed as all its clusters not queued, and says why', async () => {
    // Prepare
    sqs.on(SendMessageBatchCommand).callsFake((input: SendMessageBatchCommandInput) => {
      if (input.Entries?.[0]?.MessageBody?.includes('cluster-10')) {
        throw Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
      }
      return allSuccessful(input);
    });

    // Act
    const failure = await new SqsScanQueue(client, QUEUE_URL).send(requestsFor(12)).catch((e: unknown) => e);

    // Assess
    expect(failure).toBeInstanceOf(SourceError);
    expect((failure as SourceError).message).toBe(
      'SendMessageBatch failed for 2 of 12 scan requests: cluster-10 (ThrottlingException), cluster-11 (ThrottlingException); ' +
        'ThrottlingException: Rate exceeded',
    );
    expect((failure as SourceError).code).toBe('ThrottlingException');
  });
});
