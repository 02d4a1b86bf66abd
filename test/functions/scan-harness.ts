/**
 * The scan function as deployed, minus AWS: the real handler and use case, the state table over
 * dynalite (a real DynamoDB API on 127.0.0.1), and clusters served by the simulator (a real HTTPS
 * Kubernetes API seeded from examples/, in-memory AWS). Alerts and metrics are recorded.
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoStateStore } from '../../src/adapters/aws/dynamodb-state.ts';
import { RecordingAlertPublisher, RecordingMetricsSink } from '../../src/adapters/memory/outputs.ts';
import { readScanConfig } from '../../src/config.ts';
import { toIsoSeconds } from '../../src/domain/kube-helpers.ts';
import type { AlertPublisher } from '../../src/ports/notify.ts';
import type { StateStore } from '../../src/ports/state.ts';
import { createScanHandler } from '../../src/service/handlers/scan.ts';
import { jsonLogger } from '../../src/support/logger.ts';
import { simulatedSources, startSimulation, type Simulation } from '../../src/simulator/simulation.ts';
import type { ServiceConnection } from '../../src/usecases/scan-service.ts';
import { NO_WAIT_CLOCK, steppingClock } from '../support/clock.ts';
import type { LocalDynamo } from '../support/dynalite.ts';
import { lambdaContext, sampleEvent } from '../support/lambda.ts';

const TOPIC_ARN = 'arn:aws:sns:eu-west-1:111122223333:karpenter-sentinel-alerts';
/** The examples' capture time: the sample events' requestedAt. */
export const TICK = '2026-01-01T01:00:00Z';

export const FARGATE = 'pattern-infra-eks-dev'; // examples/fargate-bootstrap-deadlock: controller Pending
export const ORPHANS = 'platform-eks-dev'; // examples/orphans-after-destroy: two orphaned instances
export const HEALTHY = 'aws-2026-eks'; // examples/healthy

const EXAMPLE_OF: Record<string, string> = {
  [FARGATE]: 'fargate-bootstrap-deadlock',
  [ORPHANS]: 'orphans-after-destroy',
  [HEALTHY]: 'healthy',
};

function exampleOf(cluster: string): string {
  const example = EXAMPLE_OF[cluster];
  if (!example) throw new Error(`no example for cluster ${cluster}`);
  return example;
}

export interface ScanService {
  invoke(event: SQSEvent): Promise<SQSBatchResponse>;
  state: StateStore;
  alerts: RecordingAlertPublisher;
  metrics: RecordingMetricsSink;
  /** Simulated time: scans read `now` from it. */
  clock: ReturnType<typeof steppingClock>;
  logs: Record<string, unknown>[];
  /** The names of the simulated clusters, in the order given. */
  simulated: string[];
  /** The simulated cluster of that name. */
  cluster(name: string): Simulation;
  /** How often the function connected to each cluster. */
  connects: Map<string, number>;
  close(): Promise<void>;
}

export interface ScanServiceOptions {
  /** Clusters to simulate (cluster names above); a request for any other fails to connect. */
  clusters: string[];
  /** Further clusters to simulate, by example folder (examples/NAME); each is named as its capture names it. */
  examples?: string[];
  /**
   * Requested name → simulated cluster: the request reaches that cluster's account, whose EKS knows
   * no cluster of the requested name (a typo, a deleted cluster).
   */
  unknownNames?: Record<string, string>;
  /** Extra environment, as serverless.yml would set it (e.g. TERMINATE_INSTANCE_MODE=apply). */
  env?: Record<string, string>;
  /** The scans' clock starts here; default: 5 s after the tick. */
  now?: string;
  /** The state table's client (e.g. one that counts its requests); default: the dynalite's own. */
  dynamoClient?: DynamoDBClient;
  /** Wraps what the function is given, to fail or pause a call; `alerts` still records what went through. */
  wrap?: {
    state?: (state: StateStore) => StateStore;
    alerts?: (alerts: AlertPublisher) => AlertPublisher;
  };
}

export async function startScanService(dynamo: LocalDynamo, options: ScanServiceOptions): Promise<ScanService> {
  const table = await dynamo.createStateTable();
  const simulations = new Map<string, Simulation>();
  const simulate = (example: string) =>
    startSimulation([fileURLToPath(new URL(`../../examples/${example}`, import.meta.url))], { kube: { clock: NO_WAIT_CLOCK } });
  for (const name of options.clusters) simulations.set(name, await simulate(exampleOf(name)));
  for (const example of options.examples ?? []) {
    const simulation = await simulate(example);
    simulations.set(simulation.seed.clusterName, simulation);
  }
  const settings = readScanConfig({
    AWS_REGION: 'eu-west-1',
    STATE_TABLE: table,
    ALERT_TOPIC_ARN: TOPIC_ARN,
    // A stack serving the simulated clusters (serverless.yml `clusters`): terminations may be applied there.
    CLUSTERS: [...simulations.keys()].join(','),
    ...options.env,
  });
  const clock = steppingClock(options.now ?? '2026-01-01T01:00:05Z');
  const logs: Record<string, unknown>[] = [];
  const connects = new Map<string, number>();
  const state = new DynamoStateStore(options.dynamoClient ?? dynamo.client, table);
  const alerts = new RecordingAlertPublisher();
  const metrics = new RecordingMetricsSink();
  const handler = createScanHandler({
    settings,
    connect: async (clusterName): Promise<ServiceConnection> => {
      connects.set(clusterName, (connects.get(clusterName) ?? 0) + 1);
      const simulation = simulations.get(options.unknownNames?.[clusterName] ?? clusterName);
      if (!simulation)
        throw new Error(`eks:DescribeCluster failed: ResourceNotFoundException: No cluster found for name: ${clusterName}.`);
      return { ...simulation.connection, sources: simulatedSources(simulation.seed) };
    },
    state: options.wrap?.state ? options.wrap.state(state) : state,
    alerts: options.wrap?.alerts ? options.wrap.alerts(alerts) : alerts,
    metrics,
    clock,
    logger: jsonLogger({}, (line) => logs.push(JSON.parse(line) as Record<string, unknown>)),
  });
  return {
    invoke: async (event) => (await handler(event, lambdaContext())) as SQSBatchResponse,
    state,
    alerts,
    metrics,
    clock,
    logs,
    connects,
    simulated: [...simulations.keys()],
    cluster(name) {
      const simulation = simulations.get(name);
      if (!simulation) throw new Error(`cluster ${name} is not simulated`);
      return simulation;
    },
    close: async () => {
      await Promise.all([...simulations.values()].map((s) => s.close()));
    },
  };
}

/** `events/scan.message.json` asking for `cluster` at `requestedAt`, as a new message. */
export function scanMessage(cluster: string, requestedAt: string, messageId: string = randomUUID()): SQSEvent {
  const [record] = sampleEvent<SQSEvent>('scan.message').Records;
  return { Records: [{ ...record!, messageId, body: JSON.stringify({ cluster, requestedAt }) }] };
}

/** `2026-01-01T01:00:00Z` + minutes, in ISO seconds. */
export function minutesAfterTick(minutes: number, seconds = 0): string {
  return toIsoSeconds(new Date(Date.parse(TICK) + minutes * 60_000 + seconds * 1000));
}
