/**
 * The five functions' handlers fed fuzzed events (fast-check): fully arbitrary JSON, and the sample
 * events in events/ mutated at arbitrary paths. Whatever comes in, a handler answers with batch item
 * failures naming only the event's own messages, or rejects with one of the project's typed errors
 * in one line: never a TypeError, and never a write (no TerminateInstances, no Kubernetes call) on
 * a malformed event.
 */
import type { Context, ScheduledEvent, SNSEvent, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RecordingAlertPublisher, RecordingMetricsSink, RecordingScanQueue } from '../../src/adapters/memory/outputs.ts';
import { InMemoryStateStore } from '../../src/adapters/memory/state.ts';
import { CleanupRequestError, parseCleanupRequest } from '../../src/cleanup/request.ts';
import { readDispatchConfig, readScanConfig } from '../../src/config.ts';
import { SentinelError } from '../../src/domain/errors.ts';
import { KubeUnreachableError, SourceError } from '../../src/ports/errors.ts';
import { createCleanupHandler, type CleanupFunctionDependencies } from '../../src/service/handlers/cleanup.ts';
import { createScanDispatchHandler } from '../../src/service/handlers/scan-dispatch.ts';
import { createScanHandler } from '../../src/service/handlers/scan.ts';
import { createSlackNotifyHandler } from '../../src/service/handlers/slack-notify.ts';
import { AWS_WRITE_OPERATIONS, inMemoryAws } from '../../src/simulator/in-memory-aws.ts';
import { jsonLogger } from '../../src/support/logger.ts';
import { parseScanRequest } from '../../src/usecases/scan-request.ts';
import { SlackDeliveryError } from '../../src/usecases/notify-slack.ts';
import { cluster, snapshotOf } from '../factories/aws.ts';
import { steppingClock } from '../support/clock.ts';
import { fuzzedEvents, messageIdsOf } from '../support/event-fuzz.ts';
import { lambdaContext } from '../support/lambda.ts';
import { harness, SAMPLES } from './interruptions-support.ts';

const RUNS = { numRuns: Number(process.env.FUZZ_RUNS ?? 300) };
const quiet = () => jsonLogger({}, () => undefined);
const as = <T>(event: unknown) => event as T;

/** A typed error of the project's, in one line; anything else (TypeError, RangeError) fails the property. */
function expectTypedError(error: unknown, ...types: (abstract new (...args: never[]) => Error)[]): void {
  const typed = [SentinelError, SourceError, ...types].some((type) => error instanceof type);
  if (!typed) throw new Error(`untyped rejection: ${String(error)}`, { cause: error });
  expect((error as Error).message).not.toMatch(/\n/);
}

/** Batch item failures naming only message ids the event holds (and each once). */
function expectBatchFailuresOf(event: unknown, response: SQSBatchResponse): void {
  const ids = messageIdsOf(event);
  const named = response.batchItemFailures.map((f) => f.itemIdentifier);
  for (const id of named) {
    expect(typeof id).toBe('string');
    expect(ids.has(id)).toBe(true);
  }
  expect(new Set(named).size).toBe(named.length);
}

async function outcome<T>(run: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    return { ok: false, error };
  }
}

describe('fuzzed events', () => {
  it('scan-dispatch: a summary of what was queued, or a typed error', async () => {
    await fc.assert(
      fc.asyncProperty(fuzzedEvents(['scan-dispatch.schedule']), async (event) => {
        // Prepare
        const aws = inMemoryAws(
          snapshotOf({ cluster: cluster({ name: 'shop-prod', tags: { 'karpenter-sentinel/enabled': 'true' } }) }, 'shop-prod'),
          { region: 'eu-west-1' },
        );
        const queue = new RecordingScanQueue();
        const handler = createScanDispatchHandler({
          eks: aws.eks,
          queue,
          clock: steppingClock('2026-01-01T01:00:02Z'),
          logger: quiet(),
          settings: readDispatchConfig({
            AWS_REGION: 'eu-west-1',
            SCAN_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/111122223333/scan',
          }),
        });

        // Act
        const result = await outcome(() => handler(as<ScheduledEvent>(event), lambdaContext()));

        // Assess
        if (!result.ok) expectTypedError(result.error);
        else expect(Number.isNaN(Date.parse(result.value.requestedAt))).toBe(false);
        expect(AWS_WRITE_OPERATIONS.flatMap((op) => aws.callsTo(op))).toEqual([]);
      }),
      RUNS,
    );
  });

  it('scan: batch item failures of its own messages; only a well-formed request connects to a cluster', async () => {
    await fc.assert(
      fc.asyncProperty(
        fuzzedEvents(['scan.message', 'scan.batch', 'scan.duplicate', 'scan.malformed', 'scan.stale']),
        async (event) => {
          // Prepare
          const connected: string[] = [];
          const handler = createScanHandler({
            settings: readScanConfig({
              AWS_REGION: 'eu-west-1',
              STATE_TABLE: 'state',
              ALERT_TOPIC_ARN: 'arn:aws:sns:eu-west-1:111122223333:alerts',
            }),
            connect: async (clusterName) => {
              connected.push(clusterName);
              throw new KubeUnreachableError(`no cluster ${clusterName} in the fuzz`);
            },
            state: new InMemoryStateStore(),
            alerts: new RecordingAlertPublisher(),
            metrics: new RecordingMetricsSink(),
            clock: steppingClock('2026-01-01T01:00:05Z'),
            logger: quiet(),
          });

          // Act
          const result = await outcome(() => handler(as<SQSEvent>(event), lambdaContext()));

          // Assess
          if (result.ok) expectBatchFailuresOf(event, result.value);
          else expectTypedError(result.error);
          const records = (event as { Records?: unknown } | null)?.Records;
          const bodies = Array.isArray(records) ? records.map((r) => (r as { body?: unknown } | null)?.body) : [];
          const wellFormed = new Set(
            bodies.flatMap((body) => {
              const parsed = typeof body === 'string' ? parseScanRequest(body) : undefined;
              return parsed?.ok ? [parsed.request.cluster] : [];
            }),
          );
          for (const name of connected) expect(wellFormed.has(name)).toBe(true);
        },
      ),
      RUNS,
    );
  });

  it('interruptions: batch item failures of its own messages, and no write to AWS', async () => {
    await fc.assert(
      fc.asyncProperty(fuzzedEvents(SAMPLES.map((s) => `interruptions.${s}`)), async (event) => {
        // Prepare
        const { aws, invoke } = harness();

        // Act
        const result = await outcome(() => invoke(as<SQSEvent>(event)));

        // Assess
        if (result.ok) expectBatchFailuresOf(event, result.value);
        else expectTypedError(result.error);
        expect(AWS_WRITE_OPERATIONS.flatMap((op) => aws.callsTo(op))).toEqual([]);
      }),
      RUNS,
    );
  });

  it('slack-notify: each message posted, or a typed error', async () => {
    await fc.assert(
      fc.asyncProperty(
        fuzzedEvents(['slack-notify.alert', 'slack-notify.cloudwatch-alarm', 'slack-notify.plain-text', 'slack-notify.resolved']),
        async (event) => {
          // Prepare
          const posts: string[] = [];
          const handler = createSlackNotifyHandler({
            webhookUrl: { webhookUrl: async () => 'https://hooks.slack.invalid/services/T0/B0/x' },
            poster: {
              post: async (_url, body) => {
                posts.push(body);
                return { status: 200, body: 'ok' };
              },
            },
            clock: steppingClock('2026-01-01T01:00:05Z'),
            logger: quiet(),
            maxAttempts: 3,
            random: () => 0.5,
          });

          // Act
          const result = await outcome(() => handler(as<SNSEvent>(event), lambdaContext()));

          // Assess
          if (!result.ok) expectTypedError(result.error, SlackDeliveryError);
          else expect(result.value.posted).toBe(posts.length);
          for (const body of posts) expect(() => JSON.parse(body) as unknown).not.toThrow();
        },
      ),
      RUNS,
    );
  });

  it('cleanup: a malformed request is refused in one line before anything is called', async () => {
    await fc.assert(
      fc.asyncProperty(
        fuzzedEvents(['cleanup.apply', 'cleanup.dry-run', 'cleanup.keep-nodepools', 'cleanup.nodepools']),
        async (event) => {
          // Prepare
          const calls: string[] = [];
          const handler = createCleanupHandler({
            connection: recordingConnection(calls),
            clock: steppingClock('2026-01-01T01:00:00Z'),
            logger: quiet(),
            settings: { timeMarginMs: 30_000, nodeClaimWaitMs: 60_000, clusters: ['platform-eks-dev'] },
          });
          const valid = outcomeOfSync(() => parseCleanupRequest(event));

          // Act
          const result = await outcome(() => handler(event, contextWith(900_000)));

          // Assess
          if (!valid) {
            expect(result.ok).toBe(false);
            if (!result.ok) expectTypedError(result.error, CleanupRequestError);
            expect(result.ok || result.error instanceof CleanupRequestError).toBe(true);
            expect(calls).toEqual([]);
          } else if (!result.ok) expectTypedError(result.error);
        },
      ),
      RUNS,
    );
  });
});

function outcomeOfSync(run: () => unknown): boolean {
  try {
    run();
    return true;
  } catch {
    return false;
  }
}

function contextWith(remainingMs: number): Context {
  return lambdaContext({ getRemainingTimeInMillis: () => remainingMs });
}

/** A connection whose every call is recorded and fails as an unreachable account would. */
function recordingConnection(calls: string[]): CleanupFunctionDependencies['connection'] {
  const port = (name: string) =>
    new Proxy(
      {},
      {
        get: (_target, method) =>
          method === 'then'
            ? undefined
            : async () => {
                calls.push(`${name}.${String(method)}`);
                throw new SourceError(`${name}.${String(method)} unreachable in the fuzz`);
              },
      },
    );
  const aws = new Proxy(
    {},
    { get: (_target, key) => (key === 'region' ? 'eu-west-1' : key === 'then' ? undefined : port(String(key))) },
  );
  return {
    aws: aws as CleanupFunctionDependencies['connection']['aws'],
    connectKube: async () => {
      calls.push('connectKube');
      throw new KubeUnreachableError('no Kubernetes API in the fuzz');
    },
  };
}

describe('what the fuzz found (each was a TypeError from the handler)', () => {
  it('scan: a record without attributes is scanned as a first receive; a null record refuses the event in one line', async () => {
    // Prepare
    const connected: string[] = [];
    const handler = createScanHandler({
      settings: readScanConfig({
        AWS_REGION: 'eu-west-1',
        STATE_TABLE: 'state',
        ALERT_TOPIC_ARN: 'arn:aws:sns:eu-west-1:111122223333:alerts',
      }),
      connect: async (clusterName) => {
        connected.push(clusterName);
        throw new KubeUnreachableError('unreachable');
      },
      state: new InMemoryStateStore(),
      alerts: new RecordingAlertPublisher(),
      metrics: new RecordingMetricsSink(),
      clock: steppingClock('2026-01-01T01:00:05Z'),
      logger: quiet(),
    });
    const body = JSON.stringify({ cluster: 'shop-prod', requestedAt: '2026-01-01T01:00:00Z' });

    // Act
    const response = await handler(as<SQSEvent>({ Records: [{ messageId: 'm1', body }] }), lambdaContext());
    const refusal = await outcome(() => handler(as<SQSEvent>({ Records: [null] }), lambdaContext()));

    // Assess
    expect(connected).toEqual(['shop-prod']);
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: 'm1' }] });
    expect(refusal.ok ? undefined : (refusal.error as Error).message).toBe('not an SQS event: Records[0] has no messageId');
  });

  it('interruptions: a null event is refused in one line; a body that is not a string is one malformed record (failed, for the DLQ)', async () => {
    // Prepare
    const { invoke, aws } = harness();
    const odd = { messageId: 'odd', body: 42 };

    // Act
    const refusal = await outcome(() => invoke(as<SQSEvent>(null)));
    const response = await invoke(as<SQSEvent>({ Records: [odd] }));

    // Assess
    expect(refusal.ok ? undefined : (refusal.error as Error).message).toBe('not an SQS event: no Records list');
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: 'odd' }] });
    expect(AWS_WRITE_OPERATIONS.flatMap((op) => aws.callsTo(op))).toEqual([]);
  });

  it('slack-notify: a message attribute that is null is left out, the message posted', async () => {
    const posts: string[] = [];
    const handler = createSlackNotifyHandler({
      webhookUrl: { webhookUrl: async () => 'https://hooks.slack.invalid/services/T0/B0/x' },
      poster: { post: async (_url, body) => (posts.push(body), { status: 200, body: 'ok' }) },
      clock: steppingClock('2026-01-01T01:00:05Z'),
      logger: quiet(),
      maxAttempts: 3,
    });
    const event = { Records: [{ Sns: { MessageId: 'm1', Message: 'disk full', MessageAttributes: { severity: null } } }] };

    const result = await handler(as<SNSEvent>(event), lambdaContext());

    expect(result).toEqual({ posted: 1, attempts: 1 });
    expect(posts.join()).toContain('disk full');
  });

  it('scan-dispatch: a null event ticks at the clock’s time', async () => {
    const aws = inMemoryAws(
      snapshotOf({ cluster: cluster({ name: 'shop-prod', tags: { 'karpenter-sentinel/enabled': 'true' } }) }, 'shop-prod'),
      { region: 'eu-west-1' },
    );
    const handler = createScanDispatchHandler({
      eks: aws.eks,
      queue: new RecordingScanQueue(),
      clock: steppingClock('2026-01-01T01:00:02Z'),
      logger: quiet(),
      settings: readDispatchConfig({
        AWS_REGION: 'eu-west-1',
        SCAN_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/111122223333/scan',
      }),
    });

    const summary = await handler(as<ScheduledEvent>(null), lambdaContext());

    expect(summary.requestedAt).toBe('2026-01-01T01:00:02Z');
  });
});
