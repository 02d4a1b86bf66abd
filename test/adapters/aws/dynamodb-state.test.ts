/**
 * The state store contract: one suite, run against the in-memory store and against the DynamoDB
 * adapter over dynalite (a real DynamoDB API on 127.0.0.1), so local runs and the deployed service
 * agree. Then what only the DynamoDB side has: TTL on every item, typed errors, the one-call claim
 * refusal and BatchGetItem's unprocessed keys.
 */
import {
  BatchGetItemCommand,
  ConditionalCheckFailedException,
  DeleteItemCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  ScanCommand,
  type AttributeValue,
} from '@aws-sdk/client-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoStateStore } from '../../../src/adapters/aws/dynamodb-state.ts';
import { OPEN_ALERT_TTL_MS, OUTBOX_TTL_MS } from '../../../src/adapters/aws/state-items.ts';
import { BATCH_GET_ATTEMPTS } from '../../../src/adapters/aws/state-requests.ts';
import { InMemoryStateStore } from '../../../src/adapters/memory/state.ts';
import { SourceError } from '../../../src/ports/errors.ts';
import { newFinding, proposedAction, type Finding } from '../../../src/domain/finding.ts';
import type {
  ClusterRecordsSummary,
  ClusterStatus,
  OpenAlert,
  OutboxEntry,
  RemediationCooldown,
  StateStore,
} from '../../../src/ports/state.ts';
import { steppingClock } from '../../support/clock.ts';
import { startLocalDynamo, type LocalDynamo } from '../../support/dynalite.ts';

let dynamo: LocalDynamo;
beforeAll(async () => {
  dynamo = await startLocalDynamo();
});
afterAll(async () => {
  await dynamo.close();
});

const NOW = new Date('2026-03-02T10:00:00Z');
const MINUTE = 60_000;
const at = (offsetMs: number) => new Date(NOW.getTime() + offsetMs);
const iso = (offsetMs: number) => at(offsetMs).toISOString();

function openAlert(cluster: string, key: string, overrides: Partial<OpenAlert> = {}): OpenAlert {
  return {
    cluster,
    key,
    code: 'CONTROLLER_UNAVAILABLE',
    severity: 'critical',
    title: `Karpenter controller unavailable in ${cluster}`,
    firstSeen: iso(-30 * MINUTE),
    lastSent: iso(-30 * MINUTE),
    ...overrides,
  };
}

function cooldown(findingId: string, until: string, overrides: Partial<RemediationCooldown> = {}): RemediationCooldown {
  return { cluster: 'prod', findingId, action: 'ROLLOUT_RESTART', until, lastOutcome: `applied at ${iso(0)}`, ...overrides };
}

function clusterStatus(cluster: string, overrides: Partial<ClusterStatus> = {}): ClusterStatus {
  return { cluster, observedAt: iso(0), controller: 'available', readyReplicas: 2, desiredReplicas: 2, ...overrides };
}

function orphanFinding(instanceId: string): Finding {
  return newFinding({
    code: 'ORPHANED_INSTANCE',
    severity: 'warning',
    title: `Instance ${instanceId} (NodePool default) is running with no NodeClaim`,
    resource: { kind: 'Instance', id: instanceId },
    since: iso(-20 * MINUTE),
    cause: { code: 'NO_NODECLAIM', detail: 'no NodeClaim claims it' },
    evidence: [`${instanceId} m5.large running`],
    remediation: proposedAction('TERMINATE_INSTANCE', [`aws ec2 terminate-instances --instance-ids ${instanceId}`]),
  });
}

function pending(cluster: string, instanceId: string, offsetMs = 0): OutboxEntry {
  const finding = orphanFinding(instanceId);
  const recordedAt = iso(offsetMs);
  return { cluster, id: `${recordedAt}#${finding.id}#TERMINATE_INSTANCE`, recordedAt, finding };
}

const byKey = (alerts: OpenAlert[]) => [...alerts].sort((a, b) => a.key.localeCompare(b.key));

describe.each([
  { store: 'InMemoryStateStore', create: async (): Promise<StateStore> => new InMemoryStateStore() },
  {
    store: 'DynamoStateStore',
    create: async (): Promise<StateStore> => new DynamoStateStore(dynamo.client, await dynamo.createStateTable()),
  },
])('$store (state store contract)', ({ create }) => {
  describe('delivery idempotency', () => {
    it('gives a held delivery to one claimer, and a processed one is a duplicate for every later claim', async () => {
      // Prepare
      const store = await create();

      // Act
      const first = await store.claimDelivery('scan#prod#2026-03-02T10:00:00Z', NOW, 5 * MINUTE);
      const concurrent = await store.claimDelivery('scan#prod#2026-03-02T10:00:00Z', at(MINUTE), 5 * MINUTE);
      await store.completeDelivery('scan#prod#2026-03-02T10:00:00Z', at(2 * MINUTE), 24 * 60 * MINUTE);
      const duplicate = await store.claimDelivery('scan#prod#2026-03-02T10:00:00Z', at(10 * MINUTE), 5 * MINUTE);
      const other = await store.claimDelivery('scan#prod#2026-03-02T10:01:00Z', at(10 * MINUTE), 5 * MINUTE);

      // Assess
      expect([first, concurrent, duplicate, other]).toEqual(['claimed', 'in-progress', 'done', 'claimed']);
    });

    it('lets a crashed holder’s claim lapse exactly at now + holdMs, not before', async () => {
      // Prepare
      const store = await create();
      await store.claimDelivery('m-1', NOW, 5 * MINUTE);

      // Act
      const justBefore = await store.claimDelivery('m-1', at(5 * MINUTE - 1000), 5 * MINUTE);
      const atExpiry = await store.claimDelivery('m-1', at(5 * MINUTE), 5 * MINUTE);
      const afterReclaim = await store.claimDelivery('m-1', at(6 * MINUTE), 5 * MINUTE);

      // Assess
      expect(justBefore).toBe('in-progress');
      expect(atExpiry).toBe('claimed');
      expect(afterReclaim).toBe('in-progress');
    });

    it('forgets a processed delivery once its ttl passed', async () => {
      // Prepare
      const store = await create();
      await store.claimDelivery('m-1', NOW, MINUTE);
      await store.completeDelivery('m-1', NOW, 60 * MINUTE);

      // Act
      const within = await store.claimDelivery('m-1', at(60 * MINUTE - 1000), MINUTE);
      const after = await store.claimDelivery('m-1', at(60 * MINUTE), MINUTE);

      // Assess
      expect(within).toBe('done');
      expect(after).toBe('claimed');
    });

    it('lets the retry claim a delivery released after a failure', async () => {
      // Prepare
      const store = await create();
      await store.claimDelivery('m-1', NOW, 5 * MINUTE);

      // Act
      await store.releaseDelivery('m-1');
      const retry = await store.claimDelivery('m-1', at(1000), 5 * MINUTE);
      await store.releaseDelivery('never-claimed');

      // Assess
      expect(retry).toBe('claimed');
    });
  });

  describe('open alerts', () => {
    it('lists what was saved per cluster, a save replaces, a clear removes only that alert of that cluster', async () => {
      // Prepare
      const store = await create();
      const controller = openAlert('prod', 'CONTROLLER_UNAVAILABLE|Deployment/karpenter/karpenter');
      const orphan = openAlert('prod', 'ORPHANED_INSTANCE|Instance/i-0abc', { code: 'ORPHANED_INSTANCE', severity: 'warning' });
      const staging = openAlert('staging', 'CONTROLLER_UNAVAILABLE|Deployment/karpenter/karpenter');
      for (const alert of [controller, orphan, staging]) await store.saveAlert(alert);

      // Act
      const reminded = { ...controller, lastSent: iso(0) };
      await store.saveAlert(reminded);
      const beforeClear = await store.openAlerts('prod');
      await store.clearAlert('prod', orphan.key);
      await store.clearAlert('prod', 'never-opened');

      // Assess
      expect(byKey(beforeClear)).toEqual(byKey([reminded, orphan]));
      expect(await store.openAlerts('prod')).toEqual([reminded]);
      expect(await store.openAlerts('staging')).toEqual([staging]);
      expect(await store.openAlerts('dev')).toEqual([]);
    });
  });

  describe('remediation cooldowns', () => {
    it('lists only the cluster’s cooldowns still running (until > now), the latest per finding and action', async () => {
      // Prepare
      const store = await create();
      const restart = cooldown('CONTROLLER_CRASHLOOP|Deployment/karpenter/karpenter', iso(15 * MINUTE));
      const terminate = cooldown('NODECLAIM_NOT_REGISTERED|Instance/i-0abc', iso(5 * MINUTE), {
        action: 'TERMINATE_INSTANCE',
        lastOutcome: `failed at ${iso(0)}: UnauthorizedOperation`,
      });
      const ended = cooldown('CONTROLLER_CRASHLOOP|Deployment/kube-system/karpenter', iso(-1000));
      const endsNow = cooldown('CONTROLLER_OOMKILLED|Deployment/karpenter/karpenter', iso(0));
      const otherCluster = cooldown(restart.findingId, iso(15 * MINUTE), { cluster: 'staging' });
      for (const c of [cooldown(restart.findingId, iso(-MINUTE)), restart, terminate, ended, endsNow, otherCluster]) {
        await store.startCooldown(c);
      }

      // Act
      const active = await store.activeCooldowns('prod', NOW);
      const later = await store.activeCooldowns('prod', at(10 * MINUTE));

      // Assess
      expect([...active].sort((a, b) => a.until.localeCompare(b.until))).toEqual([terminate, restart]);
      expect(later).toEqual([restart]);
      expect(await store.activeCooldowns('staging', NOW)).toEqual([otherCluster]);
    });
  });

  describe('cluster statuses', () => {
    it('returns the statuses of the clusters that have one, the last saved, and none for the others', async () => {
      // Prepare
      const store = await create();
      await store.saveClusterStatus(clusterStatus('prod', { observedAt: iso(-MINUTE) }), 60 * MINUTE);
      const prod = clusterStatus('prod', { controller: 'unavailable', readyReplicas: 0 });
      await store.saveClusterStatus(prod, 60 * MINUTE);
      const auto = clusterStatus('auto', { controller: 'managed', readyReplicas: 0, desiredReplicas: 0 });
      await store.saveClusterStatus(auto, 60 * MINUTE);

      // Act
      const statuses = await store.clusterStatuses(['prod', 'never-scanned', 'auto', 'prod']);

      // Assess
      expect(Object.fromEntries(statuses)).toEqual({ prod, auto });
      expect((await store.clusterStatuses([])).size).toBe(0);
    });

    it('reads more clusters than one BatchGetItem call takes (100)', async () => {
      // Prepare
      const store = await create();
      const names = Array.from({ length: 230 }, (_, i) => `cluster-${String(i).padStart(3, '0')}`);
      const saved = names.filter((_, i) => i % 3 !== 0);
      await Promise.all(saved.map((name) => store.saveClusterStatus(clusterStatus(name), 60 * MINUTE)));

      // Act
      const statuses = await store.clusterStatuses(names);

      // Assess
      expect([...statuses.keys()].sort()).toEqual(saved);
      expect(statuses.get('cluster-229')).toEqual(clusterStatus('cluster-229'));
    });
  });

  describe('scan leases', () => {
    it('gives a cluster’s lease to one holder until it is released or lapses at now + duration; each cluster alone', async () => {
      // Prepare
      const store = await create();

      // Act
      const first = await store.acquireLease('prod', 'scan-a', NOW, 2 * MINUTE);
      const overlapping = await store.acquireLease('prod', 'scan-b', at(MINUTE), 2 * MINUTE);
      const otherCluster = await store.acquireLease('staging', 'scan-b', at(MINUTE), 2 * MINUTE);
      const justBeforeExpiry = await store.acquireLease('prod', 'scan-c', at(2 * MINUTE - 1000), 2 * MINUTE);
      const atExpiry = await store.acquireLease('prod', 'scan-c', at(2 * MINUTE), 2 * MINUTE);

      // Assess
      expect(first).toEqual({ acquired: true });
      expect(overlapping).toMatchObject({ acquired: false });
      expect(otherCluster).toEqual({ acquired: true });
      expect(justBeforeExpiry).toMatchObject({ acquired: false });
      // Taken from scan-a, whose time was up: reported, so the taker leaves no summary.
      expect(atExpiry).toEqual({ acquired: true, lapsedHolder: 'scan-a' });
    });

    it('is released only by its holder: a scan whose lease lapsed and was taken cannot free the new holder’s', async () => {
      // Prepare
      const store = await create();
      await store.acquireLease('prod', 'slow-scan', NOW, 2 * MINUTE);
      await store.acquireLease('prod', 'next-scan', at(3 * MINUTE), 2 * MINUTE);

      // Act
      await store.releaseLease('prod', 'slow-scan');
      const whileNextHolds = await store.acquireLease('prod', 'third-scan', at(3 * MINUTE + 1000), 2 * MINUTE);
      await store.releaseLease('prod', 'next-scan');
      const afterRelease = await store.acquireLease('prod', 'third-scan', at(3 * MINUTE + 2000), 2 * MINUTE);
      await store.releaseLease('never-leased', 'anyone');

      // Assess
      expect(whileNextHolds).toMatchObject({ acquired: false });
      expect(afterRelease).toEqual({ acquired: true });
    });

    it('hands the summary a holder released the lease with to the next holder, and only a completed holder’s', async () => {
      // Prepare
      const store = await create();
      const summary: ClusterRecordsSummary = {
        scannedAt: iso(0),
        openAlerts: true,
        outbox: false,
        cooldownsUntil: iso(30 * MINUTE),
        status: clusterStatus('prod'),
      };
      await store.acquireLease('prod', 'scan-a', NOW, 2 * MINUTE);
      await store.releaseLease('prod', 'scan-a', summary);

      // Act
      const next = await store.acquireLease('prod', 'scan-b', at(1000), 2 * MINUTE);
      await store.releaseLease('prod', 'scan-b');
      const afterFailedScan = await store.acquireLease('prod', 'scan-c', at(2000), 2 * MINUTE);
      const whileHeld = await store.acquireLease('prod', 'scan-d', at(3000), 2 * MINUTE);
      // scan-c is killed; its lease lapses.
      const afterCrash = await store.acquireLease('prod', 'scan-e', at(3 * MINUTE), 2 * MINUTE);
      await store.releaseLease('prod', 'scan-c', summary);
      const notTheHolders = await store.acquireLease('prod', 'scan-f', at(3 * MINUTE + 1000), 2 * MINUTE);

      // Assess
      expect(next).toEqual({ acquired: true, summary });
      expect(afterFailedScan).toEqual({ acquired: true });
      expect(whileHeld).toMatchObject({ acquired: false });
      expect(afterCrash).toEqual({ acquired: true, lapsedHolder: 'scan-c' });
      // scan-c's lease had lapsed and was taken: its summary is not written, the lease stays scan-e's.
      expect(notTheHolders).toMatchObject({ acquired: false, holder: 'scan-e' });
    });
  });

  describe('outbox', () => {
    it('lists a cluster’s undelivered entries oldest first, pending (no outcome) until one is recorded', async () => {
      // Prepare
      const store = await create();
      const later = pending('prod', 'i-0b7e2d4f6a8c9e102', MINUTE);
      const earlier = pending('prod', 'i-0a3f1c9e8b7d6a501');
      const staging = pending('staging', 'i-0c5d8a1e3f7b94263');

      // Act
      await store.recordPending([later, staging]);
      await store.recordPending([earlier]);
      const recorded = await store.recordOutcome(later, {
        ...later.finding.remediation!,
        status: 'applied',
        reason: 'now shutting-down',
      });

      // Assess
      expect(recorded).toBe(true);
      expect(await store.undelivered('prod')).toEqual([
        earlier,
        { ...later, outcome: { ...later.finding.remediation!, status: 'applied', reason: 'now shutting-down' } },
      ]);
      expect(await store.undelivered('staging')).toEqual([staging]);
      expect(await store.undelivered('dev')).toEqual([]);
    });

    it('forgets an entry whose action did nothing (skipped), and records an outcome only once', async () => {
      // Prepare
      const store = await create();
      const skipped = pending('prod', 'i-0a3f1c9e8b7d6a501');
      const failed = pending('prod', 'i-0b7e2d4f6a8c9e102');
      await store.recordPending([skipped, failed]);

      // Act
      const removed = await store.recordOutcome(skipped, {
        ...skipped.finding.remediation!,
        status: 'skipped',
        reason: 'instance no longer exists',
      });
      const first = await store.recordOutcome(failed, {
        ...failed.finding.remediation!,
        status: 'failed',
        reason: 'UnauthorizedOperation',
      });
      const second = await store.recordOutcome(failed, {
        ...failed.finding.remediation!,
        status: 'applied',
        reason: 'now shutting-down',
      });

      // Assess
      expect([removed, first, second]).toEqual([true, true, false]);
      expect((await store.undelivered('prod')).map((e) => [e.id, e.outcome?.status])).toEqual([[failed.id, 'failed']]);
    });

    it('never lists a delivered entry again, and an outcome recorded after delivery does not bring it back', async () => {
      // Prepare
      const store = await create();
      const entry = pending('prod', 'i-0a3f1c9e8b7d6a501');
      await store.recordPending([entry]);

      // Act
      const delivered = await store.markDelivered('prod', entry.id);
      const again = await store.markDelivered('prod', entry.id);
      const lateOutcome = await store.recordOutcome(entry, { ...entry.finding.remediation!, status: 'applied', reason: '' });

      // Assess
      expect([delivered, again, lateOutcome]).toEqual([true, false, false]);
      expect(await store.undelivered('prod')).toEqual([]);
    });

    it('refuses to record one entry twice', async () => {
      // Prepare
      const store = await create();
      const entry = pending('prod', 'i-0a3f1c9e8b7d6a501');
      await store.recordPending([entry]);

      // Act
      const failure = await store.recordPending([entry]).catch((e: unknown) => e);

      // Assess
      expect(failure).toBeInstanceOf(Error);
      expect(String(failure)).toContain(`outbox entry prod/${entry.id} already recorded`);
    });
  });

  describe('window counters', () => {
    it('adds atomically: 20 concurrent adds of 1 make 20, and each key counts alone', async () => {
      // Prepare
      const store = await create();
      const windowEnd = at(10 * MINUTE);

      // Act
      const totals = await Promise.all(
        Array.from({ length: 20 }, () => store.addToWindow('surge#prod#spot#1772445600', 1, windowEnd)),
      );
      const afterMore = await store.addToWindow('surge#prod#spot#1772445600', 3, windowEnd);
      const otherWindow = await store.addToWindow('surge#prod#spot#1772446200', 2, at(20 * MINUTE));

      // Assess
      expect([...totals].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      expect(afterMore).toBe(23);
      expect(otherWindow).toBe(2);
    });
  });
});

describe('DynamoStateStore (DynamoDB only)', () => {
  type Item = Record<string, AttributeValue>;
  const seconds = (date: Date | string) => Math.ceil(new Date(date).getTime() / 1000);

  it('puts the TTL attribute expiresAt (epoch seconds) on every item it writes', async () => {
    // Prepare
    const table = await dynamo.createStateTable();
    const store = new DynamoStateStore(dynamo.client, table);

    // Act
    await store.claimDelivery('m-held', NOW, 5 * MINUTE);
    await store.claimDelivery('m-done', NOW, 5 * MINUTE);
    await store.completeDelivery('m-done', NOW, 24 * 60 * MINUTE);
    await store.saveAlert(openAlert('prod', 'k1', { lastSent: iso(-MINUTE) }));
    await store.startCooldown(cooldown('f1', '2026-03-02T10:15:00.250Z'));
    await store.saveClusterStatus(clusterStatus('prod'), 10 * MINUTE);
    await store.addToWindow('w1', 1, at(10 * MINUTE));
    await store.addToWindow('w1', 1, at(30 * MINUTE));
    await store.acquireLease('prod', 'scan-a', NOW, 150_000);
    const entry = pending('prod', 'i-0a3f1c9e8b7d6a501');
    await store.recordPending([entry]);
    const { Items = [] } = await dynamo.client.send(new ScanCommand({ TableName: table }));

    // Assess
    const expiry = Object.fromEntries(Items.map((item: Item) => [`${item.pk?.S}/${item.sk?.S}`, item.expiresAt]));
    expect(expiry).toEqual({
      'IDEMPOTENCY#m-held/-': { N: String(seconds(at(5 * MINUTE))) },
      'IDEMPOTENCY#m-done/-': { N: String(seconds(at(24 * 60 * MINUTE))) },
      'ALERT#prod/k1': { N: String(seconds(new Date(Date.parse(iso(-MINUTE)) + OPEN_ALERT_TTL_MS))) },
      'COOLDOWN#prod/f1#ROLLOUT_RESTART': { N: String(seconds('2026-03-02T10:15:01Z')) },
      'STATUS#prod/-': { N: String(seconds(at(10 * MINUTE))) },
      // The window keeps the expiry of its first add.
      'WINDOW#w1/-': { N: String(seconds(at(10 * MINUTE))) },
      'LEASE#prod/-': { N: String(seconds(at(150_000))) },
      [`OUTBOX#prod/${entry.id}`]: { N: String(seconds(new Date(NOW.getTime() + OUTBOX_TTL_MS))) },
    });
  });

  it('rejects with a SourceError naming the operation when DynamoDB refuses (a missing table)', async () => {
    // Prepare
    const store = new DynamoStateStore(dynamo.client, 'no-such-table');

    // Act
    const failures = await Promise.all([
      store.claimDelivery('m-1', NOW, MINUTE).catch((e: unknown) => e),
      store.completeDelivery('m-1', NOW, MINUTE).catch((e: unknown) => e),
      store.releaseDelivery('m-1').catch((e: unknown) => e),
      store.openAlerts('prod').catch((e: unknown) => e),
      store.clusterStatuses(['prod']).catch((e: unknown) => e),
      store.addToWindow('w1', 1, NOW).catch((e: unknown) => e),
    ]);

    // Assess
    for (const failure of failures) expect(failure).toBeInstanceOf(SourceError);
    expect(failures.map((f) => (f as SourceError).message.replace(/: .*/, ''))).toEqual([
      'PutItem failed',
      'PutItem failed',
      'DeleteItem failed',
      'Query failed',
      'BatchGetItem failed',
      'UpdateItem failed',
    ]);
    expect((failures[0] as SourceError).message).toMatch(/^PutItem failed: ResourceNotFoundException: /);
    expect((failures[0] as SourceError).code).toBe('ResourceNotFoundException');
  });

  it('reads a lease item of the version before summaries as before: held until it lapses, then free, with no summary', async () => {
    // Prepare: what the older version wrote when it took the lease (it deleted the item on release).
    const table = await dynamo.createStateTable();
    await dynamo.client.send(
      new PutItemCommand({
        TableName: table,
        Item: {
          pk: { S: 'LEASE#prod' },
          sk: { S: '-' },
          holder: { S: 'old-scan' },
          expiresAt: { N: String(seconds(at(MINUTE))) },
        },
      }),
    );
    const store = new DynamoStateStore(dynamo.client, table);

    // Act
    const whileHeld = await store.acquireLease('prod', 'new-scan', NOW, 2 * MINUTE);
    const lapsed = await store.acquireLease('prod', 'new-scan', at(MINUTE), 2 * MINUTE);

    // Assess
    expect(whileHeld).toEqual({ acquired: false, holder: 'old-scan' });
    expect(lapsed).toEqual({ acquired: true, lapsedHolder: 'old-scan' });
  });

  it('a released lease is free at once for the version before summaries (a rollback), and its summary still reads after its expiresAt', async () => {
    // Prepare
    const table = await dynamo.createStateTable();
    const store = new DynamoStateStore(dynamo.client, table);
    const summary: ClusterRecordsSummary = { scannedAt: iso(0), openAlerts: true, outbox: false };
    await store.acquireLease('prod', 'scan-a', NOW, 2 * MINUTE);
    await store.releaseLease('prod', 'scan-a', summary);
    const next = await store.acquireLease('prod', 'scan-b', at(MINUTE), 2 * MINUTE);
    await store.releaseLease('prod', 'scan-b', { ...summary, scannedAt: iso(MINUTE) });
    /** The older version's acquireLease: its request as it sent it. */
    const olderVersionTakes = (holder: string, now: Date) =>
      dynamo.client
        .send(
          new PutItemCommand({
            TableName: table,
            Item: {
              pk: { S: 'LEASE#prod' },
              sk: { S: '-' },
              holder: { S: holder },
              expiresAt: { N: String(seconds(at(3 * MINUTE))) },
            },
            ConditionExpression: 'attribute_not_exists(#pk) OR #ttl <= :now',
            ExpressionAttributeNames: { '#pk': 'pk', '#ttl': 'expiresAt' },
            ExpressionAttributeValues: { ':now': { N: String(Math.floor(now.getTime() / 1000)) } },
          }),
        )
        .then(
          () => 'taken',
          (e: unknown) => (e instanceof ConditionalCheckFailedException ? 'held' : e),
        );

    // Act: the rolled-back version's next scan, in the same minute as the release.
    const rolledBack = await olderVersionTakes('old-scan', at(MINUTE + 5000));

    // Assess: scan-b read the summary after its expiresAt (scan-a's time); the older version takes the lease at once.
    expect(next).toEqual({ acquired: true, summary });
    expect(rolledBack).toBe('taken');
  });

  it('a released lease’s summary it cannot read is no summary (the scan reads everything), and it expires at its scan’s time', async () => {
    // Prepare
    const table = await dynamo.createStateTable();
    const store = new DynamoStateStore(dynamo.client, table);
    await store.acquireLease('prod', 'scan-a', NOW, 2 * MINUTE);
    await store.releaseLease('prod', 'scan-a', { scannedAt: iso(0), openAlerts: false, outbox: false });
    const { Item } = await dynamo.client.send(
      new GetItemCommand({ TableName: table, Key: { pk: { S: 'LEASE#prod' }, sk: { S: '-' } } }),
    );
    await dynamo.client.send(new PutItemCommand({ TableName: table, Item: { ...Item, summary: { S: '{"openAlerts":"no"}' } } }));

    // Act
    const claim = await store.acquireLease('prod', 'scan-b', at(1000), 2 * MINUTE);

    // Assess
    expect(Item?.expiresAt).toEqual({ N: String(seconds(at(0))) });
    expect(Item?.holder).toBeUndefined();
    expect(claim).toEqual({ acquired: true });
  });

  it('rejects a stored item it cannot read, naming it', async () => {
    // Prepare
    const table = await dynamo.createStateTable();
    await dynamo.client.send(
      new PutItemCommand({ TableName: table, Item: { pk: { S: 'ALERT#prod' }, sk: { S: 'k1' }, cluster: { S: 'prod' } } }),
    );

    // Act
    const listing = new DynamoStateStore(dynamo.client, table).openAlerts('prod');

    // Assess
    await expect(listing).rejects.toThrow('state item ALERT#prod/k1 has no valid');
  });

  describe('against a mocked client', () => {
    const client = new DynamoDBClient({ region: 'us-east-1', credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'x' } });
    const mock = mockClient(client);

    it('learns the holder’s status from the refused write itself (ALL_OLD): one call', async () => {
      // Prepare
      mock.reset();
      mock.on(PutItemCommand).rejects(
        new ConditionalCheckFailedException({
          message: 'The conditional request failed',
          $metadata: { httpStatusCode: 400 },
          Item: { pk: { S: 'IDEMPOTENCY#m-1' }, sk: { S: '-' }, status: { S: 'done' }, expiresAt: { N: '1772500000' } },
        }),
      );

      // Act
      const claim = await new DynamoStateStore(client, 'state').claimDelivery('m-1', NOW, MINUTE);

      // Assess
      expect(claim).toBe('done');
      expect(mock.commandCalls(PutItemCommand)[0]?.args[0].input).toMatchObject({
        ConditionExpression: 'attribute_not_exists(#pk) OR #ttl <= :now',
        ExpressionAttributeValues: { ':now': { N: String(NOW.getTime() / 1000) } },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      });
      expect(mock.commandCalls(GetItemCommand)).toHaveLength(0);
    });

    it('asks for the replaced item (ReturnValues ALL_OLD) only when taking a lease: no other write pays for an item it does not read', async () => {
      // Prepare
      mock.reset();
      mock.on(PutItemCommand).resolves({});
      mock.on(DeleteItemCommand).resolves({});
      const store = new DynamoStateStore(client, 'state');
      const entry = pending('prod', 'i-0a3f1c9e8b7d6a501');

      // Act
      await store.claimDelivery('m-1', NOW, MINUTE);
      await store.acquireLease('prod', 'scan-a', NOW, 2 * MINUTE);
      await store.releaseLease('prod', 'scan-a', { scannedAt: iso(0), openAlerts: false, outbox: false });
      await store.recordPending([entry]);
      await store.recordOutcome(entry, { ...entry.finding.remediation!, status: 'applied', reason: 'restarted' });

      // Assess
      const asked = mock
        .commandCalls(PutItemCommand)
        .map((call) => [call.args[0].input.Item?.pk?.S, call.args[0].input.ReturnValues]);
      expect(asked).toEqual([
        ['IDEMPOTENCY#m-1', undefined],
        ['LEASE#prod', 'ALL_OLD'],
        ['LEASE#prod', undefined],
        ['OUTBOX#prod', undefined],
        ['OUTBOX#prod', undefined],
      ]);
    });

    it('asks again for the keys BatchGetItem left unprocessed', async () => {
      // Prepare
      mock.reset();
      const key = (cluster: string) => ({ pk: { S: `STATUS#${cluster}` }, sk: { S: '-' } });
      const stored = (cluster: string) => ({
        ...key(cluster),
        cluster: { S: cluster },
        observedAt: { S: iso(0) },
        controller: { S: 'available' },
        readyReplicas: { N: '2' },
        desiredReplicas: { N: '2' },
      });
      mock
        .on(BatchGetItemCommand)
        .resolvesOnce({ Responses: { state: [stored('a')] }, UnprocessedKeys: { state: { Keys: [key('b')] } } })
        .resolvesOnce({ Responses: { state: [stored('b')] } });

      const clock = steppingClock(NOW);

      // Act
      const statuses = await new DynamoStateStore(client, 'state', { clock, random: () => 0.5 }).clusterStatuses(['a', 'b']);

      // Assess
      expect([...statuses.keys()].sort()).toEqual(['a', 'b']);
      expect(clock.sleeps).toEqual([25]);
      expect(mock.commandCalls(BatchGetItemCommand)[1]?.args[0].input.RequestItems).toEqual({ state: { Keys: [key('b')] } });
    });

    it('rejects when keys stay unprocessed after every attempt, rather than report a cluster without status', async () => {
      // Prepare
      mock.reset();
      mock
        .on(BatchGetItemCommand)
        .resolves({ UnprocessedKeys: { state: { Keys: [{ pk: { S: 'STATUS#a' }, sk: { S: '-' } }] } } });

      const clock = steppingClock(NOW);

      // Act
      const reading = new DynamoStateStore(client, 'state', { clock, random: () => 0.999999 }).clusterStatuses(['a']);

      // Assess: full jitter below a ceiling doubling from 50 ms to 400 ms, on the injected clock
      await expect(reading).rejects.toThrow('BatchGetItem failed: 1 of 1 keys still unprocessed after 5 attempts');
      expect(mock.commandCalls(BatchGetItemCommand)).toHaveLength(BATCH_GET_ATTEMPTS);
      expect(clock.sleeps).toEqual([50, 100, 200, 400]);
    });
  });
});
