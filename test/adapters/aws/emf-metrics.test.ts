import { describe, expect, it } from 'vitest';
import { EMF_MAX_METRICS, EmfMetricsSink, type EmfDocument } from '../../../src/adapters/aws/emf-metrics.ts';
import { METRICS_NAMESPACE } from '../../../src/config.ts';
import { METRIC, type MetricDatum } from '../../../src/domain/metric.ts';
import { jsonLogger } from '../../../src/support/logger.ts';

const NOW = new Date('2026-03-02T10:00:00Z');
const pending = (cluster: string, value: number): MetricDatum => ({
  name: METRIC.pendingPods,
  unit: 'Count',
  value,
  dimensions: { Cluster: cluster },
});

function sink(namespace = METRICS_NAMESPACE) {
  const lines: string[] = [];
  const logs: Record<string, unknown>[] = [];
  const logger = jsonLogger({}, (line) => logs.push(JSON.parse(line) as Record<string, unknown>));
  const emf = new EmfMetricsSink(namespace, { write: (line) => lines.push(line), logger });
  return { emf, lines, logs, documents: () => lines.map((line) => JSON.parse(line) as EmfDocument) };
}

describe('EmfMetricsSink', () => {
  it('writes one EMF line per dimension set: namespace, names, units, sorted dimensions and the invocation time', async () => {
    // Prepare
    const { emf, lines, documents } = sink();
    const datums: MetricDatum[] = [
      pending('prod', 7),
      { name: METRIC.oldestPendingPodAge, unit: 'Seconds', value: 420, dimensions: { Cluster: 'prod' } },
      {
        name: METRIC.remediations,
        unit: 'Count',
        value: 1,
        dimensions: { Outcome: 'applied', Cluster: 'prod', Action: 'ROLLOUT_RESTART' },
      },
      { name: METRIC.scanDuration, unit: 'Milliseconds', value: 1834.5, dimensions: { Cluster: 'prod' } },
      { name: METRIC.clustersScanned, unit: 'Count', value: 1, dimensions: {} },
    ];

    // Act
    await emf.put(datums, NOW);

    // Assess
    expect(lines.every((line) => !line.includes('\n'))).toBe(true);
    expect(documents()).toEqual([
      {
        _aws: {
          Timestamp: NOW.getTime(),
          CloudWatchMetrics: [
            {
              Namespace: METRICS_NAMESPACE,
              Dimensions: [['Cluster']],
              Metrics: [
                { Name: 'PendingPods', Unit: 'Count' },
                { Name: 'OldestPendingPodAgeSeconds', Unit: 'Seconds' },
                { Name: 'ScanDurationMs', Unit: 'Milliseconds' },
              ],
            },
          ],
        },
        Cluster: 'prod',
        PendingPods: 7,
        OldestPendingPodAgeSeconds: 420,
        ScanDurationMs: 1834.5,
      },
      {
        _aws: {
          Timestamp: NOW.getTime(),
          CloudWatchMetrics: [
            {
              Namespace: METRICS_NAMESPACE,
              Dimensions: [['Action', 'Cluster', 'Outcome']],
              Metrics: [{ Name: 'Remediations', Unit: 'Count' }],
            },
          ],
        },
        Action: 'ROLLOUT_RESTART',
        Cluster: 'prod',
        Outcome: 'applied',
        Remediations: 1,
      },
      {
        _aws: {
          Timestamp: NOW.getTime(),
          CloudWatchMetrics: [
            { Namespace: METRICS_NAMESPACE, Dimensions: [[]], Metrics: [{ Name: 'ClustersScanned', Unit: 'Count' }] },
          ],
        },
        ClustersScanned: 1,
      },
    ]);
  });

  it('keeps two datums of one series as two values (two scan failures are two samples, as with PutMetricData)', async () => {
    // Prepare
    const { emf, documents } = sink('KarpenterSentinel/Test');
    const failure: MetricDatum = { name: METRIC.scanFailures, unit: 'Count', value: 1, dimensions: {} };

    // Act
    await emf.put([failure, failure, pending('a', 1)], NOW);

    // Assess
    expect(documents().map((d) => [d._aws.CloudWatchMetrics[0]?.Namespace, d.ScanFailures ?? d.PendingPods])).toEqual([
      ['KarpenterSentinel/Test', [1, 1]],
      ['KarpenterSentinel/Test', 1],
    ]);
  });

  it('writes at most 100 metrics per line and 100 values per metric', async () => {
    // Prepare
    const { emf, documents } = sink();
    const many: MetricDatum[] = Array.from({ length: EMF_MAX_METRICS + 5 }, (_, i) => ({
      name: `M${i}`,
      unit: 'Count',
      value: i,
      dimensions: { Cluster: 'prod' },
    }));
    const repeated: MetricDatum[] = Array.from({ length: 150 }, () => pending('big', 1));

    // Act
    await emf.put([...many, ...repeated], NOW);

    // Assess
    const docs = documents();
    expect(docs.map((d) => d._aws.CloudWatchMetrics[0]?.Metrics.length)).toEqual([100, 5, 1, 1]);
    expect(docs.slice(0, 2).flatMap((d) => d._aws.CloudWatchMetrics[0]!.Metrics.map((m) => d[m.Name]))).toEqual(
      many.map((d) => d.value),
    );
    expect([(docs[2]!.PendingPods as number[]).length, (docs[3]!.PendingPods as number[]).length]).toEqual([100, 50]);
  });

  it('leaves out a NaN or infinite value, or too many dimensions, with a warning; the rest is written', async () => {
    // Prepare
    const { emf, documents, logs } = sink();
    const wide: MetricDatum = {
      ...pending('a', 1),
      dimensions: Object.fromEntries(Array.from({ length: 31 }, (_, i) => [`D${i}`, 'x'])),
    };

    // Act
    await emf.put([pending('a', Number.NaN), pending('b', Number.POSITIVE_INFINITY), wide, pending('c', 3)], NOW);

    // Assess
    expect(documents().map((d) => [d.Cluster, d.PendingPods])).toEqual([['c', 3]]);
    expect(logs).toEqual([
      { level: 'warn', message: 'metric datum left out', metric: 'PendingPods', value: 'NaN', reason: 'not a finite number' },
      {
        level: 'warn',
        message: 'metric datum left out',
        metric: 'PendingPods',
        value: 'Infinity',
        reason: 'not a finite number',
      },
      { level: 'warn', message: 'metric datum left out', metric: 'PendingPods', value: '1', reason: 'more than 30 dimensions' },
    ]);
  });

  it('writes nothing for no datums', async () => {
    const { emf, lines } = sink();
    await emf.put([], NOW);
    expect(lines).toEqual([]);
  });
});
