import { CloudWatchClient, PutMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { CloudWatchMetricsSink } from '../../../src/adapters/aws/cloudwatch.ts';
import { METRICS_NAMESPACE } from '../../../src/config.ts';
import { METRIC, type MetricDatum } from '../../../src/domain/metric.ts';
import { SourceError } from '../../../src/ports/errors.ts';

const client = new CloudWatchClient({ region: 'us-east-1', credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'x' } });
const cloudwatch = mockClient(client);
afterEach(() => cloudwatch.reset());

const NOW = new Date('2026-03-02T10:00:00Z');
const pending = (cluster: string, value: number): MetricDatum => ({
  name: METRIC.pendingPods,
  unit: 'Count',
  value,
  dimensions: { Cluster: cluster },
});
const sent = () => cloudwatch.commandCalls(PutMetricDataCommand).map((call) => call.args[0].input);

describe('CloudWatchMetricsSink', () => {
  it('sends the datums in the service namespace with names, units, sorted dimensions and the invocation time', async () => {
    // Prepare
    cloudwatch.on(PutMetricDataCommand).resolves({});
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
    ];

    // Act
    await new CloudWatchMetricsSink(client, METRICS_NAMESPACE).put(datums, NOW);

    // Assess
    expect(sent()).toEqual([
      {
        Namespace: METRICS_NAMESPACE,
        MetricData: [
          {
            MetricName: 'PendingPods',
            Unit: 'Count',
            Value: 7,
            Dimensions: [{ Name: 'Cluster', Value: 'prod' }],
            Timestamp: NOW,
          },
          {
            MetricName: 'OldestPendingPodAgeSeconds',
            Unit: 'Seconds',
            Value: 420,
            Dimensions: [{ Name: 'Cluster', Value: 'prod' }],
            Timestamp: NOW,
          },
          {
            MetricName: 'Remediations',
            Unit: 'Count',
            Value: 1,
            Dimensions: [
              { Name: 'Action', Value: 'ROLLOUT_RESTART' },
              { Name: 'Cluster', Value: 'prod' },
              { Name: 'Outcome', Value: 'applied' },
            ],
            Timestamp: NOW,
          },
          {
            MetricName: 'ScanDurationMs',
            Unit: 'Milliseconds',
            Value: 1834.5,
            Dimensions: [{ Name: 'Cluster', Value: 'prod' }],
            Timestamp: NOW,
          },
        ],
      },
    ]);
  });

  it('uses the namespace it was given', async () => {
    // Prepare
    cloudwatch.on(PutMetricDataCommand).resolves({});

    // Act
    await new CloudWatchMetricsSink(client, 'KarpenterSentinel/Test').put([pending('prod', 1)], NOW);

    // Assess
    expect(sent().map((input) => input.Namespace)).toEqual(['KarpenterSentinel/Test']);
  });

  it.each([
    { datums: 0, calls: [] },
    { datums: 1, calls: [1] },
    { datums: 1000, calls: [1000] },
    { datums: 1001, calls: [1000, 1] },
    { datums: 2500, calls: [1000, 1000, 500] },
  ])('sends $datums datums in $calls.length call(s) (1,000 per call at most)', async ({ datums, calls }) => {
    // Prepare
    cloudwatch.on(PutMetricDataCommand).resolves({});
    const many = Array.from({ length: datums }, (_, i) => pending(`cluster-${i}`, i));

    // Act
    await new CloudWatchMetricsSink(client, METRICS_NAMESPACE).put(many, NOW);

    // Assess
    expect(sent().map((input) => input.MetricData?.length)).toEqual(calls);
    expect(
      sent()
        .flatMap((input) => input.MetricData ?? [])
        .map((d) => d.Value),
    ).toEqual(many.map((d) => d.value));
  });

  it('leaves out values CloudWatch cannot store (NaN, infinite) and sends the rest', async () => {
    // Prepare
    cloudwatch.on(PutMetricDataCommand).resolves({});

    // Act
    await new CloudWatchMetricsSink(client, METRICS_NAMESPACE).put(
      [pending('a', Number.NaN), pending('b', 3), pending('c', Number.POSITIVE_INFINITY), pending('d', 0)],
      NOW,
    );
    await new CloudWatchMetricsSink(client, METRICS_NAMESPACE).put([pending('a', Number.NaN)], NOW);

    // Assess
    expect(sent()).toHaveLength(1);
    expect(sent()[0]?.MetricData?.map((d) => [d.Dimensions?.[0]?.Value, d.Value])).toEqual([
      ['b', 3],
      ['d', 0],
    ]);
  });

  it('rejects with a SourceError naming PutMetricData when CloudWatch refuses', async () => {
    // Prepare
    cloudwatch
      .on(PutMetricDataCommand)
      .rejects(Object.assign(new Error('User is not authorized to perform: cloudwatch:PutMetricData'), { name: 'AccessDenied' }));

    // Act
    const putting = new CloudWatchMetricsSink(client, METRICS_NAMESPACE).put([pending('prod', 1)], NOW);

    // Assess
    await expect(putting).rejects.toThrow(SourceError);
    await expect(putting).rejects.toThrow(/^PutMetricData failed: AccessDenied: User is not authorized/);
  });
});
