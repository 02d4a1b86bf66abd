import { describe, expect, it } from 'vitest';
import { EventShapeError } from '../../../src/service/event-shape.ts';
import { serviceHandler } from '../../../src/service/service-handler.ts';
import { InvocationSignal } from '../../../src/support/abort.ts';
import { jsonLogger } from '../../../src/support/logger.ts';
import { lambdaContext } from '../../support/lambda.ts';

function recordingLogger() {
  const lines: Record<string, unknown>[] = [];
  return { lines, logger: jsonLogger({}, (line) => lines.push(JSON.parse(line) as Record<string, unknown>)) };
}

describe('serviceHandler: the one shape of every function', () => {
  it('parses the event, runs the use case with the work signal the adapters also see, and closes with one summary line', async () => {
    // Prepare
    const { lines, logger } = recordingLogger();
    const invocationSignal = new InvocationSignal();
    let seenByRun: AbortSignal | undefined;
    const handler = serviceHandler<unknown, number, { done: number }>(
      { logger, invocationSignal, effectiveConfiguration: { mode: 'dry-run' } },
      {
        name: 'scan',
        stopMarginMs: 10_000,
        parse: (event) => (event as { n: number }).n,
        run: async (n, { signal }) => {
          seenByRun = signal;
          return { done: n * 2 };
        },
        summarise: (response) => ({ done: response?.done }),
      },
    );

    // Act
    const response = await handler({ n: 21 }, lambdaContext({ awsRequestId: 'req-1' }));

    // Assess
    expect(response).toEqual({ done: 42 });
    expect(seenByRun).toBe(invocationSignal.current());
    expect(seenByRun?.aborted).toBe(false);
    expect(lines.map((l) => l.message)).toEqual(['effective configuration', 'invocation done']);
    expect(lines[1]).toMatchObject({ function: 'scan', requestId: 'req-1', done: 42 });
  });

  it('aborts the work signal the stop margin before the deadline, while middy still waits for the answer', async () => {
    const { logger } = recordingLogger();
    const handler = serviceHandler<unknown, unknown, string>(
      { logger },
      {
        name: 'interruptions',
        stopMarginMs: 5_000,
        parse: (event) => event,
        // The use case answers once the work signal aborts: what it did not finish goes back as failures.
        run: (_request, { signal }) =>
          new Promise((resolve) => signal.addEventListener('abort', () => resolve('stopped in time'), { once: true })),
        summarise: () => ({}),
      },
    );

    // 5.2 s left: the work stops at 0.2 s, well before middy's own early timeout (1 s before the deadline).
    await expect(handler({}, lambdaContext({}, 5_200))).resolves.toBe('stopped in time');
  });

  it('a malformed event is one ERROR line naming it, and the use case does not run', async () => {
    const { lines, logger } = recordingLogger();
    let ran = false;
    const handler = serviceHandler<unknown, never, string>(
      { logger },
      {
        name: 'slack-notify',
        stopMarginMs: 2_000,
        parse: () => {
          throw new EventShapeError('not an SNS event: it has no Records');
        },
        run: async () => {
          ran = true;
          return 'posted';
        },
        summarise: () => ({}),
      },
    );

    await expect(handler({}, lambdaContext())).rejects.toThrow('not an SNS event');

    expect(ran).toBe(false);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 'error',
        message: 'invocation failed',
        function: 'slack-notify',
        error: 'EventShapeError: not an SNS event: it has no Records',
      }),
    ]);
  });
});
