/**
 * `interruptions` over the capture's EC2 instances. The state table starts with the controller
 * status a scan of the capture would have saved: the deployed scan saves it when it changes, every
 * minute while the controller is unavailable, and at least hourly (docs/service.md, "State round trips").
 */
import type { SQSEvent } from 'aws-lambda';
import { RecordingAlertPublisher } from '../../src/adapters/memory/outputs.ts';
import { InMemoryStateStore } from '../../src/adapters/memory/state.ts';
import { readInterruptionsConfig } from '../../src/config.ts';
import type { StateStore } from '../../src/ports/state.ts';
import { createInterruptionsHandler } from '../../src/service/handlers/interruptions.ts';
import { inMemoryAws } from '../../src/simulator/in-memory-aws.ts';
import { controllerStatusOf } from '../../src/usecases/controller-status.ts';
import { CLUSTER_STATUS_TTL_MS } from '../../src/usecases/scan-service.ts';
import { loadCapture, PLACEHOLDER_ENV, localMetrics, deployedHooks, type LocalFunction, type LocalSetup } from './local.ts';
import { interruptionsEffectiveConfiguration } from '../../src/service/compose/effective-config.ts';
import { interruptionSettings } from '../../src/usecases/handle-interruptions.ts';

export async function localInterruptions(setup: LocalSetup): Promise<LocalFunction> {
  const config = readInterruptionsConfig(PLACEHOLDER_ENV);
  const capture = await loadCapture(setup.capture);
  const aws = inMemoryAws(capture.snapshot);
  const state: StateStore = new InMemoryStateStore();
  const status = controllerStatusOf(capture.snapshot, setup.clock.now());
  await state.saveClusterStatus(status, CLUSTER_STATUS_TTL_MS);
  const alerts = new RecordingAlertPublisher();
  const metrics = localMetrics(setup.logger, setup.logLine);
  const handler = createInterruptionsHandler({
    ec2: aws.ec2,
    state,
    alerts,
    metrics: metrics.sink,
    clock: setup.clock,
    logger: setup.logger,
    ...deployedHooks(setup, interruptionsEffectiveConfiguration(config, setup.logging)),
    settings: interruptionSettings(config),
  });
  const notes = () => {
    const calls = aws.callsTo('DescribeInstances');
    const asked = calls.flatMap((c) => (c.input.query as { instanceIds?: string[] }).instanceIds ?? []);
    const unknown = [...new Set(asked)].filter((id) => !aws.state.instances.has(id));
    return [
      ...capture.notices,
      `controller status of cluster ${status.cluster} (from the capture): ${status.controller}`,
      `EC2 DescribeInstances calls: ${calls.length}`,
      ...(unknown.length > 0
        ? [`not in the capture ${capture.label}, so of no Karpenter cluster (counted, not alerted): ${unknown.join(', ')}`]
        : []),
    ];
  };
  return {
    invoke: (event, context) => handler(event as SQSEvent, context),
    outputs: () => ({ alerts: alerts.published, metrics: metrics.datums(), emf: metrics.emf(), notes: notes() }),
    close: async () => undefined,
  };
}
