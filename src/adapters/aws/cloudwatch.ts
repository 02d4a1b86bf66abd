/**
 * Metrics to CloudWatch: an invocation's datums in one PutMetricData call (several only past the
 * API's 1,000 datums per call), all stamped with the invocation's time. A NaN or infinite value
 * cannot be stored by CloudWatch (it would reject the whole call), so such a datum is simply not
 * sent: a missing point on a graph, instead of every point of the invocation lost.
 */
import { PutMetricDataCommand, type CloudWatchClient, type MetricDatum as CloudWatchDatum } from '@aws-sdk/client-cloudwatch';
import type { MetricDatum } from '../../domain/metric.ts';
import type { MetricsSink } from '../../ports/notify.ts';
import { chunks } from '../../support/concurrency.ts';
import { awsCall } from './errors.ts';

/** PutMetricData's limit of datums per call. */
export const PUT_METRIC_DATA_SIZE = 1000;

export class CloudWatchMetricsSink implements MetricsSink {
  readonly #client: CloudWatchClient;
  readonly #namespace: string;

  /** `namespace`: the composition root passes config's METRICS_NAMESPACE (adapters read no config). */
  constructor(client: CloudWatchClient, namespace: string) {
    this.#client = client;
    this.#namespace = namespace;
  }

  async put(datums: readonly MetricDatum[], timestamp: Date): Promise<void> {
    const metricData = datums.filter((d) => Number.isFinite(d.value)).map((d) => cloudWatchDatum(d, timestamp));
    for (const chunk of chunks(metricData, PUT_METRIC_DATA_SIZE)) {
      await awsCall('PutMetricData', () =>
        this.#client.send(new PutMetricDataCommand({ Namespace: this.#namespace, MetricData: chunk })),
      );
    }
  }
}

function cloudWatchDatum(datum: MetricDatum, timestamp: Date): CloudWatchDatum {
  return {
    MetricName: datum.name,
    Unit: datum.unit,
    Value: datum.value,
    // Sorted, so one series is always written with its dimensions in one order (easier to read and diff).
    Dimensions: Object.entries(datum.dimensions)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([Name, Value]) => ({ Name, Value })),
    Timestamp: timestamp,
  };
}
