/**
 * The state table in DynamoDB: one table, raw AttributeValues, the same semantics as
 * InMemoryStateStore (a shared contract test runs against both, the Dynamo side on dynalite).
 *
 *   pk                  sk                    attributes                                   expiresAt
 *   IDEMPOTENCY#<key>   -                     status (in-progress | done)                  now + holdMs; once done now + ttlMs
 *   ALERT#<cluster>     <key>                 cluster key code severity title              lastSent + 30 days
 *                                             firstSeen lastSent
 *   COOLDOWN#<cluster>  <findingId>#<action>  cluster findingId action until lastOutcome   until
 *   STATUS#<cluster>    -                     cluster observedAt controller                observedAt + ttlMs
 *                                             readyReplicas desiredReplicas
 *   WINDOW#<key>        -                     total                                        as given at the first add
 *   LEASE#<cluster>     -                     holder (while held)                          now + durationMs
 *                                             summary (JSON, once released after a scan)   scannedAt (free at once)
 *   OUTBOX#<cluster>    <id>                  cluster id recordedAt finding (JSON)         recordedAt + 14 days
 *                                             outcome (JSON, once known)
 *
 * `expiresAt` (epoch seconds, rounded up) is on every item: it is the table's TTL attribute, so the
 * table never needs cleaning. DynamoDB deletes expired items eventually (within days, not at once),
 * so where expiry decides an answer the read checks it itself: a claim or a lease lapses once
 * `expiresAt <= now` (in whole seconds: it may hold up to a second past its duration, never less),
 * a cooldown counts while `until > now`. Open alerts, statuses and windows are read whatever their expiry, as the
 * in-memory store does: an open alert lives on while it is reminded (lastSent moves; the reminder
 * interval must stay under 30 days), and TTL only removes the abandoned ones; a status's age is the
 * reader's to judge from `observedAt`; a window's key names its window.
 *
 * An outbox entry is deleted once its alert is delivered; its TTL only removes one whose alert could
 * not be delivered for 14 days.
 *
 * A lease is taken by a conditional PutItem that returns the item it replaced (the only write that
 * asks for it): the summary the last scan released it with (ClusterRecordsSummary) comes with the
 * lease, in the same request, and tells the scan which partitions it need not query. A released
 * lease with a summary has no holder and expired at its scan's time, so it is free at once, to this
 * version and to the one before summaries (a rollback); its summary is read whatever its expiresAt.
 * A replaced item with a holder is a lapsed holder's (killed, or still running; an older version's
 * lease item always has one): reported, and no summary (the scan reads everything, leaves none).
 *
 * Reads that decide dedupe and guardrails (claims, open alerts, cooldowns, the outbox) are strongly
 * consistent.
 * Every SDK failure leaves as a SourceError reading `<Operation> failed: ...` (state-requests.ts).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { SYSTEM_CLOCK, type Clock } from '../../ports/clock.ts';
import { SourceError } from '../../ports/errors.ts';
import type { Remediation } from '../../domain/finding.ts';
import type {
  ClusterRecordsSummary,
  ClusterStatus,
  DeliveryClaim,
  LeaseClaim,
  OpenAlert,
  OutboxEntry,
  RemediationCooldown,
  StateStore,
} from '../../ports/state.ts';
import { chunks } from '../../support/concurrency.ts';
import { awsCall } from './errors.ts';
import {
  clusterStatusItem,
  clusterStatusOf,
  cooldownItem,
  cooldownOf,
  epochSeconds,
  keyOf,
  leaseSummaryOf,
  number,
  openAlertItem,
  openAlertOf,
  outboxEntryOf,
  outboxItem,
  releasedLeaseItem,
  text,
  unexpectedItem,
} from './state-items.ts';
import { StateTableRequests } from './state-requests.ts';
import { STATE_TABLE_KEYS } from './state-table.ts';

/** BatchGetItem's limit of keys per call. */
const BATCH_GET_SIZE = 100;
const { partitionKey: PK, ttlAttribute: TTL } = STATE_TABLE_KEYS;
/** Free: never taken, released, or its holder's time is up (expiresAt in whole seconds, rounded up). */
const FREE_LEASE = 'attribute_not_exists(#holder) OR #ttl <= :now';

export class DynamoStateStore implements StateStore {
  readonly #client: DynamoDBClient;
  readonly #table: string;
  readonly #requests: StateTableRequests;

  /** `clock` waits between BatchGetItem retries, `random` is their jitter (tests pass their own). */
  constructor(client: DynamoDBClient, tableName: string, options: { clock?: Pick<Clock, 'sleep'>; random?: () => number } = {}) {
    this.#client = client;
    this.#table = tableName;
    this.#requests = new StateTableRequests(client, tableName, options.clock ?? SYSTEM_CLOCK, options.random ?? Math.random);
  }

  async claimDelivery(key: string, now: Date, holdMs: number): Promise<DeliveryClaim> {
    const itemKey = keyOf(`IDEMPOTENCY#${key}`);
    const answer = await this.#requests.conditionalPut(
      { ...itemKey, status: text('in-progress'), [TTL]: epochSeconds(now.getTime() + holdMs) },
      {
        expression: 'attribute_not_exists(#pk) OR #ttl <= :now',
        names: { '#pk': PK, '#ttl': TTL },
        values: { ':now': number(Math.floor(now.getTime() / 1000)) },
      },
    );
    if (answer.written) return 'claimed';
    // DynamoDB returns the holder's item with the refusal; emulators that do not get one more read.
    const held = answer.old ?? (await this.#requests.consistentGet(itemKey));
    // Released between the refused write and the read: someone held it a moment ago, the retry will see.
    if (!held) return 'in-progress';
    const status = held.status?.S;
    if (status === 'done' || status === 'in-progress') return status;
    throw unexpectedItem(held, 'status');
  }

  async completeDelivery(key: string, now: Date, ttlMs: number): Promise<void> {
    await this.#requests.put({
      ...keyOf(`IDEMPOTENCY#${key}`),
      status: text('done'),
      [TTL]: epochSeconds(now.getTime() + ttlMs),
    });
  }

  async releaseDelivery(key: string): Promise<void> {
    await this.#requests.delete(keyOf(`IDEMPOTENCY#${key}`));
  }

  async openAlerts(cluster: string): Promise<OpenAlert[]> {
    return (await this.#requests.query(`ALERT#${cluster}`)).map(openAlertOf);
  }

  async saveAlert(alert: OpenAlert): Promise<void> {
    await this.#requests.put(openAlertItem(alert));
  }

  async clearAlert(cluster: string, key: string): Promise<void> {
    await this.#requests.delete(keyOf(`ALERT#${cluster}`, key));
  }

  async activeCooldowns(cluster: string, now: Date): Promise<RemediationCooldown[]> {
    // Filtered here, not by a FilterExpression: `until` is ISO text, which only compares as time once parsed.
    return (await this.#requests.query(`COOLDOWN#${cluster}`)).map(cooldownOf).filter((c) => Date.parse(c.until) > now.getTime());
  }

  async startCooldown(cooldown: RemediationCooldown): Promise<void> {
    await this.#requests.put(cooldownItem(cooldown));
  }

  async saveClusterStatus(status: ClusterStatus, ttlMs: number): Promise<void> {
    await this.#requests.put(clusterStatusItem(status, ttlMs));
  }

  async clusterStatuses(clusters: readonly string[]): Promise<Map<string, ClusterStatus>> {
    const found = new Map<string, ClusterStatus>();
    // BatchGetItem refuses a list with a key twice.
    for (const chunk of chunks([...new Set(clusters)], BATCH_GET_SIZE)) {
      for (const item of await this.#requests.batchGet(chunk.map((cluster) => keyOf(`STATUS#${cluster}`)))) {
        const status = clusterStatusOf(item);
        found.set(status.cluster, status);
      }
    }
    return found;
  }

  async addToWindow(key: string, amount: number, expiresAt: Date): Promise<number> {
    const output = await awsCall('UpdateItem', () =>
      this.#client.send(
        new UpdateItemCommand({
          TableName: this.#table,
          Key: keyOf(`WINDOW#${key}`),
          UpdateExpression: 'ADD #total :amount SET #ttl = if_not_exists(#ttl, :expiresAt)',
          ExpressionAttributeNames: { '#total': 'total', '#ttl': TTL },
          ExpressionAttributeValues: { ':amount': number(amount), ':expiresAt': epochSeconds(expiresAt.getTime()) },
          ReturnValues: 'UPDATED_NEW',
        }),
      ),
    );
    const total = Number(output.Attributes?.total?.N);
    if (!Number.isFinite(total))
      throw new SourceError('UpdateItem failed: unexpected response: no total', { code: 'UnexpectedResponse' });
    return total;
  }

  async acquireLease(cluster: string, holder: string, now: Date, durationMs: number): Promise<LeaseClaim> {
    const answer = await this.#requests.conditionalPut(
      { ...keyOf(`LEASE#${cluster}`), holder: text(holder), [TTL]: epochSeconds(now.getTime() + durationMs) },
      {
        expression: FREE_LEASE,
        names: { '#holder': 'holder', '#ttl': TTL },
        values: { ':now': number(Math.floor(now.getTime() / 1000)) },
        returnReplaced: true,
      },
    );
    if (answer.written) {
      // The replaced item: a lapsed holder's (killed or still running: no summary), or the summary the last scan released it with.
      const lapsedHolder = answer.old?.holder?.S;
      if (lapsedHolder !== undefined) return { acquired: true, lapsedHolder };
      const summary = leaseSummaryOf(answer.old);
      return summary ? { acquired: true, summary } : { acquired: true };
    }
    // DynamoDB returns the holder's item with the refusal; emulators that do not get one more read.
    const holderNow = (answer.old ?? (await this.#requests.consistentGet(keyOf(`LEASE#${cluster}`))))?.holder?.S;
    return holderNow === undefined ? { acquired: false } : { acquired: false, holder: holderNow };
  }

  async releaseLease(cluster: string, holder: string, summary?: ClusterRecordsSummary): Promise<void> {
    // Refused: the lease expired and another scan holds it now; it is theirs to release.
    const stillOurs = { expression: '#holder = :holder', names: { '#holder': 'holder' }, values: { ':holder': text(holder) } };
    if (summary) await this.#requests.conditionalPut(releasedLeaseItem(cluster, summary), stillOurs);
    else await this.#requests.conditionalDelete(keyOf(`LEASE#${cluster}`), stillOurs);
  }

  async recordPending(entries: readonly OutboxEntry[]): Promise<void> {
    await Promise.all(
      entries.map(async (entry) => {
        const { outcome: _ignored, ...pending } = entry;
        const answer = await this.#requests.conditionalPut(outboxItem(pending), {
          expression: 'attribute_not_exists(#pk)',
          names: { '#pk': PK },
        });
        if (!answer.written) {
          throw new SourceError(`PutItem failed: outbox entry ${entry.cluster}/${entry.id} already recorded`, {
            code: 'ConditionalCheckFailedException',
          });
        }
      }),
    );
  }

  async recordOutcome(entry: OutboxEntry, outcome: Remediation): Promise<boolean> {
    const key = keyOf(`OUTBOX#${entry.cluster}`, entry.id);
    const pendingOnly = {
      expression: 'attribute_exists(#pk) AND attribute_not_exists(#outcome)',
      names: { '#pk': PK, '#outcome': 'outcome' },
    };
    if (outcome.status !== 'applied' && outcome.status !== 'failed') return this.#requests.conditionalDelete(key, pendingOnly);
    // A conditional replace (PutItem) of the entry as recorded: the scan role needs no UpdateItem.
    return (await this.#requests.conditionalPut(outboxItem({ ...entry, outcome }), pendingOnly)).written;
  }

  async undelivered(cluster: string): Promise<OutboxEntry[]> {
    // Sort keys start with recordedAt: the query returns them oldest first.
    return (await this.#requests.query(`OUTBOX#${cluster}`)).map(outboxEntryOf);
  }

  async markDelivered(cluster: string, id: string): Promise<boolean> {
    return this.#requests.conditionalDelete(keyOf(`OUTBOX#${cluster}`, id), {
      expression: 'attribute_exists(#pk)',
      names: { '#pk': PK },
    });
  }
}
