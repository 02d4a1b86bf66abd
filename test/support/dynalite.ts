/**
 * A real DynamoDB API (dynalite, in-process) on 127.0.0.1 with the state table created from
 * STATE_TABLE_KEYS: conditional writes, TTL attributes and queries behave as DynamoDB's do.
 */
import type { AddressInfo } from 'node:net';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { STATE_TABLE_KEYS } from '../../src/adapters/aws/state-table.ts';

export interface LocalDynamo {
  client: DynamoDBClient;
  endpoint: string;
  /** Creates a fresh, empty state table and returns its name. */
  createStateTable(): Promise<string>;
  close(): Promise<void>;
}

let tables = 0;

export async function startLocalDynamo(): Promise<LocalDynamo> {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  return {
    client,
    endpoint,
    async createStateTable() {
      tables += 1;
      const name = `sentinel-state-${tables}`;
      await client.send(
        new CreateTableCommand({
          TableName: name,
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: [
            { AttributeName: STATE_TABLE_KEYS.partitionKey, AttributeType: 'S' },
            { AttributeName: STATE_TABLE_KEYS.sortKey, AttributeType: 'S' },
          ],
          KeySchema: [
            { AttributeName: STATE_TABLE_KEYS.partitionKey, KeyType: 'HASH' },
            { AttributeName: STATE_TABLE_KEYS.sortKey, KeyType: 'RANGE' },
          ],
        }),
      );
      // dynalite answers CREATING and turns the table ACTIVE a moment later; a write before then
      // fails with ResourceNotFoundException (seen on a loaded machine).
      for (let i = 0; i < 200; i++) {
        const { Table } = await client.send(new DescribeTableCommand({ TableName: name }));
        if (Table?.TableStatus === 'ACTIVE') return name;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      throw new Error(`dynalite table ${name} never became ACTIVE`);
    },
    async close() {
      client.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * A client of the dynalite at `endpoint` that records the operation of every HTTP request it sends
 * (the deserialize step runs once per attempt, inside the retry step): one entry per request.
 */
export function countingClient(endpoint: string): { client: DynamoDBClient; sent: string[] } {
  const sent: string[] = [];
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  client.middlewareStack.add(
    (next, context) => async (args) => {
      sent.push(String(context.commandName).replace(/Command$/, ''));
      return next(args);
    },
    { step: 'deserialize', name: 'countRequests' },
  );
  return { client, sent };
}
