/**
 * The account the interruption sample events (events/interruptions.*.json) are about, and the
 * interruptions function wired to in-memory adapters over it.
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { InMemoryStateStore } from '../../src/adapters/memory/state.ts';
import { RecordingAlertPublisher, RecordingMetricsSink } from '../../src/adapters/memory/outputs.ts';
import type { Instance } from '../../src/domain/aws.ts';
import { toIsoSeconds } from '../../src/domain/kube-helpers.ts';
import type { Ec2Port } from '../../src/ports/aws.ts';
import type { ClusterStatus, StateStore } from '../../src/ports/state.ts';
import type { MetricsSink } from '../../src/ports/notify.ts';
import { jsonLogger } from '../../src/support/logger.ts';
import { createInterruptionsHandler } from '../../src/service/handlers/interruptions.ts';
import { inMemoryAws, type InMemoryAws } from '../../src/simulator/in-memory-aws.ts';
import type { InterruptionSettings } from '../../src/usecases/handle-interruptions.ts';
import { instance, snapshotOf } from '../factories/aws.ts';
import { steppingClock } from '../support/clock.ts';
import { lambdaContext, sampleEvent } from '../support/lambda.ts';

export const NOW = new Date('2027-06-01T12:00:30Z');

function node(input: Parameters<typeof instance>[0] & { zone: string; type: string; ip: string; nodeClaim?: string }): Instance {
  const tags = input.nodeClaim ? { ...input.tags, 'karpenter.sh/nodeclaim': input.nodeClaim } : input.tags;
  return {
    ...instance({ ...input, ...(tags ? { tags } : {}) }),
    instanceType: input.type,
    availabilityZone: input.zone,
    privateDnsName: `ip-${input.ip.replaceAll('.', '-')}.eu-west-1.compute.internal`,
    iamInstanceProfileArn: 'arn:aws:iam::111122223333:instance-profile/prod-eu_2417693587362519402',
  };
}

const spot = (id: string, ip: string, nodeClaim: string) =>
  node({ id, cluster: 'prod-eu', nodePool: 'spot-general', zone: 'eu-west-1a', type: 'm6i.large', ip, nodeClaim });

/** prod-eu (Karpenter: spot-general, on-demand, gpu; plus a managed node group), staging (legacy tag), a bastion. */
const FLEET: Instance[] = [
  spot('i-0c5e8f1a2b3d4e5f6', '10.20.1.17', 'spot-general-x7k2p'),
  spot('i-0a4b7c9d2e1f30865', '10.20.1.44', 'spot-general-9fq4m'),
  spot('i-0d1c2b3a495867f70', '10.20.1.61', 'spot-general-b2n8v'),
  spot('i-06f5e4d3c2b1a0918', '10.20.1.93', 'spot-general-h6w3c'),
  spot('i-0a9b8c7d6e5f40312', '10.20.1.105', 'spot-general-t5r1z'),
  spot('i-03c4d5e6f7a8b9c0d', '10.20.1.128', 'spot-general-m4k7d'),
  node({
    id: 'i-07d2e4f6a8b0c1d39',
    cluster: 'prod-eu',
    nodePool: 'on-demand',
    zone: 'eu-west-1b',
    type: 'm6i.xlarge',
    ip: '10.20.2.31',
    nodeClaim: 'on-demand-q8v2l',
  }),
  node({
    id: 'i-0e9f1a3b5c7d2e4f8',
    cluster: 'prod-eu',
    nodePool: 'on-demand',
    zone: 'eu-west-1c',
    type: 'm6i.xlarge',
    ip: '10.20.3.52',
    nodeClaim: 'on-demand-c3j9s',
  }),
  node({
    id: 'i-0b3d5f7a9c1e2d4f6',
    cluster: 'prod-eu',
    nodePool: 'gpu',
    zone: 'eu-west-1c',
    type: 'g5.2xlarge',
    ip: '10.20.3.77',
    nodeClaim: 'gpu-w1d6f',
  }),
  node({
    id: 'i-05a7c9e1b3d5f7092',
    cluster: null,
    nodePool: 'default',
    tags: { 'kubernetes.io/cluster/staging': 'owned' },
    zone: 'eu-west-1a',
    type: 't3.large',
    ip: '10.30.1.12',
  }),
  node({
    id: 'i-0f1e2d3c4b5a69788',
    cluster: 'prod-eu',
    nodePool: null,
    nodeGroup: 'system',
    zone: 'eu-west-1a',
    type: 'm6i.large',
    ip: '10.20.1.5',
  }),
  node({
    id: 'i-0123456789abcdef0',
    cluster: null,
    nodePool: null,
    tags: { Name: 'bastion' },
    zone: 'eu-west-1b',
    type: 't3.micro',
    ip: '10.20.0.10',
  }),
];

export const SETTINGS: InterruptionSettings = {
  surgeThreshold: 5,
  surgeWindowMs: 10 * 60_000,
  controllerStatusMaxAgeMs: 10 * 60_000,
  idempotencyTtlMs: 24 * 3_600_000,
  minSeverity: 'warning',
};

export interface Harness {
  aws: InMemoryAws;
  state: StateStore;
  alerts: RecordingAlertPublisher;
  /** The recording sink (a test passing its own `metrics` gets an empty one here). */
  metrics: RecordingMetricsSink;
  logs: Record<string, unknown>[];
  clock: ReturnType<typeof steppingClock>;
  invoke(event: SQSEvent): Promise<SQSBatchResponse>;
  invokeSample(name: string): Promise<SQSBatchResponse>;
  /** What the last scan of `cluster` saved, `ageMs` before now. */
  saveStatus(cluster: string, controller: ClusterStatus['controller'], ageMs?: number): Promise<void>;
}

export function harness(
  options: { settings?: Partial<InterruptionSettings>; state?: StateStore; ec2?: Ec2Port; metrics?: MetricsSink } = {},
): Harness {
  const aws = inMemoryAws(snapshotOf({ instances: FLEET }, 'prod-eu'), { region: 'eu-west-1' });
  const state = options.state ?? new InMemoryStateStore();
  const alerts = new RecordingAlertPublisher();
  const metrics = new RecordingMetricsSink();
  const logs: Record<string, unknown>[] = [];
  const clock = steppingClock(NOW);
  const handler = createInterruptionsHandler({
    ec2: options.ec2 ?? aws.ec2,
    state,
    alerts,
    metrics: options.metrics ?? metrics,
    clock,
    logger: jsonLogger({}, (line) => logs.push(JSON.parse(line) as Record<string, unknown>)),
    settings: { ...SETTINGS, ...options.settings },
  });
  const invoke = async (event: SQSEvent) => (await handler(event, lambdaContext())) as SQSBatchResponse;
  return {
    aws,
    state,
    alerts,
    metrics,
    logs,
    clock,
    invoke,
    invokeSample: (name) => invoke(sampleEvent<SQSEvent>(`interruptions.${name}`)),
    async saveStatus(cluster, controller, ageMs = 60_000) {
      const observedAt = toIsoSeconds(new Date(clock.now().getTime() - ageMs));
      const replicas = controller === 'available' ? 2 : 0;
      await state.saveClusterStatus({ cluster, observedAt, controller, readyReplicas: replicas, desiredReplicas: 2 }, 3_600_000);
    },
  };
}

export const SAMPLES = [
  'spot-interruption',
  'rebalance-recommendation',
  'state-change',
  'health-scheduled-change',
  'capacity-reservation-interruption',
  'batch',
  'malformed',
  'no-karpenter',
  'duplicate',
] as const;

/** One record of a sample, its EventBridge event changed (a new id, another instance): another delivery. */
export function variant(
  sample: string,
  change: { eventId: string; instanceId?: string; time?: string; messageId?: string },
): SQSEvent['Records'][number] {
  const [record] = sampleEvent<SQSEvent>(`interruptions.${sample}`).Records;
  if (!record) throw new Error(`events/interruptions.${sample}.json has no record`);
  const body = JSON.parse(record.body) as Record<string, unknown> & { detail: Record<string, unknown> };
  body.id = change.eventId;
  if (change.time) body.time = change.time;
  if (change.instanceId) body.detail['instance-id'] = change.instanceId;
  return { ...record, messageId: change.messageId ?? `msg-${change.eventId}`, body: JSON.stringify(body) };
}

export const batchOf = (...records: SQSEvent['Records']): SQSEvent => ({ Records: records });
