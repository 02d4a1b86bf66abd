/**
 * Karpenter's own example of the message it handles as `spot_interrupted`, byte for byte as
 * aws/karpenter-provider-aws publishes it in designs/interruption-handling.md ("Example EventBridge
 * Spot Interruption Notification", commit c24b63444c4cbe4661808a58c773f007ef46b96f). Its instance
 * id has 10 hex digits, not EC2's 8 or 17; Karpenter's parser
 * (pkg/controllers/interruption/messages/spotinterruption) takes it as it is.
 */
import type { SQSEvent } from 'aws-lambda';

export const KARPENTER_SPOT_INTERRUPTED = `{
  "version": "0",
  "id": "1e5527d7-bb36-4607-3370-4164db56a40e",
  "detail-type": "EC2 Spot Instance Interruption Warning",
  "source": "aws.ec2",
  "account": "123456789012",
  "time": "2022-08-11T14:00:00Z",
  "region": "us-east-2",
  "resources": [
    "arn:aws:ec2:us-east-2:instance/i-0123456789"
  ],
  "detail": {
    "instance-id": "i-0123456789",
    "instance-action": "terminate"
  }
}`;

/** One SQS record carrying `body`, as the event source mapping delivers it. */
export function sqsRecord(messageId: string, body: string): SQSEvent['Records'][number] {
  return {
    messageId,
    receiptHandle: `receipt-${messageId}`,
    body,
    attributes: {
      ApproximateReceiveCount: '1',
      SentTimestamp: '1660226401000',
      SenderId: 'AIDAIENQZJOLO23YVJ4VO',
      ApproximateFirstReceiveTimestamp: '1660226401100',
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-2:123456789012:karpenter-sentinel-dev-interruptions',
    awsRegion: 'us-east-2',
  };
}
