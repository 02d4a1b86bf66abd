/** `scan-dispatch` over the capture's account: ListClusters / DescribeCluster answer with its one cluster. */
import type { ScheduledEvent } from 'aws-lambda';
import { RecordingScanQueue } from '../../src/adapters/memory/outputs.ts';
import { readDispatchConfig } from '../../src/config.ts';
import { createScanDispatchHandler } from '../../src/service/handlers/scan-dispatch.ts';
import { dispatchSettings } from '../../src/usecases/dispatch-scans.ts';
import { inMemoryAws } from '../../src/simulator/in-memory-aws.ts';
import { loadCapture, PLACEHOLDER_ENV, deployedHooks, type LocalFunction, type LocalSetup } from './local.ts';
import { dispatchEffectiveConfiguration } from '../../src/service/compose/effective-config.ts';

export async function localScanDispatch(setup: LocalSetup): Promise<LocalFunction> {
  const config = readDispatchConfig({
    ...PLACEHOLDER_ENV,
    ...(setup.clusters !== undefined ? { CLUSTERS: setup.clusters } : {}),
  });
  const capture = await loadCapture(setup.capture);
  const notes = [...capture.notices];
  const aws = inMemoryAws(capture.snapshot);
  const queue = new RecordingScanQueue();
  const handler = createScanDispatchHandler({
    eks: aws.eks,
    queue,
    clock: setup.clock,
    logger: setup.logger,
    ...deployedHooks(setup, dispatchEffectiveConfiguration(config, setup.logging)),
    settings: dispatchSettings(config),
  });
  const cluster = capture.snapshot.cluster;
  const { key, value } = config.optInTag;
  if (config.clusters) notes.push('CLUSTERS is set (--clusters): checked against ListClusters, no DescribeCluster');
  else if (cluster && cluster.tags?.[key] !== value)
    notes.push(
      `cluster ${cluster.name} of ${capture.label} lacks the opt-in tag ${key}=${value}: pass --clusters NAME,... to queue it`,
    );
  return {
    invoke: (event, context) => handler(event as ScheduledEvent, context),
    outputs: () => ({ queued: queue.sent, notes }),
    close: async () => undefined,
  };
}
