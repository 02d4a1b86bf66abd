/**
 * Metrics as CloudWatch Embedded Metric Format: one JSON document per line on stdout, which the
 * Lambda log stream hands to CloudWatch, which extracts the metrics. No API call, no IAM grant, no
 * latency: writing a line is synchronous.
 *
 * A document holds one value per dimension name (the values are top-level keys), so the datums are
 * grouped by their exact dimensions: one line per group, a metric's datums as an array of values.
 * EMF's limits: at most 100 metrics per document and 100 values per metric (past them, more lines),
 * 30 dimensions per set. A NaN or infinite value, or a datum past the dimension limit, cannot be
 * stored: it is left out with a warning (a missing point on a graph, every other datum kept).
 */
import type { MetricDatum, MetricUnit } from '../../domain/metric.ts';
import type { MetricsSink } from '../../ports/notify.ts';
import type { Logger } from '../../support/logger.ts';

/** EMF's limits (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Embedded_Metric_Format_Specification.html). */
export const EMF_MAX_METRICS = 100;
const EMF_MAX_VALUES = 100;
const EMF_MAX_DIMENSIONS = 30;

export type LineWriter = (line: string) => void;

/** One EMF document, as written (one per line). */
export interface EmfDocument {
  _aws: {
    Timestamp: number;
    CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: MetricUnit }[] }[];
  };
  [key: string]: unknown;
}

export interface EmfMetricsSinkOptions {
  /** Where each line goes; default stdout (Lambda's log stream). */
  write?: LineWriter;
  /** Told about each datum left out. */
  logger?: Pick<Logger, 'warn'>;
}

export class EmfMetricsSink implements MetricsSink {
  readonly #namespace: string;
  readonly #write: LineWriter;
  readonly #logger: Pick<Logger, 'warn'> | undefined;

  /** `namespace`: the composition root passes config's METRICS_NAMESPACE (adapters read no config). */
  constructor(namespace: string, options: EmfMetricsSinkOptions = {}) {
    this.#namespace = namespace;
    this.#write = options.write ?? ((line) => process.stdout.write(`${line}\n`));
    this.#logger = options.logger;
  }

  async put(datums: readonly MetricDatum[], timestamp: Date): Promise<void> {
    const { documents, dropped } = emfDocuments(this.#namespace, datums, timestamp);
    for (const { datum, reason } of dropped) {
      this.#logger?.warn('metric datum left out', { metric: datum.name, value: String(datum.value), reason });
    }
    for (const document of documents) this.#write(JSON.stringify(document));
  }
}

interface Group {
  dimensions: [string, string][];
  /** Metric name → its unit and values, in the order first seen. */
  metrics: Map<string, { unit: MetricUnit; values: number[] }>;
}

/** The datums as EMF documents (grouped by dimensions, in the order first seen), and those that cannot be. */
function emfDocuments(
  namespace: string,
  datums: readonly MetricDatum[],
  timestamp: Date,
): { documents: EmfDocument[]; dropped: { datum: MetricDatum; reason: string }[] } {
  const dropped: { datum: MetricDatum; reason: string }[] = [];
  const groups = new Map<string, Group>();
  for (const datum of datums) {
    // Sorted, so one series is always written with its dimensions in one order.
    const dimensions = Object.entries(datum.dimensions).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const reason = problemOf(datum, dimensions);
    if (reason) {
      dropped.push({ datum, reason });
      continue;
    }
    const key = JSON.stringify(dimensions);
    const group = groups.get(key) ?? { dimensions, metrics: new Map() };
    groups.set(key, group);
    const metric = group.metrics.get(datum.name) ?? { unit: datum.unit, values: [] };
    if (metric.unit !== datum.unit) {
      dropped.push({ datum, reason: `unit ${datum.unit} differs from the ${metric.unit} of the same series` });
      continue;
    }
    metric.values.push(datum.value);
    group.metrics.set(datum.name, metric);
  }
  const documents: EmfDocument[] = [];
  for (const group of groups.values()) {
    for (const chunk of documentChunks(group)) {
      const document: EmfDocument = {
        _aws: {
          Timestamp: timestamp.getTime(),
          CloudWatchMetrics: [
            {
              Namespace: namespace,
              Dimensions: [group.dimensions.map(([name]) => name)],
              Metrics: chunk.map(([name, { unit }]) => ({ Name: name, Unit: unit })),
            },
          ],
        },
      };
      for (const [name, value] of group.dimensions) document[name] = value;
      for (const [name, { values }] of chunk) document[name] = values.length === 1 ? values[0] : values;
      documents.push(document);
    }
  }
  return { documents, dropped };
}

function problemOf(datum: MetricDatum, dimensions: readonly [string, string][]): string | undefined {
  if (!Number.isFinite(datum.value)) return 'not a finite number';
  if (dimensions.length > EMF_MAX_DIMENSIONS) return `more than ${EMF_MAX_DIMENSIONS} dimensions`;
  // The document's top-level keys are the dimensions and the metrics: a clash would make one unreadable.
  if (datum.name === '_aws' || dimensions.some(([name]) => name === datum.name || name === '_aws'))
    return 'a dimension and the metric share a name';
  return undefined;
}

/** At most EMF_MAX_METRICS metrics per document and EMF_MAX_VALUES values per metric. */
function documentChunks(group: Group): [string, { unit: MetricUnit; values: number[] }][][] {
  const pieces: [string, { unit: MetricUnit; values: number[] }][][] = [];
  let round = 0;
  for (;;) {
    // Round r holds each metric's values r*100 … r*100+99: a metric with more spans several documents.
    const entries = [...group.metrics.entries()].flatMap(([name, metric]) => {
      const values = metric.values.slice(round * EMF_MAX_VALUES, (round + 1) * EMF_MAX_VALUES);
      return values.length > 0 ? [[name, { unit: metric.unit, values }] as [string, { unit: MetricUnit; values: number[] }]] : [];
    });
    if (entries.length === 0) return pieces;
    for (let i = 0; i < entries.length; i += EMF_MAX_METRICS) pieces.push(entries.slice(i, i + EMF_MAX_METRICS));
    round += 1;
  }
}
