/**
 * The scan function's requests to its state table per scan (docs/service.md, "State round trips"):
 * the deployed handler and use case, the state table over dynalite (a real DynamoDB API on
 * 127.0.0.1) through a client that counts every HTTP request, clusters simulated from examples/.
 * test/functions/scan-round-trips.test.ts holds the same scenarios to their ceilings.
 */
import { countingClient, startLocalDynamo } from '../test/support/dynalite.ts';
import {
  FARGATE,
  HEALTHY,
  minutesAfterTick,
  ORPHANS,
  scanMessage,
  startScanService,
  type ScanService,
} from '../test/functions/scan-harness.ts';

export interface StateRoundTripScenario {
  name: string;
  /** Requests of the scan, by operation. */
  requests: Record<string, number>;
  total: number;
  /** Alerts the scan published. */
  alerts: number;
  /** The same scenario measured the same way on the code before summaries (commit a5cf0ee); absent: not measured there. */
  before?: number;
}

export interface StateRoundTripsBench {
  scenarios: StateRoundTripScenario[];
}

/** Measured on a5cf0ee by this scenario list, before scans read by the lease's summary. */
const BEFORE = { first: 8, quiet: 8, withOpen: 8, oneNew: 9, threeNew: 11 } as const;

export async function measureStateRoundTrips(): Promise<StateRoundTripsBench> {
  const dynamo = await startLocalDynamo();
  try {
    const scenarios: StateRoundTripScenario[] = [];
    /** `prepare`: done to the state table before that step's scan. */
    type Step = { minutes: number; name?: string; before?: number; prepare?: (service: ScanService) => Promise<unknown> };
    const run = async (cluster: string, steps: Step[]) => {
      const { client, sent } = countingClient(dynamo.endpoint);
      const service = await startScanService(dynamo, { clusters: [cluster], dynamoClient: client });
      try {
        for (const { minutes, name, before, prepare } of steps) {
          await prepare?.(service);
          const from = sent.length;
          const published = service.alerts.published.length;
          service.clock.set(minutesAfterTick(minutes, 5));
          const response = await service.invoke(scanMessage(cluster, minutesAfterTick(minutes)));
          if (response.batchItemFailures.length > 0) throw new Error(`the scan of ${cluster} at +${minutes} min failed`);
          if (name === undefined) continue;
          const requests: Record<string, number> = {};
          for (const operation of sent.slice(from)) requests[operation] = (requests[operation] ?? 0) + 1;
          scenarios.push({
            name,
            requests,
            total: sent.length - from,
            alerts: service.alerts.published.length - published,
            ...(before !== undefined ? { before } : {}),
          });
        }
      } finally {
        await service.close();
        client.destroy();
      }
    };
    await run(HEALTHY, [
      { minutes: 0, name: 'first scan of a healthy cluster (no summary yet)', before: BEFORE.first },
      { minutes: 1, name: 'quiet scan: healthy, nothing to alert or act on', before: BEFORE.quiet },
      {
        minutes: 4,
        name: 'taking the lease of a scan whose lease lapsed (no summary: reads everything, leaves none)',
        // A scan took the lease at 1m30s for SCAN_LEASE_DURATION's 2m30s and never released it.
        prepare: (service) => service.state.acquireLease(HEALTHY, 'lapsed-scan', new Date(minutesAfterTick(1, 30)), 150_000),
      },
      { minutes: 5, name: 'the scan after it (reads everything once more)' },
    ]);
    await run(FARGATE, [
      { minutes: 0, name: 'a controller restart, announced (first scan)' },
      { minutes: 1, name: 'the scan after the restart (outbox and cooldowns read)' },
      { minutes: 2, name: 'while the restart’s cooldown runs' },
      { minutes: 20, name: 'after the cooldown ended (controller still unavailable: status written)' },
    ]);
    await run(ORPHANS, [
      { minutes: 0, name: 'first scan, three new finding alerts', before: BEFORE.threeNew },
      { minutes: 1, name: 'quiet scan with open alerts (nothing to send)', before: BEFORE.withOpen },
      { minutes: 9, name: 'one new finding alert', before: BEFORE.oneNew },
    ]);
    return { scenarios };
  } finally {
    await dynamo.close();
  }
}
