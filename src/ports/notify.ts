/** Where the service's results go: the alert topic, CloudWatch metrics, the scan queue, Slack. */
import type { Alert } from '../domain/alert.ts';
import type { MetricDatum } from '../domain/metric.ts';

export interface AlertPublisher {
  /** Publishes each alert as one message; rejects when any could not be published. */
  publish(alerts: readonly Alert[]): Promise<void>;
}

export interface MetricsSink {
  /** All of an invocation's datums at once, stamped with `timestamp`. */
  put(datums: readonly MetricDatum[], timestamp: Date): Promise<void>;
}

/** A request to scan one cluster: the body of one scan-queue message. */
export interface ScanRequest {
  cluster: string;
  /** ISO-8601: the schedule tick that asked for it (its idempotency key, with the cluster). */
  requestedAt: string;
}

export interface ScanQueue {
  /** Sends every request (in batches of 10); rejects naming the clusters whose messages failed. */
  send(requests: readonly ScanRequest[]): Promise<void>;
}

/** The Slack incoming-webhook URL, read from SSM Parameter Store or Secrets Manager (never logged). */
export interface WebhookUrlSource {
  webhookUrl(): Promise<string>;
}

export interface WebhookResponse {
  status: number;
  /** Seconds, from a 429's Retry-After header. */
  retryAfterSeconds?: number;
  /** The response text (Slack explains refusals there: `no_service`, `invalid_token`). */
  body?: string;
}

export interface WebhookPoster {
  /** One POST of a JSON body; network errors reject. */
  post(url: string, body: string): Promise<WebhookResponse>;
}
