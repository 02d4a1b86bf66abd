/**
 * The metrics of the AWS and Kubernetes calls a function makes, declared beside the decorator
 * that measures them (measured-ports.ts), as Karpenter declares its cloud provider's metrics beside
 * its decorator. A call is one port method (a paginated listing is one call), counted by its API and
 * outcome, timed by its API: enough to tell a slow API (duration up, outcomes `ok`) from a throttled
 * one (`throttled`) or a refused one (`access-denied`). docs/service.md, "API call metrics", gives
 * the series and what they cost.
 */
import type { MetricDatum } from '../../domain/metric.ts';
import type { Clock } from '../../ports/clock.ts';
import type { MetricsSink } from '../../ports/notify.ts';
import { errorFields, type Logger } from '../../support/logger.ts';

export const API_CALL_METRIC = {
  /** Count, dimensions Api and Outcome: one per port call. */
  calls: 'ApiCalls',
  /** Milliseconds, dimension Api only: one value per call, so CloudWatch's percentiles hold per API. */
  duration: 'ApiCallDurationMs',
  /** Count, dimension Api only: attempts retried inside the calls (call-retries.ts); sent only when some were. */
  retries: 'ApiCallRetries',
} as const;

/**
 * How a call ended. Errors are sorted by the classifiers that already read them (awsCallOutcome in
 * ../aws/errors.ts, kubeCallOutcome in ../kubernetes/kube-errors.ts); a kind they do not name is `other`.
 */
export type ApiCallOutcome = 'ok' | 'throttled' | 'access-denied' | 'not-found' | 'timeout' | 'network' | 'other';

/** Durations kept per API until a drain: a meter that is not drained (a flush cut short) must not grow without end (the counts still count). */
const MAX_DURATIONS_PER_API = 1_000;

/**
 * Collects an invocation's measured calls; `drain` hands them over as datums once. One invocation at
 * a time runs in a Lambda environment, so one meter per function (built at cold start) is enough.
 */
export class ApiCallMeter {
  readonly #counts = new Map<string, { api: string; outcome: ApiCallOutcome; calls: number }>();
  readonly #durations = new Map<string, number[]>();
  readonly #retries = new Map<string, number>();

  record(api: string, outcome: ApiCallOutcome, durationMs: number, retries = 0): void {
    const key = `${api}\n${outcome}`;
    const count = this.#counts.get(key) ?? { api, outcome, calls: 0 };
    count.calls += 1;
    this.#counts.set(key, count);
    const durations = this.#durations.get(api) ?? [];
    if (durations.length < MAX_DURATIONS_PER_API) durations.push(Math.round(durationMs));
    this.#durations.set(api, durations);
    if (retries > 0) this.#retries.set(api, (this.#retries.get(api) ?? 0) + retries);
  }

  /** The calls since the last drain as datums (one count per API and outcome, one duration per call, the retries per API), and forgets them. */
  drain(): MetricDatum[] {
    const datums: MetricDatum[] = [];
    for (const { api, outcome, calls } of this.#counts.values()) {
      datums.push({ name: API_CALL_METRIC.calls, unit: 'Count', value: calls, dimensions: { Api: api, Outcome: outcome } });
    }
    for (const [api, durations] of this.#durations) {
      for (const value of durations) {
        datums.push({ name: API_CALL_METRIC.duration, unit: 'Milliseconds', value, dimensions: { Api: api } });
      }
    }
    for (const [api, retries] of this.#retries) {
      datums.push({ name: API_CALL_METRIC.retries, unit: 'Count', value: retries, dimensions: { Api: api } });
    }
    this.#counts.clear();
    this.#durations.clear();
    this.#retries.clear();
    return datums;
  }
}

/**
 * A metrics sink that sends the meter's calls along with the datums the use case puts (scan,
 * interruptions): one write, one timestamp, no change to the use case. What is measured after that
 * put, or in an invocation that puts nothing, goes out with `apiCallFlush` at the invocation's end.
 */
export function withApiCallMetrics(sink: MetricsSink, meter: ApiCallMeter): MetricsSink {
  return { put: (datums, timestamp) => sink.put([...datums, ...meter.drain()], timestamp) };
}

/**
 * The function's `afterInvocation` hook (src/service/middleware.ts): the calls the invocation made
 * and no put has sent yet, written to `sink` once the handler answered or failed. Every function
 * that calls AWS or Kubernetes has one, so no call waits for a later invocation; a sink that fails
 * is one `metrics not written` warning, as for the use cases' own datums.
 */
export function apiCallFlush(
  meter: ApiCallMeter,
  sink: MetricsSink,
  options: { clock: Clock; logger: Pick<Logger, 'warn'> },
): () => Promise<void> {
  return async () => {
    const datums = meter.drain();
    if (datums.length === 0) return;
    try {
      await sink.put(datums, options.clock.now());
    } catch (error) {
      options.logger.warn('metrics not written', { datums: datums.length, ...errorFields(error) });
    }
  };
}
