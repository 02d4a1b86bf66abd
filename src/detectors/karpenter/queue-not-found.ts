/**
 * SQS's answer for a queue that does not exist, as Karpenter logs it when its interruption queue is
 * missing: `AWS.SimpleQueueService.NonExistentQueue` (SDK Go v1 and v2) or `QueueDoesNotExist` (the
 * JSON protocol's code). In every era: `getting messages from queue, discovering queue url, fetching
 * queue url, ...` (v0.19–v0.32), `panic: fetching queue url, ...` or `panic:
 * AWS.SimpleQueueService.NonExistentQueue: ...` (v0.33–v1.3, a crash loop), `creating sqs
 * provider, ...` (v1.4 on). Shared by INTERRUPTION_HANDLING_OFF and the crash loop it causes.
 */
export const QUEUE_NOT_FOUND = /AWS\.SimpleQueueService\.NonExistentQueue|QueueDoesNotExist/;
