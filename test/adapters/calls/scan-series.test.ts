/**
 * What the API call metrics cost: a scan of a simulated cluster (its Kubernetes API over HTTPS, its
 * AWS in memory), measured as src/service/compose/scan.ts wires the decorator, and the CloudWatch
 * series its EMF lines create. docs/service.md ("API call metrics") states these numbers.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { EmfMetricsSink, type EmfDocument } from '../../../src/adapters/aws/emf-metrics.ts';
import { ApiCallMeter, withApiCallMetrics } from '../../../src/adapters/calls/api-call-metrics.ts';
import { measuredAwsPorts } from '../../../src/adapters/aws/measured-aws.ts';
import { measuredKubernetes } from '../../../src/adapters/kubernetes/measured-kubernetes.ts';
import { InMemoryStateStore } from '../../../src/adapters/memory/state.ts';
import { RecordingAlertPublisher } from '../../../src/adapters/memory/outputs.ts';
import { readScanConfig } from '../../../src/config.ts';
import { simulatedSources, startSimulation } from '../../../src/simulator/simulation.ts';
import { jsonLogger } from '../../../src/support/logger.ts';
import { scanBatch, type ScanServiceDependencies } from '../../../src/usecases/scan-service.ts';
import { NO_WAIT_CLOCK } from '../../support/clock.ts';
import { closedAfterEachTest } from '../../support/simulation.ts';

const NOW = new Date('2026-01-01T01:00:05Z');
const running = closedAfterEachTest();
const EXAMPLE = fileURLToPath(new URL('../../../examples/healthy', import.meta.url));

/** The series (metric name and dimension values) the EMF lines create, as `Name{Dim=value,...}`. */
function seriesOf(lines: readonly string[]): string[] {
  const series = new Set<string>();
  for (const document of lines.map((line) => JSON.parse(line) as EmfDocument)) {
    for (const { Dimensions, Metrics } of document._aws.CloudWatchMetrics) {
      const values = Dimensions[0]!.map((name) => `${name}=${String(document[name])}`).join(',');
      for (const { Name } of Metrics) series.add(`${Name}{${values}}`);
    }
  }
  return [...series].sort();
}

async function scanClusters(clusters: readonly string[], allSources = false): Promise<string[]> {
  const simulation = await startSimulation([EXAMPLE], { kube: { clock: NO_WAIT_CLOCK } });
  running.push(simulation);
  const meter = new ApiCallMeter();
  const lines: string[] = [];
  const deps = {
    settings: readScanConfig({
      AWS_REGION: 'eu-west-1',
      STATE_TABLE: 'state',
      ALERT_TOPIC_ARN: 'arn:aws:sns:eu-west-1:111122223333:karpenter-sentinel-alerts',
      ROLLOUT_RESTART_MODE: 'dry-run',
    }),
    connect: async () => ({
      aws: measuredAwsPorts(simulation.connection.aws, meter),
      connectKube: async (cluster) => measuredKubernetes(await simulation.connection.connectKube(cluster), meter),
      ...(allSources ? {} : { sources: simulatedSources(simulation.seed) }),
    }),
    state: new InMemoryStateStore(),
    alerts: new RecordingAlertPublisher(),
    metrics: withApiCallMetrics(new EmfMetricsSink('KarpenterSentinel', { write: (line) => lines.push(line) }), meter),
    clock: { now: () => NOW, sleep: async () => undefined },
    logger: jsonLogger({}, () => undefined),
  } satisfies ScanServiceDependencies;
  const deliveries = clusters.map((cluster, i) => ({
    messageId: `m-${i}`,
    body: JSON.stringify({ cluster, requestedAt: '2026-01-01T01:00:00Z' }),
    receiveCount: 1,
  }));
  await scanBatch(deps, deliveries, { claimHoldMs: 90_000, invocationId: 'invocation-1' });
  return seriesOf(lines).filter((s) => s.startsWith('ApiCall'));
}

/** The APIs of the series, each once. */
const apisOf = (series: readonly string[]) => [...new Set(series.map((s) => /Api=([^,}]+)/.exec(s)?.[1]))].sort();

describe('the API call series of a scan', () => {
  it('one duration per API and one count per API and outcome, the same for three clusters as for one', async () => {
    const one = await scanClusters(['aws-2026-eks']);
    const three = await scanClusters(['aws-2026-eks', 'aws-2026-eks', 'aws-2026-eks']);

    // The capture's 19 sources, every call answered: 19 counts (all `ok`) and 19 durations.
    expect(one.filter((s) => s.startsWith('ApiCalls{') && s.endsWith(',Outcome=ok}'))).toHaveLength(19);
    expect(one.filter((s) => s.startsWith('ApiCallDurationMs{'))).toHaveLength(19);
    expect(one).toHaveLength(38);
    expect(three).toEqual(one);
  });

  it('a scan reading every source calls 8 AWS APIs (no Spot prices: nothing runs on Spot) and 16 Kubernetes ones (no Karpenter webhook, so no EndpointSlices), each a fixed name', async () => {
    const apis = apisOf(await scanClusters(['aws-2026-eks'], true));

    expect(apis).toEqual([
      'ec2:DescribeInstanceTypes',
      'ec2:DescribeInstances',
      'ec2:DescribeLaunchTemplates',
      'ec2:DescribeSubnets',
      'eks:DescribeCluster',
      'eks:ListAccessEntries+DescribeAccessEntry',
      'eks:ListFargateProfiles+DescribeFargateProfile',
      'iam:ListInstanceProfiles+ListInstanceProfileTags',
      'k8s:get customresourcedefinitions',
      'k8s:get pods/log',
      'k8s:list configmaps',
      'k8s:list deployments',
      'k8s:list ec2nodeclasses',
      'k8s:list events',
      'k8s:list mutatingwebhookconfigurations',
      'k8s:list nodeclaims',
      'k8s:list nodepools',
      'k8s:list nodes',
      'k8s:list poddisruptionbudgets',
      'k8s:list pods',
      'k8s:list replicasets',
      'k8s:list services',
      'k8s:list validatingwebhookconfigurations',
      'k8s:list volumeattachments',
    ]);
  });
});
