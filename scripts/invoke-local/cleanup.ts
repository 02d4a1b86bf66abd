/**
 * `cleanup` over a simulated account and cluster: the capture's EC2 instances, launch templates and
 * instance profiles in memory, its cluster on a real HTTPS Kubernetes API on 127.0.0.1 with a
 * simulated Karpenter that drains deleted NodePools. The capture is not renamed: a request for
 * another cluster finds that cluster gone and only what the captured account holds tagged for it.
 */
import { readCleanupConfig } from '../../src/config.ts';
import { createCleanupHandler } from '../../src/service/handlers/cleanup.ts';
import { AWS_WRITE_OPERATIONS } from '../../src/simulator/in-memory-aws.ts';
import { simulateSnapshot } from '../../src/simulator/simulation.ts';
import { NO_WAIT_CLOCK } from '../../test/support/clock.ts';
import { loadCapture, PLACEHOLDER_ENV, deployedHooks, type LocalFunction, type LocalSetup } from './local.ts';
import { cleanupEffectiveConfiguration } from '../../src/service/compose/effective-config.ts';

/** serverless.yml's timeout for cleanup: the remaining time the local context starts with. */
export const CLEANUP_TIMEOUT_MS = 900_000;

export async function localCleanup(setup: LocalSetup): Promise<LocalFunction> {
  const config = readCleanupConfig(PLACEHOLDER_ENV);
  const capture = await loadCapture(setup.capture);
  const simulation = await simulateSnapshot(capture.snapshot, { kube: { clock: NO_WAIT_CLOCK }, clock: setup.clock });
  const notes = [...capture.notices];
  const handler = createCleanupHandler({
    connection: simulation.connection,
    clock: setup.clock,
    logger: setup.logger,
    ...deployedHooks(setup, cleanupEffectiveConfiguration(config, setup.logging)),
    // A stack serving the captured cluster (serverless.yml `clusters`): a real run for another is refused, as deployed.
    settings: { ...config, clusters: config.clusters ?? [capture.snapshot.clusterName] },
  });
  return {
    timeoutMs: CLEANUP_TIMEOUT_MS,
    invoke: (event, context) => {
      const asked = (event as { clusterName?: unknown }).clusterName;
      const own = capture.snapshot.clusterName;
      if (typeof asked === 'string' && asked !== own)
        notes.push(
          `cluster ${asked} is not the cluster of ${capture.label} (${own}): it is gone here, but the account's records are searched for it`,
        );
      return handler(event, context);
    },
    outputs: () => ({
      notes: [...notes, ...AWS_WRITE_OPERATIONS.map((op) => `AWS ${op} calls: ${simulation.aws.callsTo(op).length}`)],
    }),
    close: () => simulation.close(),
  };
}
