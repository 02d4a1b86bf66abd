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
    const handler = serviceHandler<number, { done: number }>(
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
    const handler = serviceHandler<unknown, string>(
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
    const handler = serviceHandler<never, string>(
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

describe('serviceHandler: the afterInvocation hook (the API call metrics)', () => {
  function handlerWith(afterInvocation: () => Promise<void>, run: () => Promise<string>) {
    const { lines, logger } = recordingLogger();
    const handler = serviceHandler<unknown, string>(
      { logger, afterInvocation },
      { name: 'cleanup', stopMarginMs: 5_000, parse: (event) => event, run, summarise: () => ({}) },
    );
    return { lines, handler };
  }

  it('runs once after an answer, before the closing line', async () => {
    const order: string[] = [];
    const { lines, handler } = handlerWith(
      async () => void order.push('hook'),
      async () => 'done',
    );

    await expect(handler({}, lambdaContext())).resolves.toBe('done');

    expect(order).toEqual(['hook']);
    expect(lines.map((l) => l.message)).toEqual(['invocation done']);
  });

  it('runs when the handler fails, and the handler’s own error is what the invocation fails with', async () => {
    let ran = 0;
    const { lines, handler } = handlerWith(
      async () => void (ran += 1),
      async () => {
        throw new Error('ListClusters failed: AccessDeniedException');
      },
    );

    await expect(handler({}, lambdaContext())).rejects.toThrow('ListClusters failed: AccessDeniedException');

    expect(ran).toBe(1);
    expect(lines).toEqual([expect.objectContaining({ level: 'error', message: 'invocation failed' })]);
  });

  it('a hook that fails is one WARN line: neither the answer nor the handler’s error changes', async () => {
    const failingHook = async () => {
      throw new Error('stdout closed');
    };
    const answered = handlerWith(failingHook, async () => 'done');
    const failed = handlerWith(failingHook, async () => {
      throw new Error('the handler’s own error');
    });

    await expect(answered.handler({}, lambdaContext())).resolves.toBe('done');
    await expect(failed.handler({}, lambdaContext())).rejects.toThrow('the handler’s own error');

    expect(answered.lines.map((l) => `${String(l.level)} ${String(l.message)}`)).toEqual([
      'warn after-invocation work failed',
      'info invocation done',
    ]);
    expect(failed.lines.map((l) => `${String(l.level)} ${String(l.message)}`)).toEqual([
      'warn after-invocation work failed',
      'error invocation failed',
    ]);
  });

  it('a hook that never ends is cut short before the deadline: the invocation still answers', async () => {
    const { lines, handler } = handlerWith(
      () => new Promise<void>(() => undefined),
      async () => 'done',
    );

    // 0.5 s left: the hook gets what remains less the reserve, then the answer goes out.
    await expect(handler({}, lambdaContext({}, 500))).resolves.toBe('done');

    expect(lines.map((l) => l.message)).toEqual([
      'after-invocation work cut short: the invocation ran out of time',
      'invocation done',
    ]);
  });
});
