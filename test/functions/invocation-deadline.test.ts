/**
 * The invocation's deadline: middy's signal, combined with the function's stop margin, reaches the
 * adapters built at cold start (through the hooks' InvocationSignal) and the use cases. A request
 * hanging when the margin is reached is aborted, not left to run into Lambda's timeout, and the
 * handler answers with the records it could not finish as batch item failures.
 */
import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { DescribeInstancesCommand, EC2Client } from '@aws-sdk/client-ec2';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { Ec2Adapter } from '../../src/adapters/aws/ec2.ts';
import { abortable } from '../../src/adapters/calls/sdk-config.ts';
import { kubeConfigForEks } from '../../src/adapters/kubernetes/kubeconfig.ts';
import { KubernetesApi } from '../../src/adapters/kubernetes/kubernetes-api.ts';
import { RecordingAlertPublisher, RecordingMetricsSink } from '../../src/adapters/memory/outputs.ts';
import { InMemoryStateStore } from '../../src/adapters/memory/state.ts';
import { readScanConfig } from '../../src/config.ts';
import { createInterruptionsHandler, INTERRUPTIONS_STOP_MARGIN_MS } from '../../src/service/handlers/interruptions.ts';
import { createScanHandler, SCAN_STOP_MARGIN_MS } from '../../src/service/handlers/scan.ts';
import { startSimulation, type Simulation } from '../../src/simulator/simulation.ts';
import { InvocationSignal, InvocationTimeoutError } from '../../src/support/abort.ts';
import { jsonLogger } from '../../src/support/logger.ts';
import { NO_WAIT_CLOCK, steppingClock } from '../support/clock.ts';
import { lambdaContext, sampleEvent } from '../support/lambda.ts';
import { batchOf, NOW, SETTINGS } from './interruptions-support.ts';
import { HEALTHY, scanMessage, TICK } from './scan-harness.ts';

const TLS_DIR = new URL('../../src/simulator/tls/', import.meta.url);
const CA = readFileSync(new URL('ca.crt', TLS_DIR), 'utf8');

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** A Kubernetes API server (real TLS on 127.0.0.1) that reads each request and never answers it. */
async function hangingApiServer(): Promise<{ url: string; requests: string[] }> {
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  const server = https.createServer({
    cert: readFileSync(new URL('server.crt', TLS_DIR)),
    key: readFileSync(new URL('server.key', TLS_DIR)),
  });
  server.on('connection', (socket: Socket) => sockets.add(socket));
  server.on('request', (request: { method?: string; url?: string }) => requests.push(`${request.method} ${request.url}`));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  );
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { url: `https://127.0.0.1:${address.port}`, requests };
}

function logsOf() {
  const logs: Record<string, unknown>[] = [];
  return { logs, logger: jsonLogger({}, (line) => logs.push(JSON.parse(line) as Record<string, unknown>)) };
}

describe('scan: the invocation nears its deadline while a Kubernetes request hangs', () => {
  it('aborts the request, logs the scan as stopped (InvocationTimeoutError) and returns its record as a failure', async () => {
    // Prepare
    const api = await hangingApiServer();
    const simulation: Simulation = await startSimulation([fileURLToPath(new URL('../../examples/healthy', import.meta.url))], {
      kube: { clock: NO_WAIT_CLOCK },
    });
    closers.push(() => simulation.close());
    const invocationSignal = new InvocationSignal();
    const kube = new KubernetesApi(
      kubeConfigForEks(
        { name: 'aws-2026-eks', endpoint: api.url, certificateAuthority: Buffer.from(CA).toString('base64') },
        { token: async () => 'token' },
      ),
      { signal: invocationSignal.current, retry: { maxAttempts: 1 } },
    );
    closers.push(async () => kube.close());
    const { logs, logger } = logsOf();
    const alerts = new RecordingAlertPublisher();
    const metrics = new RecordingMetricsSink();
    const handler = createScanHandler({
      settings: readScanConfig({
        AWS_REGION: 'eu-west-1',
        STATE_TABLE: 'state',
        ALERT_TOPIC_ARN: 'arn:aws:sns:eu-west-1:111122223333:a',
      }),
      connect: async () => ({ aws: simulation.connection.aws, connectKube: async () => kube }),
      state: new InMemoryStateStore(),
      alerts,
      metrics,
      clock: steppingClock('2026-01-01T01:00:05Z'),
      logger,
      invocationSignal,
    });
    const event = scanMessage(HEALTHY, TICK);
    const started = Date.now();

    // Act: 400 ms of work left before the stop margin
    const response = (await handler(event, lambdaContext({}, SCAN_STOP_MARGIN_MS + 400))) as SQSBatchResponse;

    // Assess
    const elapsedMs = Date.now() - started;
    expect(api.requests.length).toBeGreaterThan(0);
    expect(elapsedMs).toBeLessThan(5_000); // not the transport's 30 s timeout, not middy's backstop
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: event.Records[0]!.messageId }]);
    expect(logs).toContainEqual(
      expect.objectContaining({
        level: 'error',
        message: 'scan stopped: the invocation’s deadline',
        error: expect.stringMatching(/^InvocationTimeoutError: /),
      }),
    );
    expect(alerts.published).toEqual([]); // what the abort cut short is no "cluster unreadable"
    expect(metrics.datums.filter((d) => d.name === 'ScanFailures')).toHaveLength(2);
    expect(logs.at(-1)).toMatchObject({ message: 'invocation done', batchItemFailures: 1 });
  });

  it('the transport rejects at once, without a request, when the invocation already stopped', async () => {
    const api = await hangingApiServer();
    const invocationSignal = new InvocationSignal();
    const kube = new KubernetesApi(
      kubeConfigForEks(
        { name: 'c', endpoint: api.url, certificateAuthority: Buffer.from(CA).toString('base64') },
        { token: async () => 'token' },
      ),
      { signal: invocationSignal.current },
    );
    closers.push(async () => kube.close());
    invocationSignal.set(AbortSignal.abort());

    await expect(kube.list({ resource: 'nodes' })).rejects.toThrow(InvocationTimeoutError);
    expect(api.requests).toEqual([]);
  });
});

describe('interruptions: the invocation nears its deadline while DescribeInstances hangs', () => {
  it('the SDK call gets the abortSignal, is aborted, and the claimed records come back as batch item failures', async () => {
    // Prepare: an EC2 client whose call only ends when its abortSignal fires (as the SDK's HTTP handler does).
    const seen: (AbortSignal | undefined)[] = [];
    const hanging = {
      send: (_command: unknown, options?: { abortSignal?: AbortSignal }) => {
        seen.push(options?.abortSignal);
        return new Promise((_resolve, reject) => {
          options?.abortSignal?.addEventListener('abort', () =>
            reject(Object.assign(new Error('Request aborted'), { name: 'AbortError' })),
          );
        });
      },
    };
    const client = new EC2Client({ region: 'eu-west-1', credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'x' } });
    Object.assign(client, hanging);
    const invocationSignal = new InvocationSignal();
    const { logs, logger } = logsOf();
    const handler = createInterruptionsHandler({
      ec2: new Ec2Adapter(abortable(client, invocationSignal.current)),
      state: new InMemoryStateStore(),
      alerts: new RecordingAlertPublisher(),
      metrics: new RecordingMetricsSink(),
      clock: steppingClock(NOW),
      logger,
      settings: SETTINGS,
      invocationSignal,
    });
    const event = batchOf(
      sampleEvent<SQSEvent>('interruptions.spot-interruption').Records[0]!,
      sampleEvent<SQSEvent>('interruptions.state-change').Records[0]!,
    );
    const started = Date.now();

    // Act
    const response = (await handler(event, lambdaContext({}, INTERRUPTIONS_STOP_MARGIN_MS + 300))) as SQSBatchResponse;

    // Assess
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.aborted).toBe(true);
    expect(response.batchItemFailures.map((f) => f.itemIdentifier).sort()).toEqual(event.Records.map((r) => r.messageId).sort());
    expect(logs).toContainEqual(
      expect.objectContaining({
        message: 'records failed',
        reason: expect.stringMatching(/DescribeInstances failed: InvocationTimeoutError: DescribeInstances stopped/),
      }),
    );
    expect(logs).toContainEqual(expect.objectContaining({ message: 'interruptions handled', timedOut: true, failed: 2 }));
  });

  it('a real SDK client passes the invocation signal as the second argument of send', async () => {
    // Prepare
    const client = new EC2Client({ region: 'eu-west-1', credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'x' } });
    const ec2 = mockClient(client);
    closers.push(async () => void ec2.restore());
    ec2.on(DescribeInstancesCommand).resolves({ Reservations: [] });
    const invocationSignal = new InvocationSignal();
    const adapter = new Ec2Adapter(abortable(client, invocationSignal.current));
    const signal = new AbortController().signal;

    // Act
    invocationSignal.set(signal);
    await adapter.describeInstances({ instanceIds: ['i-0123456789abcdef0'] });
    invocationSignal.set(undefined);
    await adapter.describeInstances({ instanceIds: ['i-0123456789abcdef0'] });

    // Assess
    // The stub records what `send` got; the command's type declares only its first argument.
    const options = ec2.commandCalls(DescribeInstancesCommand).map((call) => (call.args as unknown[])[1]);
    expect(options).toEqual([{ abortSignal: signal }, undefined]);
  });
});
