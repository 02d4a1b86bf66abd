/**
 * The interruptions function's EC2 cost and handler time: `createInterruptionsHandler` over
 * in-memory adapters (the simulator's AWS records every call), fed SQS batches built from the
 * sample events in events/. The target: at most one DescribeInstances per batch, whatever its size.
 *
 * Handler time here is the function's own work (parse, dedupe, resolve, count, plan alerts) with
 * ports answering from memory: a deployed invocation adds the AWS round trips on top.
 */
import { performance } from 'node:perf_hooks';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { InMemoryStateStore } from '../src/adapters/memory/state.ts';
import { RecordingAlertPublisher, RecordingMetricsSink } from '../src/adapters/memory/outputs.ts';
import { readInterruptionsConfig } from '../src/config.ts';
import type { Instance } from '../src/domain/aws.ts';
import { isParseError, type InterruptionEvent, type InterruptionKind } from '../src/interruptions/event.ts';
import { parseRecord } from '../src/interruptions/parse.ts';
import type { StateStore } from '../src/ports/state.ts';
import { createInterruptionsHandler } from '../src/service/handlers/interruptions.ts';
import { jsonLogger } from '../src/support/logger.ts';
import { inMemoryAws } from '../src/simulator/in-memory-aws.ts';
import { interruptionSettings } from '../src/usecases/handle-interruptions.ts';
import { snapshotOf } from '../test/factories/aws.ts';
import { steppingClock } from '../test/support/clock.ts';
import { lambdaContext, sampleEvent } from '../test/support/lambda.ts';
import { DUMMY_FUNCTION_ENV } from './bundles.ts';

const CLUSTER = 'prod-eu';
/** SQS delivers at most 10 messages per batch to a Lambda function (the queue's batch size). */
export const SQS_MAX_BATCH = 10;

export interface InterruptionBatchMeasurement {
  /** Short: `10 mixed`. */
  name: string;
  label: string;
  records: number;
  /** Interruption events of each kind in the batch. */
  kinds: Partial<Record<InterruptionKind, number>>;
  /** Distinct instances the batch is about. */
  instances: number;
  /** Per invocation (the same in every run; the bench fails if it is not). */
  describeInstancesCalls: number;
  /** EC2, EKS or IAM calls other than DescribeInstances. */
  otherAwsCalls: number;
  metricsWrites: number;
  alertsPublished: number;
  batchItemFailures: number;
  /** The first invocation of this batch in the process (JIT still cold for it). */
  firstRunMs: number;
  samplesMs: number[];
}

export interface InterruptionsBench {
  warmup: number;
  runs: number;
  batches: InterruptionBatchMeasurement[];
}

interface Scenario {
  name: string;
  label: string;
  event: SQSEvent;
  /** Invoke once, untimed, then measure the second delivery of the same batch. */
  redelivery?: boolean;
}

function sampleRecords(name: string): SQSRecord[] {
  return sampleEvent<SQSEvent>(`interruptions.${name}`).Records;
}

/** Another delivery of a sample's first record: a new event id, about another instance. */
function spotInterruptionFor(instanceId: string, n: number): SQSRecord {
  const [record] = sampleRecords('spot-interruption');
  if (!record) throw new Error('events/interruptions.spot-interruption.json has no record');
  const body = JSON.parse(record.body) as { id: string; resources: string[]; detail: Record<string, unknown> };
  body.id = `bench-spot-${n}`;
  body.resources = [`arn:aws:ec2:eu-west-1a:instance/${instanceId}`];
  body.detail['instance-id'] = instanceId;
  return { ...record, messageId: `bench-message-${n}`, body: JSON.stringify(body) };
}

function scenarios(): Scenario[] {
  const spotIds = Array.from({ length: SQS_MAX_BATCH }, (_, i) => `i-0be7c4${String(i).padStart(11, '0')}`);
  const mixed = { Records: sampleRecords('batch') };
  return [
    { name: '1 Spot', label: '1 record: a Spot interruption warning', event: { Records: sampleRecords('spot-interruption') } },
    {
      name: `${SQS_MAX_BATCH} Spot`,
      label: `${SQS_MAX_BATCH} records: Spot interruption warnings for ${SQS_MAX_BATCH} instances of one NodePool`,
      event: { Records: spotIds.map((id, i) => spotInterruptionFor(id, i)) },
    },
    {
      name: `${SQS_MAX_BATCH} mixed`,
      label: `${SQS_MAX_BATCH} records of mixed kinds (events/interruptions.batch.json)`,
      event: mixed,
    },
    {
      name: `${SQS_MAX_BATCH} mixed, redelivered`,
      label: 'the same mixed batch delivered again (every event already handled)',
      event: mixed,
      redelivery: true,
    },
  ];
}

function eventsOf(event: SQSEvent): InterruptionEvent[] {
  return event.Records.flatMap((r) => {
    const parsed = parseRecord(r);
    return isParseError(parsed) ? [] : parsed.events;
  });
}

/** One Karpenter cluster owning every instance of the batch: Spot kinds on a Spot NodePool, the rest on-demand. */
function fleetOf(events: readonly InterruptionEvent[]): Instance[] {
  const spotKinds: readonly InterruptionKind[] = ['SpotInterruption', 'RebalanceRecommendation'];
  const byId = new Map<string, Instance>();
  for (const e of events) {
    byId.set(e.instanceId, {
      id: e.instanceId,
      state: 'running',
      instanceType: 'm6i.large',
      availabilityZone: 'eu-west-1a',
      tags: {
        'eks:eks-cluster-name': CLUSTER,
        'karpenter.sh/nodepool': spotKinds.includes(e.kind) ? 'spot-general' : 'on-demand',
      },
    });
  }
  return [...byId.values()];
}

/** Thirty seconds after the batch's newest event: a queue that keeps up. */
function clockFor(events: readonly InterruptionEvent[]): Date {
  const newest = Math.max(...events.map((e) => Date.parse(e.time)));
  return new Date((Number.isFinite(newest) ? newest : Date.parse('2027-06-01T12:00:00Z')) + 30_000);
}

interface Invocation {
  ms: number;
  describeInstancesCalls: number;
  otherAwsCalls: number;
  metricsWrites: number;
  alertsPublished: number;
  batchItemFailures: number;
}

/** A fresh function (empty state table, the controller seen healthy a minute ago), then the timed invocation. */
async function invokeOnce(scenario: Scenario): Promise<Invocation> {
  const events = eventsOf(scenario.event);
  const now = clockFor(events);
  const aws = inMemoryAws(snapshotOf({ instances: fleetOf(events) }, CLUSTER), { region: 'eu-west-1' });
  const state: StateStore = new InMemoryStateStore();
  await state.saveClusterStatus(
    {
      cluster: CLUSTER,
      observedAt: new Date(now.getTime() - 60_000).toISOString(),
      controller: 'available',
      readyReplicas: 2,
      desiredReplicas: 2,
    },
    3_600_000,
  );
  const alerts = new RecordingAlertPublisher();
  const metrics = new RecordingMetricsSink();
  const config = readInterruptionsConfig(DUMMY_FUNCTION_ENV);
  const handler = createInterruptionsHandler({
    ec2: aws.ec2,
    state,
    alerts,
    metrics,
    clock: steppingClock(now),
    logger: jsonLogger({}, () => undefined),
    settings: interruptionSettings(config),
  });
  if (scenario.redelivery) await handler(structuredClone(scenario.event), lambdaContext());
  const before = { aws: aws.calls.length, metrics: metrics.calls.length, alerts: alerts.published.length };
  const event = structuredClone(scenario.event);
  const context = lambdaContext();
  const started = performance.now();
  const response = (await handler(event, context)) as SQSBatchResponse;
  const ms = performance.now() - started;
  const calls = aws.calls.slice(before.aws);
  const describeInstancesCalls = calls.filter((c) => c.operation === 'DescribeInstances').length;
  return {
    ms,
    describeInstancesCalls,
    otherAwsCalls: calls.length - describeInstancesCalls,
    metricsWrites: metrics.calls.length - before.metrics,
    alertsPublished: alerts.published.length - before.alerts,
    batchItemFailures: response.batchItemFailures.length,
  };
}

const COUNTS = ['describeInstancesCalls', 'otherAwsCalls', 'metricsWrites', 'alertsPublished', 'batchItemFailures'] as const;

function kindCounts(events: readonly InterruptionEvent[]): Partial<Record<InterruptionKind, number>> {
  const counts: Partial<Record<InterruptionKind, number>> = {};
  for (const e of events) counts[e.kind] = (counts[e.kind] ?? 0) + 1;
  return counts;
}

export async function measureInterruptions(runs: number, warmup: number): Promise<InterruptionsBench> {
  const batches: InterruptionBatchMeasurement[] = [];
  for (const scenario of scenarios()) {
    const first = await invokeOnce(scenario);
    for (let i = 1; i < warmup; i += 1) await invokeOnce(scenario);
    const samplesMs: number[] = [];
    for (let i = 0; i < runs; i += 1) {
      const run = await invokeOnce(scenario);
      const differs = COUNTS.find((k) => run[k] !== first[k]);
      if (differs) throw new Error(`${scenario.label}: ${differs} was ${first[differs]}, then ${run[differs]} in run ${i + 1}`);
      samplesMs.push(run.ms);
    }
    const events = eventsOf(scenario.event);
    batches.push({
      name: scenario.name,
      label: scenario.label,
      records: scenario.event.Records.length,
      kinds: kindCounts(events),
      instances: new Set(events.map((e) => e.instanceId)).size,
      describeInstancesCalls: first.describeInstancesCalls,
      otherAwsCalls: first.otherAwsCalls,
      metricsWrites: first.metricsWrites,
      alertsPublished: first.alertsPublished,
      batchItemFailures: first.batchItemFailures,
      firstRunMs: first.ms,
      samplesMs,
    });
  }
  return { warmup, runs, batches };
}
