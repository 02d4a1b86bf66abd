/**
 * The requests the state store makes of its DynamoDB table, one method per request: every SDK
 * failure leaves as a SourceError reading `<Operation> failed: ...`, and a refused condition is an
 * answer, not an error.
 */
import {
  BatchGetItemCommand,
  ConditionalCheckFailedException,
  DeleteItemCommand,
  GetItemCommand,
  paginateQuery,
  PutItemCommand,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import type { Clock } from '../../ports/clock.ts';
import { SourceError } from '../../ports/errors.ts';
import { attemptsText, retry, RetriesExhaustedError, type RetryPolicy } from '../../support/retry.ts';
import { awsCall } from './errors.ts';
import { allPages } from './sdk-output.ts';
import { text, type Item } from './state-items.ts';
import { STATE_TABLE_KEYS } from './state-table.ts';

/** Calls per chunk, the first included, while DynamoDB returns keys unprocessed (throttling). */
export const BATCH_GET_ATTEMPTS = 5;
/** Full jitter below a ceiling doubling from 50 ms to 400 ms (the waits were 50, 100, 200, 400 ms, unjittered). */
const BATCH_GET_RETRY: RetryPolicy = { maxAttempts: BATCH_GET_ATTEMPTS, baseDelayMs: 50, maxDelayMs: 400 };

/** A condition of a write: the expression and its names and values. */
export interface Condition {
  expression: string;
  names: Record<string, string>;
  values?: Item;
  /** A put returns the item it replaced (ReturnValues ALL_OLD): only where the old item is read. */
  returnReplaced?: boolean;
}

/**
 * A conditional put's answer: written (with the item it replaced, when asked for), or refused (with
 * the item it found, when DynamoDB returns it).
 */
export type PutAnswer = { written: true; old: Item | undefined } | { written: false; old: Item | undefined };

export class StateTableRequests {
  readonly #client: DynamoDBClient;
  readonly #table: string;
  readonly #clock: Pick<Clock, 'sleep'>;
  readonly #random: () => number;

  constructor(client: DynamoDBClient, table: string, clock: Pick<Clock, 'sleep'>, random: () => number) {
    this.#client = client;
    this.#table = table;
    this.#clock = clock;
    this.#random = random;
  }

  async put(item: Item): Promise<void> {
    await awsCall('PutItem', () => this.#client.send(new PutItemCommand({ TableName: this.#table, Item: item })));
  }

  /** Returns the replaced item on success if `returnReplaced`, and the item found on refusal, in the same request. */
  async conditionalPut(item: Item, condition: Condition): Promise<PutAnswer> {
    return awsCall('PutItem', async () => {
      try {
        const output = await this.#client.send(
          new PutItemCommand({
            TableName: this.#table,
            Item: item,
            ConditionExpression: condition.expression,
            ExpressionAttributeNames: condition.names,
            ...(condition.values ? { ExpressionAttributeValues: condition.values } : {}),
            ...(condition.returnReplaced ? { ReturnValues: 'ALL_OLD' as const } : {}),
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        return { written: true, old: output.Attributes };
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return { written: false, old: error.Item };
        throw error;
      }
    });
  }

  async delete(key: Item): Promise<void> {
    await awsCall('DeleteItem', () => this.#client.send(new DeleteItemCommand({ TableName: this.#table, Key: key })));
  }

  /** True when deleted; false when the condition refused it. */
  async conditionalDelete(key: Item, condition: Condition): Promise<boolean> {
    return awsCall('DeleteItem', async () => {
      try {
        await this.#client.send(
          new DeleteItemCommand({
            TableName: this.#table,
            Key: key,
            ConditionExpression: condition.expression,
            ExpressionAttributeNames: condition.names,
            ...(condition.values ? { ExpressionAttributeValues: condition.values } : {}),
          }),
        );
        return true;
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return false;
        throw error;
      }
    });
  }

  async consistentGet(key: Item): Promise<Item | undefined> {
    const output = await awsCall('GetItem', () =>
      this.#client.send(new GetItemCommand({ TableName: this.#table, Key: key, ConsistentRead: true })),
    );
    return output.Item;
  }

  /** Every item of one partition, page by page, strongly consistent. */
  async query(pk: string): Promise<Item[]> {
    return awsCall('Query', () =>
      allPages(
        paginateQuery(
          { client: this.#client },
          {
            TableName: this.#table,
            KeyConditionExpression: '#pk = :pk',
            ExpressionAttributeNames: { '#pk': STATE_TABLE_KEYS.partitionKey },
            ExpressionAttributeValues: { ':pk': text(pk) },
            ConsistentRead: true,
          },
        ),
        (page) => page.Items,
      ),
    );
  }

  /** Up to 100 keys (BatchGetItem's limit); unprocessed keys are asked again with backoff, and still unprocessed ones reject. */
  async batchGet(keys: Item[]): Promise<Item[]> {
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
