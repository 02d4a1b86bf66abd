/**
 * In-memory alert topic, metrics and scan queue: they record what the service sent, for local
 * invokes (printed) and tests (asserted). `failNext` makes the next call reject, as a throttled or
 * unreachable AWS API would.
 */
import type { Alert } from '../../domain/alert.ts';
import type { MetricDatum } from '../../domain/metric.ts';
import type { AlertPublisher, MetricsSink, ScanQueue, ScanRequest } from '../../ports/notify.ts';

class Recorder {
  failNext: Error | undefined;
  protected takeFailure(): void {
    const failure = this.failNext;
    this.failNext = undefined;
    if (failure) throw failure;
  }
}

export class RecordingAlertPublisher extends Recorder implements AlertPublisher {
  readonly published: Alert[] = [];
  async publish(alerts: readonly Alert[]): Promise<void> {
    this.takeFailure();
    this.published.push(...alerts);
  }
}

export class RecordingMetricsSink extends Recorder implements MetricsSink {
  /** One entry per `put` call: the service promises one call per invocation. */
  readonly calls: { datums: MetricDatum[]; timestamp: Date }[] = [];
  async put(datums: readonly MetricDatum[], timestamp: Date): Promise<void> {
    this.takeFailure();
    this.calls.push({ datums: [...datums], timestamp });
  }
  get datums(): MetricDatum[] {
    return this.calls.flatMap((c) => c.datums);
  }
}

export class RecordingScanQueue extends Recorder implements ScanQueue {
  readonly sent: ScanRequest[] = [];
  async send(requests: readonly ScanRequest[]): Promise<void> {
    this.takeFailure();
    this.sent.push(...requests);
  }
}
