import middy from '@middy/core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  readLoggingConfig,
  readSlackConfig,
  readScanConfig,
  readInterruptionsConfig,
  UNSCOPED_TERMINATION_WARNING,
} from '../../../src/config.ts';
import { composeScan } from '../../../src/service/compose/scan.ts';
import {
  interruptionsEffectiveConfiguration,
  scanEffectiveConfiguration,
  slackEffectiveConfiguration,
} from '../../../src/service/compose/effective-config.ts';
import { THRESHOLDS } from '../../../src/domain/finding-catalogue.ts';
import { serviceMiddlewares } from '../../../src/service/middleware.ts';
import { powertoolsLogging } from '../../../src/service/powertools-logger.ts';
import { lambdaContext } from '../../support/lambda.ts';

/** What Powertools writes (INFO to stdout, WARN and ERROR to stderr), one parsed object per line. */
function captureLines() {
  const lines: Record<string, unknown>[] = [];
  const capture = (chunk: unknown) => {
    for (const line of String(chunk).split('\n'))
      if (line.startsWith('{')) lines.push(JSON.parse(line) as Record<string, unknown>);
    return true;
  };
  vi.spyOn(process.stdout, 'write').mockImplementation(capture);
  vi.spyOn(process.stderr, 'write').mockImplementation(capture);
  return lines;
}

beforeEach(() => {
  vi.stubEnv('AWS_LAMBDA_INITIALIZATION_TYPE', 'on-demand'); // set by Lambda; cold_start is reported only then
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

describe('the Powertools Logger behind the Logger port', () => {
  it('puts the invocation context on every line; configuration once per cold start; one closing line', async () => {
    // Prepare
    const lines = captureLines();
    const { logger, context } = powertoolsLogging({ serviceName: 'karpenter-sentinel', logLevel: 'INFO' });
    const handler = middy<unknown, { ok: boolean }>()
      .use(
        serviceMiddlewares(
          { logContext: context, effectiveConfiguration: { terminateInstanceMode: 'dry-run' } },
          { logger, functionName: 'scan', summarise: () => ({ scanned: 1 }) },
        ),
      )
      .handler(async () => {
        const log = logger.with({ cluster: 'prod-a' });
        log.info('cluster scanned', { findings: 2 });
        log.with({ messageId: 'm-1' }).warn('note: something set aside');
        return { ok: true };
      });

    // Act
    await handler({}, lambdaContext({ awsRequestId: 'req-1' }));
    await handler({}, lambdaContext({ awsRequestId: 'req-2' }));

    // Assess
    const context1 = {
      service: 'karpenter-sentinel',
      function_name: 'karpenter-sentinel-test',
      function_request_id: 'req-1',
      cold_start: true,
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    };
    expect(lines).toEqual([
      expect.objectContaining({
        ...context1,
        level: 'INFO',
        message: 'effective configuration',
        terminateInstanceMode: 'dry-run',
      }),
      expect.objectContaining({ ...context1, level: 'INFO', message: 'cluster scanned', cluster: 'prod-a', findings: 2 }),
      expect.objectContaining({
        ...context1,
        level: 'WARN',
        message: 'note: something set aside',
        cluster: 'prod-a',
        messageId: 'm-1',
      }),
      expect.objectContaining({ ...context1, level: 'INFO', message: 'invocation done', function: 'scan', scanned: 1 }),
      expect.objectContaining({ function_request_id: 'req-2', cold_start: false, message: 'cluster scanned' }),
      expect.objectContaining({ function_request_id: 'req-2', cold_start: false, message: 'note: something set aside' }),
      expect.objectContaining({ function_request_id: 'req-2', cold_start: false, message: 'invocation done' }),
    ]);
    // A logger's fields never reach the next line of another logger.
    expect(lines[4]).not.toHaveProperty('messageId');
  });

  it('a failed invocation closes with one ERROR line: the error and its cause, no stack', async () => {
    const lines = captureLines();
    const { logger, context } = powertoolsLogging({ serviceName: 'karpenter-sentinel', logLevel: 'INFO' });
    const handler = middy()
      .use(serviceMiddlewares({ logContext: context }, { logger, functionName: 'cleanup' }))
      .handler(async () => {
        throw new TypeError('bad request', { cause: new Error('field dryrun') });
      });

    await expect(handler({}, lambdaContext())).rejects.toThrow('bad request');

    expect(lines).toEqual([
      expect.objectContaining({
        level: 'ERROR',
        message: 'invocation failed',
        function: 'cleanup',
        error: 'TypeError: bad request',
        cause: 'Error: field dryrun',
        function_request_id: 'c0ffee00-0000-4000-8000-000000000001',
      }),
    ]);
    expect(JSON.stringify(lines)).not.toContain('    at ');
  });

  it('writes nothing under the configured level', async () => {
    const lines = captureLines();
    const { logger } = powertoolsLogging({ serviceName: 'x', logLevel: 'ERROR' });

    logger.info('quiet');
    logger.warn('quiet too');
    logger.error('loud');

    expect(lines.map((l) => [l.level, l.message, l.service])).toEqual([['ERROR', 'loud', 'x']]);
  });
});

describe('readLoggingConfig', () => {
  it('defaults to service karpenter-sentinel at INFO; reads POWERTOOLS_SERVICE_NAME and POWERTOOLS_LOG_LEVEL', () => {
    expect(readLoggingConfig({})).toEqual({ serviceName: 'karpenter-sentinel', logLevel: 'INFO' });
    expect(readLoggingConfig({ POWERTOOLS_SERVICE_NAME: 'sentinel-prod', POWERTOOLS_LOG_LEVEL: 'warn' })).toEqual({
      serviceName: 'sentinel-prod',
      logLevel: 'WARN',
    });
    expect(() => readLoggingConfig({ POWERTOOLS_LOG_LEVEL: 'loud' })).toThrow(
      /POWERTOOLS_LOG_LEVEL must be one of DEBUG, INFO, WARN, ERROR, SILENT \(got "LOUD"\)/,
    );
  });
});

describe('the effective configuration line', () => {
  const LOGGING = readLoggingConfig({});
  const WEBHOOK_URL = 'https://hooks.slack.com/services/T000/B000/s3cr3tT0k3nXYZ';

  it('names the modes, thresholds and resources of scan and interruptions', () => {
    const env = {
      AWS_REGION: 'eu-west-1',
      STATE_TABLE: 'karpenter-sentinel-prod-state',
      ALERT_TOPIC_ARN: 'arn:aws:sns:eu-west-1:111122223333:karpenter-sentinel-alerts',
      TERMINATE_INSTANCE_MODE: 'apply',
      CLUSTERS: 'prod-a,prod-b',
      KUBE_READ_LIMITS: 'response-size=64MiB,list-time=3m',
      TERMINATION_STUCK_AFTER: '20m',
      CHURN_PER_HOUR: '25',
    };

    expect(scanEffectiveConfiguration(readScanConfig(env), LOGGING)).toEqual({
      logLevel: 'INFO',
      region: 'eu-west-1',
      stateTable: 'karpenter-sentinel-prod-state',
      alertChannel: 'sns',
      alertMinSeverity: 'warning',
      alertReminderInterval: '4h',
      rolloutRestartMode: 'apply',
      terminateInstanceMode: 'apply',
      maxTerminationsPerRun: 20,
      maxRestartsPerHour: 3,
      restartCooldown: '15m',
      controllerPendingAfter: '5m',
      workloadPendingAfter: '10m',
      registrationTimeout: '10m',
      orphanGrace: '10m',
      terminationStuckAfter: '20m',
      disruptionBlockedAfter: '2h',
      churnPerHour: 25,
      consolidationBlockedAfter: '6h',
      wastePerDay: 50,
      initializationTimeout: '10m',
      notReadyAfter: '10m',
      scanMaxAge: '5m',
      idempotencyTtl: '1d',
      scanLeaseDuration: '2m30s',
      kubeReadLimits: {
        'response-size': '64 MiB',
        'list-size': '320 MiB',
        'list-items': '250,000',
        'list-pages': '5,000',
        'list-time': '3m',
        'log-size': '4 MiB',
      },
      clusters: ['prod-a', 'prod-b'],
    });
    expect(interruptionsEffectiveConfiguration(readInterruptionsConfig(env), LOGGING)).toMatchObject({
      alertChannel: 'sns',
      surgeThreshold: 5,
      surgeWindow: '10m',
      controllerStatusMaxAge: '10m',
    });
  });

  it('scan: every detection threshold of the finding catalogue, by its deploy param, as set', () => {
    const env = Object.fromEntries(THRESHOLDS.map((t) => [t.env, t.unit === 'duration' ? '7h' : '7']));
    const config = readScanConfig({
      ...env,
      AWS_REGION: 'eu-west-1',
      STATE_TABLE: 'state',
      ALERT_TOPIC_ARN: 'arn:aws:sns:eu-west-1:111122223333:alerts',
    });

    const line = scanEffectiveConfiguration(config, LOGGING);

    expect(THRESHOLDS.length).toBeGreaterThan(4);
    for (const t of THRESHOLDS) expect(line[t.param], t.param).toBe(t.unit === 'duration' ? '7h' : 7);
  });

  it('scan with TERMINATE_INSTANCE_MODE apply and CLUSTERS unset: one configuration warning per cold start, orphans only planned', async () => {
    // Prepare
    const lines = captureLines();
    const config = readScanConfig({
      AWS_REGION: 'eu-west-1',
      STATE_TABLE: 'karpenter-sentinel-prod-state',
      ALERT_TOPIC_ARN: 'arn:aws:sns:eu-west-1:111122223333:karpenter-sentinel-alerts',
      TERMINATE_INSTANCE_MODE: 'apply',
    });
    const deps = composeScan(config, { serviceName: 'karpenter-sentinel', logLevel: 'INFO' });
    const handler = middy()
      .use(serviceMiddlewares(deps, { logger: deps.logger, functionName: 'scan' }))
      .handler(async () => ({}));

    // Act
    await handler({}, lambdaContext({ awsRequestId: 'req-1' }));
    await handler({}, lambdaContext({ awsRequestId: 'req-2' }));

    // Assess
    expect(deps.settings.actions.modes.TERMINATE_INSTANCE).toBe('dry-run');
    expect(lines.filter((l) => l.message === 'effective configuration')).toEqual([
      expect.objectContaining({ terminateInstanceMode: 'dry-run', clusters: 'none (terminations only planned)' }),
    ]);
    const warnings = lines.filter((l) => l.level === 'WARN');
    expect(warnings).toEqual([
      expect.objectContaining({
        function_request_id: 'req-1',
        cold_start: true,
        message: `configuration: ${UNSCOPED_TERMINATION_WARNING}`,
      }),
    ]);
    expect(warnings[0]?.message).toContain('--param="clusters=');
  });

  it('scan with CLUSTERS set, or terminations not applied: no warning, the mode as given', () => {
    const base = {
      AWS_REGION: 'eu-west-1',
      STATE_TABLE: 'karpenter-sentinel-prod-state',
      ALERT_TOPIC_ARN: 'arn:aws:sns:eu-west-1:111122223333:karpenter-sentinel-alerts',
    };

    const scoped = readScanConfig({ ...base, TERMINATE_INSTANCE_MODE: 'apply', CLUSTERS: 'prod-a' });
    const planned = readScanConfig({ ...base, TERMINATE_INSTANCE_MODE: 'dry-run' });

    expect([scoped.actions.modes.TERMINATE_INSTANCE, scoped.warnings]).toEqual(['apply', []]);
    expect([planned.actions.modes.TERMINATE_INSTANCE, planned.warnings]).toEqual(['dry-run', []]);
  });

  it.each([
    ['an SSM parameter', { SLACK_WEBHOOK_PARAMETER: '/karpenter-sentinel/slack-webhook' }, 'ssm-parameter'],
    [
      'a Secrets Manager secret',
      { SLACK_WEBHOOK_SECRET: 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:hook-AbCdEf' },
      'secrets-manager',
    ],
  ])('slack-notify with %s: the kind of store only, never the URL, the parameter or the secret', (_, env, kind) => {
    const config = readSlackConfig({ AWS_REGION: 'eu-west-1', ...env });

    const line = slackEffectiveConfiguration(config, LOGGING);

    expect(line).toEqual({
      logLevel: 'INFO',
      region: 'eu-west-1',
      alertChannel: 'webhook',
      webhookStore: kind,
      slackMaxAttempts: 5,
    });
    const text = JSON.stringify(line);
    for (const secret of [WEBHOOK_URL, 's3cr3t', 'hooks.slack.com', ...Object.values(env)]) expect(text).not.toContain(secret);
  });
});
