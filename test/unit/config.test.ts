import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  SERVICE_ACTIONS,
  SHORT_LEASE_WARNING,
  readCleanupConfig,
  readDispatchConfig,
  readInterruptionsConfig,
  readScanConfig,
  readSlackConfig,
  readTerminalEnvironment,
} from '../../src/config.ts';
import { DEFAULT_DETECTION } from '../../src/domain/settings.ts';
import { DEFAULT_NODECLAIM_WAIT_MS } from '../../src/usecases/cleanup.ts';

describe('readTerminalEnvironment', () => {
  it.each([
    [{}, { noColor: false, forceColor: false }],
    [{ NO_COLOR: '1' }, { noColor: true, forceColor: false }],
    [{ NO_COLOR: '' }, { noColor: false, forceColor: false }],
    [{ FORCE_COLOR: '1' }, { noColor: false, forceColor: true }],
    [{ FORCE_COLOR: '0' }, { noColor: true, forceColor: false }],
    [{ FORCE_COLOR: 'false' }, { noColor: true, forceColor: false }],
    [{ COLUMNS: '72' }, { noColor: false, forceColor: false, columns: 72 }],
    [{ COLUMNS: '0' }, { noColor: false, forceColor: false }],
    [{ COLUMNS: '-80' }, { noColor: false, forceColor: false }],
    [{ COLUMNS: 'wide' }, { noColor: false, forceColor: false }],
    [{ COLUMNS: '' }, { noColor: false, forceColor: false }],
  ])('%j → %j', (env, expected) => {
    expect(readTerminalEnvironment(env)).toEqual(expected);
  });
});

describe('service configuration', () => {
  const scanEnv = {
    AWS_REGION: 'eu-west-1',
    STATE_TABLE: 'sentinel-state',
    ALERT_TOPIC_ARN: 'arn:aws:sns:eu-west-1:111122223333:alerts',
  };

  it('defaults the scan to the design card: restarts applied, terminations only planned, 4 h reminders', () => {
    const config = readScanConfig(scanEnv);

    expect(config.actions).toEqual(SERVICE_ACTIONS);
    expect(config.actions.modes).toEqual({ ROLLOUT_RESTART: 'apply', TERMINATE_INSTANCE: 'dry-run' });
    expect(config.detection).toEqual(DEFAULT_DETECTION);
    expect(config.alerts).toEqual({
      topicArn: scanEnv.ALERT_TOPIC_ARN,
      minSeverity: 'warning',
      reminderIntervalMs: 4 * 3_600_000,
    });
    // The scan function's 120 s timeout and a margin.
    expect(config.scanLeaseMs).toBe(150_000);
  });

  it('accepts a lease under the scan timeout but warns, since the next scan may then overlap a slow one', () => {
    const short = readScanConfig({ ...scanEnv, SCAN_LEASE_DURATION: '90s' });
    const usual = readScanConfig({ ...scanEnv, SCAN_LEASE_DURATION: '150s' });
    expect([short.scanLeaseMs, short.warnings.includes(SHORT_LEASE_WARNING)]).toEqual([90_000, true]);
    expect(usual.warnings.includes(SHORT_LEASE_WARNING)).toBe(false);
  });

  it('reads every override', () => {
    const config = readScanConfig({
      ...scanEnv,
      TERMINATE_INSTANCE_MODE: 'apply',
      ROLLOUT_RESTART_MODE: 'off',
      MAX_TERMINATIONS_PER_RUN: '5',
      RESTART_COOLDOWN: '30m',
      CONTROLLER_PENDING_AFTER: '2m',
      TERMINATION_STUCK_AFTER: '30m',
      DISRUPTION_BLOCKED_AFTER: '6h',
      CHURN_PER_HOUR: '4',
      ALERT_MIN_SEVERITY: 'critical',
      ALERT_REMINDER_INTERVAL: '1h30m',
      SCAN_LEASE_DURATION: '5m',
      CLUSTERS: 'prod-a,prod-b',
      ORPHAN_GRACE: '5m',
    });

    expect(config.actions.modes).toEqual({ ROLLOUT_RESTART: 'off', TERMINATE_INSTANCE: 'apply' });
    expect(config.clusters).toEqual(['prod-a', 'prod-b']);
    expect(config.actions.maxTerminationsPerRun).toBe(5);
    expect(config.actions.restartCooldownMs).toBe(30 * 60_000);
    expect(config.detection.controllerPendingMs).toBe(2 * 60_000);
    expect(config.detection).toMatchObject({
      terminationStuckMs: 30 * 60_000,
      disruptionBlockedMs: 6 * 3_600_000,
      churnPerHour: 4,
      orphanGraceMs: 5 * 60_000,
    });
    expect(config.alerts.minSeverity).toBe('critical');
    expect(config.alerts.reminderIntervalMs).toBe(90 * 60_000);
    expect(config.scanLeaseMs).toBe(5 * 60_000);
  });

  it.each([
    [{ TERMINATE_INSTANCE_MODE: 'yes' }, 'TERMINATE_INSTANCE_MODE must be one of off, dry-run, apply (got "yes")'],
    [{ RESTART_COOLDOWN: 'soon' }, 'RESTART_COOLDOWN must be a duration like 90s, 15m or 4h (got "soon")'],
    [{ MAX_TERMINATIONS_PER_RUN: '-1' }, 'MAX_TERMINATIONS_PER_RUN must be a whole number from 0 to 1000 (got "-1")'],
    [{ ALERT_MIN_SEVERITY: 'high' }, 'ALERT_MIN_SEVERITY must be one of critical, warning, info (got "high")'],
    [{ SCAN_LEASE_DURATION: '30s' }, 'SCAN_LEASE_DURATION must be from 1m to 16m'],
    [{ SCAN_LEASE_DURATION: '1h' }, 'SCAN_LEASE_DURATION must be from 1m to 16m'],
    [{ ORPHAN_GRACE: '5m5m' }, 'ORPHAN_GRACE must be a duration like 90s, 15m or 4h (got "5m5m")'],
    [{ ORPHAN_GRACE: '5x' }, 'ORPHAN_GRACE must be a duration like 90s, 15m or 4h (got "5x")'],
    [{ ORPHAN_GRACE: '-10m' }, 'ORPHAN_GRACE must be a duration like 90s, 15m or 4h (got "-10m")'],
    [{ ORPHAN_GRACE: '0' }, 'ORPHAN_GRACE must be a duration like 90s, 15m or 4h (got "0")'],
    [
      { ORPHAN_GRACE: '2m' },
      'ORPHAN_GRACE must be at least 5m: a younger instance may be one Karpenter is still launching (got "2m")',
    ],
    [{ ORPHAN_GRACE: '4m59s' }, 'ORPHAN_GRACE must be at least 5m'],
  ])('a bad value %j fails naming the variable', (bad, message) => {
    expect(() => readScanConfig({ ...scanEnv, ...bad })).toThrow(message);
  });

  it('names every missing required variable in one line', () => {
    const error = captureError(() => readScanConfig({}));

    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variables).toEqual(['AWS_REGION', 'STATE_TABLE', 'ALERT_TOPIC_ARN']);
    expect((error as Error).message).not.toContain('\n');
  });

  it('dispatch: the opt-in tag is KEY=VALUE and CLUSTERS a comma list', () => {
    const env = { AWS_REGION: 'eu-west-1', SCAN_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/111122223333/scan' };

    expect(readDispatchConfig(env)).toMatchObject({
      clusters: undefined,
      optInTag: { key: 'karpenter-sentinel/enabled', value: 'true' },
    });
    expect(readDispatchConfig({ ...env, CLUSTERS: ' prod, staging ,' }).clusters).toEqual(['prod', 'staging']);
    expect(() => readDispatchConfig({ ...env, OPT_IN_TAG: 'sentinel' })).toThrow('OPT_IN_TAG must be KEY=VALUE');
    expect(() => readDispatchConfig({ ...env, CLUSTERS: ' , ' })).toThrow('CLUSTERS must list at least one name');
    expect(() => readDispatchConfig({ ...env, CLUSTERS: 'prod,prod eu' })).toThrow(
      'CLUSTERS holds "prod eu", not EKS cluster names',
    );
  });

  it('interruptions: surge threshold and window', () => {
    const config = readInterruptionsConfig({ ...scanEnv, SURGE_THRESHOLD: '3', SURGE_WINDOW: '5m' });

    expect(config).toMatchObject({ surgeThreshold: 3, surgeWindowMs: 5 * 60_000, controllerStatusMaxAgeMs: 10 * 60_000 });
    expect(() => readInterruptionsConfig({ ...scanEnv, SURGE_THRESHOLD: '0' })).toThrow('SURGE_THRESHOLD must be a whole number');
  });

  it('slack: exactly one of the SSM parameter and the secret', () => {
    const env = { AWS_REGION: 'eu-west-1' };

    expect(readSlackConfig({ ...env, SLACK_WEBHOOK_PARAMETER: '/sentinel/slack' }).webhook).toEqual({
      kind: 'ssm-parameter',
      name: '/sentinel/slack',
    });
    expect(readSlackConfig({ ...env, SLACK_WEBHOOK_SECRET: 'sentinel/slack' }).webhook).toEqual({
      kind: 'secrets-manager',
      secretId: 'sentinel/slack',
    });
    expect(() => readSlackConfig(env)).toThrow('SLACK_WEBHOOK_PARAMETER or SLACK_WEBHOOK_SECRET must be set');
    expect(() => readSlackConfig({ ...env, SLACK_WEBHOOK_PARAMETER: 'a', SLACK_WEBHOOK_SECRET: 'b' })).toThrow('not both');
  });

  it('cleanup: stops 30 s before the timeout and waits 5 min for NodeClaims by default', () => {
    const config = readCleanupConfig({ AWS_REGION: 'eu-central-1' });

    expect(config).toEqual({ region: 'eu-central-1', timeMarginMs: 30_000, nodeClaimWaitMs: 5 * 60_000 });
    expect(config.nodeClaimWaitMs).toBe(DEFAULT_NODECLAIM_WAIT_MS);
  });

  it('cleanup: reads both durations', () => {
    const config = readCleanupConfig({ AWS_REGION: 'eu-central-1', CLEANUP_TIME_MARGIN: '1m', CLEANUP_NODECLAIM_WAIT: '10m' });

    expect(config).toMatchObject({ timeMarginMs: 60_000, nodeClaimWaitMs: 10 * 60_000 });
  });

  it.each([
    [{ CLEANUP_TIME_MARGIN: '0s' }, 'CLEANUP_TIME_MARGIN must be a duration like 90s, 15m or 4h (got "0s")'],
    [{ CLEANUP_TIME_MARGIN: '15m' }, 'CLEANUP_TIME_MARGIN must be shorter than 15m'],
    [{ CLEANUP_NODECLAIM_WAIT: 'forever' }, 'CLEANUP_NODECLAIM_WAIT must be a duration like 90s, 15m or 4h (got "forever")'],
  ])('cleanup: a bad value %j fails naming the variable', (bad, message) => {
    expect(() => readCleanupConfig({ AWS_REGION: 'eu-central-1', ...bad })).toThrow(message);
  });

  it('cleanup: the region is required', () => {
    const error = captureError(() => readCleanupConfig({ CLEANUP_TIME_MARGIN: '14m59s' }));

    expect((error as ConfigError).variables).toEqual(['AWS_REGION']);
  });
});

function captureError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}
