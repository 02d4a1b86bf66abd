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
 *   LEASE#<cluster>     -                     holder                                       now + durationMs
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
 * Reads that decide dedupe and guardrails (claims, open alerts, cooldowns, the outbox) are strongly
 * consistent.
 * Every SDK failure leaves as a SourceError reading `<Operation> failed: ...`.
 */
import {
  BatchGetItemCommand,
  ConditionalCheckFailedException,
  DeleteItemCommand,
  GetItemCommand,
  paginateQuery,
  PutItemCommand,
  UpdateItemCommand,
  type AttributeValue,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { SEVERITIES, type Severity } from '../../domain/codes.ts';
import { SYSTEM_CLOCK, type Clock } from '../../ports/clock.ts';
import { SourceError } from '../../ports/errors.ts';
import type { Finding, Remediation } from '../../domain/finding.ts';
import type {
  ClusterStatus,
  DeliveryClaim,
  LeaseClaim,
  OpenAlert,
  OutboxEntry,
  RemediationCooldown,
  StateStore,
} from '../../ports/state.ts';
import { chunks } from '../../support/concurrency.ts';
import { attemptsText, retry, RetriesExhaustedError, type RetryPolicy } from '../../support/retry.ts';
import { awsCall } from './errors.ts';
import { allPages } from './sdk-output.ts';
import { STATE_TABLE_KEYS } from './state-table.ts';

type Item = Record<string, AttributeValue>;

/** An abandoned open alert (its cluster deleted, the service removed) vanishes this long after its last alert. */
export const OPEN_ALERT_TTL_MS = 30 * 24 * 3_600_000;
/** An action's announcement nobody could deliver (the topic refusing for two weeks) vanishes this long after it was recorded. */
export const OUTBOX_TTL_MS = 14 * 24 * 3_600_000;
/** BatchGetItem's limit of keys per call. */
const BATCH_GET_SIZE = 100;
/** Calls per chunk, the first included, while DynamoDB returns keys unprocessed (throttling). */
export const BATCH_GET_ATTEMPTS = 5;
/** Full jitter below a ceiling doubling from 50 ms to 400 ms (the waits were 50, 100, 200, 400 ms, unjittered). */
const BATCH_GET_RETRY: RetryPolicy = { maxAttempts: BATCH_GET_ATTEMPTS, baseDelayMs: 50, maxDelayMs: 400 };

const NO_SORT_KEY = '-';
const { partitionKey: PK, sortKey: SK, ttlAttribute: TTL } = STATE_TABLE_KEYS;
const CONTROLLER_STATES: readonly ClusterStatus['controller'][] = ['available', 'unavailable', 'not-found', 'managed', 'unknown'];

export class DynamoStateStore implements StateStore {
  readonly #client: DynamoDBClient;
  readonly #table: string;
  readonly #clock: Pick<Clock, 'sleep'>;
  readonly #random: () => number;

  /** `clock` waits between BatchGetItem retries, `random` is their jitter (tests pass their own). */
  constructor(client: DynamoDBClient, tableName: string, options: { clock?: Pick<Clock, 'sleep'>; random?: () => number } = {}) {
    this.#client = client;
    this.#table = tableName;
    this.#clock = options.clock ?? SYSTEM_CLOCK;
    this.#random = options.random ?? Math.random;
  }

  async claimDelivery(key: string, now: Date, holdMs: number): Promise<DeliveryClaim> {
    const itemKey = keyOf(`IDEMPOTENCY#${key}`);
    const refused = await awsCall('PutItem', async () => {
      try {
        await this.#client.send(
          new PutItemCommand({
            TableName: this.#table,
            Item: { ...itemKey, status: text('in-progress'), [TTL]: epochSeconds(now.getTime() + holdMs) },
            ConditionExpression: 'attribute_not_exists(#pk) OR #ttl <= :now',
            ExpressionAttributeNames: { '#pk': PK, '#ttl': TTL },
            ExpressionAttributeValues: { ':now': number(Math.floor(now.getTime() / 1000)) },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        return undefined;
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return { held: error.Item };
        throw error;
      }
    });
    if (!refused) return 'claimed';
    // DynamoDB returns the holder's item with the refusal; emulators that do not get one more read.
    const held = refused.held ?? (await this.#consistentGet(itemKey));
    // Released between the refused write and the read: someone held it a moment ago, the retry will see.
    if (!held) return 'in-progress';
    const status = held.status?.S;
    if (status === 'done' || status === 'in-progress') return status;
    throw unexpectedItem(held, 'status');
  }

  async completeDelivery(key: string, now: Date, ttlMs: number): Promise<void> {
    await this.#put({ ...keyOf(`IDEMPOTENCY#${key}`), status: text('done'), [TTL]: epochSeconds(now.getTime() + ttlMs) });
  }

  async releaseDelivery(key: string): Promise<void> {
    await this.#delete(keyOf(`IDEMPOTENCY#${key}`));
  }

  async openAlerts(cluster: string): Promise<OpenAlert[]> {
    return (await this.#query(`ALERT#${cluster}`)).map(openAlertOf);
  }

  async saveAlert(alert: OpenAlert): Promise<void> {
    await this.#put({
      ...keyOf(`ALERT#${alert.cluster}`, alert.key),
      cluster: text(alert.cluster),
      key: text(alert.key),
      code: text(alert.code),
      severity: text(alert.severity),
      title: text(alert.title),
      firstSeen: text(alert.firstSeen),
      lastSent: text(alert.lastSent),
      [TTL]: epochSeconds(timeOf(alert.lastSent, 'lastSent') + OPEN_ALERT_TTL_MS),
    });
  }

  async clearAlert(cluster: string, key: string): Promise<void> {
    await this.#delete(keyOf(`ALERT#${cluster}`, key));
  }

  async activeCooldowns(cluster: string, now: Date): Promise<RemediationCooldown[]> {
    // Filtered here, not by a FilterExpression: `until` is ISO text, which only compares as time once parsed.
    return (await this.#query(`COOLDOWN#${cluster}`)).map(cooldownOf).filter((c) => Date.parse(c.until) > now.getTime());
  }

  async startCooldown(cooldown: RemediationCooldown): Promise<void> {
    await this.#put({
      ...keyOf(`COOLDOWN#${cooldown.cluster}`, `${cooldown.findingId}#${cooldown.action}`),
      cluster: text(cooldown.cluster),
      findingId: text(cooldown.findingId),
      action: text(cooldown.action),
      until: text(cooldown.until),
      lastOutcome: text(cooldown.lastOutcome),
      [TTL]: epochSeconds(timeOf(cooldown.until, 'until')),
    });
  }

  async saveClusterStatus(status: ClusterStatus, ttlMs: number): Promise<void> {
    await this.#put({
      ...keyOf(`STATUS#${status.cluster}`),
      cluster: text(status.cluster),
      observedAt: text(status.observedAt),
      controller: text(status.controller),
      readyReplicas: number(status.readyReplicas),
      desiredReplicas: number(status.desiredReplicas),
      [TTL]: epochSeconds(timeOf(status.observedAt, 'observedAt') + ttlMs),
    });
  }

  async clusterStatuses(clusters: readonly string[]): Promise<Map<string, ClusterStatus>> {
    const found = new Map<string, ClusterStatus>();
    // BatchGetItem refuses a list with a key twice.
    for (const chunk of chunks([...new Set(clusters)], BATCH_GET_SIZE)) {
      for (const item of await this.#batchGet(chunk.map((cluster) => keyOf(`STATUS#${cluster}`)))) {
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
    const refused = await this.#conditionalPut(
      { ...keyOf(`LEASE#${cluster}`), holder: text(holder), [TTL]: epochSeconds(now.getTime() + durationMs) },
      'attribute_not_exists(#pk) OR #ttl <= :now',
      { '#pk': PK, '#ttl': TTL },
      { ':now': number(Math.floor(now.getTime() / 1000)) },
    );
    if (!refused) return { acquired: true };
    // DynamoDB returns the holder's item with the refusal; emulators that do not get one more read.
    const holderNow = (refused.old ?? (await this.#consistentGet(keyOf(`LEASE#${cluster}`))))?.holder?.S;
    return holderNow === undefined ? { acquired: false } : { acquired: false, holder: holderNow };
  }

  async releaseLease(cluster: string, holder: string): Promise<void> {
    // Refused: the lease expired and another scan holds it now; it is theirs to release.
    await this.#conditionalDelete(
      keyOf(`LEASE#${cluster}`),
      '#holder = :holder',
      { '#holder': 'holder' },
      { ':holder': text(holder) },
    );
  }

  async recordPending(entries: readonly OutboxEntry[]): Promise<void> {
    await Promise.all(
      entries.map(async (entry) => {
        const { outcome: _ignored, ...pending } = entry;
        const refused = await this.#conditionalPut(outboxItem(pending), 'attribute_not_exists(#pk)', { '#pk': PK }, undefined);
        if (refused) {
          throw new SourceError(`PutItem failed: outbox entry ${entry.cluster}/${entry.id} already recorded`, {
            code: 'ConditionalCheckFailedException',
          });
        }
      }),
    );
  }

  async recordOutcome(entry: OutboxEntry, outcome: Remediation): Promise<boolean> {
    const key = keyOf(`OUTBOX#${entry.cluster}`, entry.id);
    const names = { '#pk': PK, '#outcome': 'outcome' };
    const pendingOnly = 'attribute_exists(#pk) AND attribute_not_exists(#outcome)';
    if (outcome.status !== 'applied' && outcome.status !== 'failed') {
      return this.#conditionalDelete(key, pendingOnly, names, undefined);
    }
    // A conditional replace (PutItem) of the entry as recorded: the scan role needs no UpdateItem.
    return !(await this.#conditionalPut(outboxItem({ ...entry, outcome }), pendingOnly, names, undefined));
  }

  async undelivered(cluster: string): Promise<OutboxEntry[]> {
    // Sort keys start with recordedAt: the query returns them oldest first.
    return (await this.#query(`OUTBOX#${cluster}`)).map(outboxEntryOf);
  }

  async markDelivered(cluster: string, id: string): Promise<boolean> {
    return this.#conditionalDelete(keyOf(`OUTBOX#${cluster}`, id), 'attribute_exists(#pk)', { '#pk': PK }, undefined);
  }

  /** undefined when written; the refusal (with the item it found, when DynamoDB returns it) otherwise. */
  async #conditionalPut(
    item: Item,
    condition: string,
    names: Record<string, string>,
    values: Item | undefined,
  ): Promise<{ old: Item | undefined } | undefined> {
    return awsCall('PutItem', async () => {
      try {
        await this.#client.send(
          new PutItemCommand({
            TableName: this.#table,
            Item: item,
            ConditionExpression: condition,
            ExpressionAttributeNames: names,
            ...(values ? { ExpressionAttributeValues: values } : {}),
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        return undefined;
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return { old: error.Item };
        throw error;
      }
    });
  }

  /** True when deleted; false when the condition refused it. */
  async #conditionalDelete(
    key: Item,
    condition: string,
    names: Record<string, string>,
    values: Item | undefined,
  ): Promise<boolean> {
    return awsCall('DeleteItem', async () => {
      try {
        await this.#client.send(
          new DeleteItemCommand({
            TableName: this.#table,
            Key: key,
            ConditionExpression: condition,
            ExpressionAttributeNames: names,
            ...(values ? { ExpressionAttributeValues: values } : {}),
          }),
        );
        return true;
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return false;
        throw error;
      }
    });
  }

  async #put(item: Item): Promise<void> {
    await awsCall('PutItem', () => this.#client.send(new PutItemCommand({ TableName: this.#table, Item: item })));
  }

  async #delete(key: Item): Promise<void> {
    await awsCall('DeleteItem', () => this.#client.send(new DeleteItemCommand({ TableName: this.#table, Key: key })));
  }

  async #consistentGet(key: Item): Promise<Item | undefined> {
    const output = await awsCall('GetItem', () =>
      this.#client.send(new GetItemCommand({ TableName: this.#table, Key: key, ConsistentRead: true })),
    );
    return output.Item;
  }

  /** Every item of one partition, page by page. */
  async #query(pk: string): Promise<Item[]> {
    return awsCall('Query', () =>
      allPages(
        paginateQuery(
          { client: this.#client },
          {
            TableName: this.#table,
            KeyConditionExpression: '#pk = :pk',
            ExpressionAttributeNames: { '#pk': PK },
            ExpressionAttributeValues: { ':pk': text(pk) },
            ConsistentRead: true,
          },
        ),
        (page) => page.Items,
      ),
    );
  }

  /** Up to BATCH_GET_SIZE keys; unprocessed keys are asked again with backoff, and still unprocessed ones reject. */
  async #batchGet(keys: Item[]): Promise<Item[]> {
    if (keys.length === 0) return [];
    const items: Item[] = [];
    let pending = keys;
    try {
      await retry(
        async () => {
          const output = await awsCall('BatchGetItem', () =>
            this.#client.send(new BatchGetItemCommand({ RequestItems: { [this.#table]: { Keys: pending } } })),
          );
          items.push(...(output.Responses?.[this.#table] ?? []));
          pending = output.UnprocessedKeys?.[this.#table]?.Keys ?? [];
          if (pending.length > 0) throw new UnprocessedKeys();
        },
        { ...BATCH_GET_RETRY, clock: this.#clock, random: this.#random, retryable: (e) => e instanceof UnprocessedKeys },
      );
    } catch (error) {
      if (!(error instanceof RetriesExhaustedError)) throw error;
      throw new SourceError(
        `BatchGetItem failed: ${pending.length} of ${keys.length} keys still unprocessed after ${attemptsText(error.attempts)}`,
        { code: 'UnprocessedKeys', cause: error },
      );
    }
    return items;
  }
}

/** Some keys came back unprocessed (throttling): asked again after a wait. */
class UnprocessedKeys extends Error {
  override name = 'UnprocessedKeys';
}

function keyOf(pk: string, sk: string = NO_SORT_KEY): Item {
  return { [PK]: text(pk), [SK]: text(sk) };
}

function text(value: string): AttributeValue {
  return { S: value };
}

function number(value: number): AttributeValue {
  return { N: String(value) };
}

/** TTL is in whole seconds: rounded up, so nothing expires before its time. */
function epochSeconds(ms: number): AttributeValue {
  return number(Math.ceil(ms / 1000));
}

function timeOf(iso: string, field: string): number {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new TypeError(`${field} is not an ISO-8601 time: ${JSON.stringify(iso)}`);
  return ms;
}

function openAlertOf(item: Item): OpenAlert {
  const severity = textOf(item, 'severity');
  if (!(SEVERITIES as readonly string[]).includes(severity)) throw unexpectedItem(item, 'severity');
  return {
    cluster: textOf(item, 'cluster'),
    key: textOf(item, 'key'),
    code: textOf(item, 'code'),
    severity: severity as Severity,
    title: textOf(item, 'title'),
    firstSeen: textOf(item, 'firstSeen'),
    lastSent: textOf(item, 'lastSent'),
  };
}

function outboxItem(entry: OutboxEntry): Item {
  return {
    ...keyOf(`OUTBOX#${entry.cluster}`, entry.id),
    cluster: text(entry.cluster),
    id: text(entry.id),
    recordedAt: text(entry.recordedAt),
    finding: text(JSON.stringify(entry.finding)),
    ...(entry.outcome ? { outcome: text(JSON.stringify(entry.outcome)) } : {}),
    [TTL]: epochSeconds(timeOf(entry.recordedAt, 'recordedAt') + OUTBOX_TTL_MS),
  };
}

function outboxEntryOf(item: Item): OutboxEntry {
  const finding = jsonOf(item, 'finding');
  if (!isPlannedFinding(finding)) throw unexpectedItem(item, 'finding');
  const entry: OutboxEntry = {
    cluster: textOf(item, 'cluster'),
    id: textOf(item, 'id'),
    recordedAt: textOf(item, 'recordedAt'),
    finding,
  };
  if (item.outcome === undefined) return entry;
  const outcome = jsonOf(item, 'outcome');
  if (!isRemediation(outcome)) throw unexpectedItem(item, 'outcome');
  return { ...entry, outcome };
}

/** The fields the alert is rendered from; the rest is as this code wrote it. */
function isPlannedFinding(value: unknown): value is Finding {
  if (typeof value !== 'object' || value === null) return false;
  const f = value as Record<string, unknown>;
  return (
    typeof f.id === 'string' &&
    typeof f.code === 'string' &&
    typeof f.title === 'string' &&
    (SEVERITIES as readonly unknown[]).includes(f.severity) &&
    typeof f.resource === 'object' &&
    f.resource !== null &&
    isRemediation(f.remediation)
  );
}

function isRemediation(value: unknown): value is Remediation {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Record<string, unknown>;
  return typeof r.action === 'string' && typeof r.status === 'string' && typeof r.reason === 'string' && Array.isArray(r.steps);
}

/** A JSON value stored as text. */
function jsonOf(item: Item, name: string): unknown {
  try {
    return JSON.parse(textOf(item, name));
  } catch (error) {
    if (error instanceof SourceError) throw error;
    throw unexpectedItem(item, name);
  }
}

function cooldownOf(item: Item): RemediationCooldown {
  return {
    cluster: textOf(item, 'cluster'),
    findingId: textOf(item, 'findingId'),
    action: textOf(item, 'action'),
    until: textOf(item, 'until'),
    lastOutcome: textOf(item, 'lastOutcome'),
  };
}

function clusterStatusOf(item: Item): ClusterStatus {
  const controller = CONTROLLER_STATES.find((state) => state === item.controller?.S);
  if (!controller) throw unexpectedItem(item, 'controller');
  return {
    cluster: textOf(item, 'cluster'),
    observedAt: textOf(item, 'observedAt'),
    controller,
    readyReplicas: numberOf(item, 'readyReplicas'),
    desiredReplicas: numberOf(item, 'desiredReplicas'),
  };
}

function textOf(item: Item, name: string): string {
  const value = item[name]?.S;
  if (value === undefined) throw unexpectedItem(item, name);
  return value;
}

function numberOf(item: Item, name: string): number {
  const value = Number(item[name]?.N);
  if (!Number.isFinite(value)) throw unexpectedItem(item, name);
  return value;
}

/** An item this code did not write (or an older layout): named, so it can be found and deleted. */
function unexpectedItem(item: Item, attribute: string): SourceError {
  return new SourceError(`state item ${item[PK]?.S ?? '?'}/${item[SK]?.S ?? '?'} has no valid ${attribute}`, {
    code: 'UnexpectedItem',
  });
}
