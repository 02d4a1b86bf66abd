/** What the AWS adapter takes as "no such queue" (src/adapters/aws/errors.ts). */
import { describe, expect, it } from 'vitest';
import { isNonExistentQueue } from '../../../src/adapters/aws/errors.ts';

function sqsError(message: string): Error {
  return Object.assign(new Error(message), { name: 'QueueDoesNotExist', Code: 'AWS.SimpleQueueService.NonExistentQueue' });
}

describe('isNonExistentQueue', () => {
  it('is SQS saying the queue does not exist, but not when SQS adds it may be a refusal', () => {
    expect(isNonExistentQueue(sqsError('The specified queue does not exist.'))).toBe(true);
    expect(isNonExistentQueue(sqsError('The specified queue does not exist for this wsdl version.'))).toBe(true);
    expect(isNonExistentQueue(sqsError('The specified queue does not exist or you do not have access to it.'))).toBe(false);
  });
});
