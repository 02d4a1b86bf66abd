/** The duplicate and surge paths over the real state-table adapter, on DynamoDB's API (dynalite, 127.0.0.1). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoStateStore } from '../../src/adapters/aws/dynamodb-state.ts';
import { startLocalDynamo, type LocalDynamo } from '../support/dynalite.ts';
import { batchOf, harness, variant } from './interruptions-support.ts';

let dynamo: LocalDynamo;

beforeAll(async () => {
  dynamo = await startLocalDynamo();
});

afterAll(async () => {
  await dynamo.close();
});

const spotBatch = (...instanceIds: string[]) =>
  batchOf(...instanceIds.map((instanceId) => variant('spot-interruption', { eventId: `evt-${instanceId}`, instanceId })));

describe('interruptions over the DynamoDB state table', () => {
  it('counts and alerts a duplicate delivery once, within a batch and across invocations', async () => {
    const h = harness({ state: new DynamoStateStore(dynamo.client, await dynamo.createStateTable()) });
    await h.saveStatus('prod-eu', 'unavailable');

    const first = await h.invokeSample('duplicate');
    const again = await h.invokeSample('duplicate');

    expect(first.batchItemFailures).toEqual([]);
    expect(again.batchItemFailures).toEqual([]);
    expect(h.metrics.datums.map((d) => [d.dimensions.Cluster, d.dimensions.NodePool, d.dimensions.Kind, d.value])).toEqual([
      ['prod-eu', 'spot-general', 'SpotInterruption', 1],
    ]);
    expect(h.alerts.published.map((a) => a.code)).toEqual(['INTERRUPTION_UNATTENDED']);
  });

  it('alerts a surge exactly once as the window counter crosses the threshold, and not for a redelivered batch', async () => {
    const h = harness({
      state: new DynamoStateStore(dynamo.client, await dynamo.createStateTable()),
      settings: { surgeThreshold: 3 },
    });

    await h.invoke(spotBatch('i-0d1c2b3a495867f70', 'i-06f5e4d3c2b1a0918'));
    expect(h.alerts.published).toEqual([]);
    await h.invoke(spotBatch('i-0a9b8c7d6e5f40312', 'i-03c4d5e6f7a8b9c0d'));
    await h.invoke(spotBatch('i-0a9b8c7d6e5f40312', 'i-03c4d5e6f7a8b9c0d'));
    await h.invoke(spotBatch('i-0c5e8f1a2b3d4e5f6'));

    expect(h.alerts.published.map((a) => a.title)).toEqual([
      'Interruption surge: 4 interruptions of NodePool spot-general within 10m',
    ]);
    expect(h.metrics.datums.map((d) => d.value)).toEqual([2, 2, 1]);
  });

  it('releases the claims of a batch whose DescribeInstances failed, so the retry is processed', async () => {
    const h = harness({ state: new DynamoStateStore(dynamo.client, await dynamo.createStateTable()) });
    h.aws.faults.fail('DescribeInstances', { error: { code: 'RequestLimitExceeded' } });

    const failed = await h.invokeSample('spot-interruption');
    const retried = await h.invokeSample('spot-interruption');

    expect(failed.batchItemFailures).toHaveLength(1);
    expect(retried.batchItemFailures).toEqual([]);
    expect(h.metrics.datums).toHaveLength(1);
  });
});
