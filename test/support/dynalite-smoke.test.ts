import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { expect, it } from 'vitest';
import { startLocalDynamo } from './dynalite.ts';

it('dynalite answers over 127.0.0.1 and honours conditional writes', async () => {
  const dynamo = await startLocalDynamo();
  try {
    const table = await dynamo.createStateTable();
    const put = () =>
      dynamo.client.send(
        new PutItemCommand({
          TableName: table,
          Item: { pk: { S: 'a' }, sk: { S: '-' } },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    await put();
    await expect(put()).rejects.toMatchObject({ name: 'ConditionalCheckFailedException' });
  } finally {
    await dynamo.close();
  }
});
