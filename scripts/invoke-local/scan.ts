/**
 * `scan` over a simulated cluster: every cluster a record asks for is served by the capture (a
 * real HTTPS Kubernetes API on 127.0.0.1 and in-memory AWS), renamed to it when the names differ.
 */
import type { SQSEvent } from 'aws-lambda';
import { RecordingAlertPublisher } from '../../src/adapters/memory/outputs.ts';
import { InMemoryStateStore } from '../../src/adapters/memory/state.ts';
import { readScanConfig } from '../../src/config.ts';
import { createScanHandler } from '../../src/service/handlers/scan.ts';
import { simulatedSources, simulateSnapshot, type Simulation } from '../../src/simulator/simulation.ts';
import { NO_WAIT_CLOCK } from '../../test/support/clock.ts';
import {
  captureAs,
  loadCapture,
  PLACEHOLDER_ENV,
  localMetrics,
  deployedHooks,
  type LocalFunction,
  type LocalSetup,
} from './local.ts';
import { scanEffectiveConfiguration } from '../../src/service/compose/effective-config.ts';

export async function localScan(setup: LocalSetup): Promise<LocalFunction> {
  const settings = readScanConfig(PLACEHOLDER_ENV);
  const capture = await loadCapture(setup.capture);
  const notes = [...capture.notices];
  const alerts = new RecordingAlertPublisher();
  const metrics = localMetrics(setup.logger, setup.logLine);
  const simulations = new Map<string, Promise<Simulation>>();

  const simulationOf = (cluster: string): Promise<Simulation> => {
    let simulation = simulations.get(cluster);
    if (!simulation) {
      const own = capture.snapshot.clusterName;
      if (own !== cluster) notes.push(`cluster ${cluster} is served by the capture ${capture.label} (cluster ${own}), renamed`);
      simulation = simulateSnapshot(captureAs(capture.snapshot, cluster), { kube: { clock: NO_WAIT_CLOCK } });
      simulations.set(cluster, simulation);
    }
    return simulation;
  };

  const handler = createScanHandler({
    settings,
    connect: async (cluster) => {
      const simulation = await simulationOf(cluster);
      return { ...simulation.connection, sources: simulatedSources(simulation.seed) };
    },
    state: new InMemoryStateStore(),
    alerts,
    metrics: metrics.sink,
    clock: setup.clock,
    logger: setup.logger,
    ...deployedHooks(setup, scanEffectiveConfiguration(settings, setup.logging), settings.warnings),
  });
  return {
    invoke: (event, context) => handler(event as SQSEvent, context),
    outputs: () => ({ alerts: alerts.published, metrics: metrics.datums(), emf: metrics.emf(), notes }),
    close: async () => {
      const started = await Promise.allSettled(simulations.values());
      await Promise.all(started.map((s) => (s.status === 'fulfilled' ? s.value.close() : undefined)));
    },
  };
}
