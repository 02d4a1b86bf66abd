/**
 * What a function runs with, as one log line per cold start (`effective configuration`): the modes,
 * toggles, thresholds, durations, clusters and resource names. Picked field by field, so a secret
 * can only appear here by someone adding it: the Slack webhook URL is never in the configuration
 * (it is read from SSM or Secrets Manager at run time), and where it is stored is logged as its
 * kind only.
 */
import type { CleanupConfig, DispatchConfig, InterruptionsConfig, LoggingConfig, ScanConfig, SlackConfig } from '../../config.ts';
import {
  DEFAULT_KUBE_READ_LIMITS,
  formatReadLimit,
  KUBE_READ_LIMIT_NAMES,
  type KubeReadLimits,
} from '../../domain/kube-read-limits.ts';
import { THRESHOLDS, type ThresholdSetting } from '../../domain/finding-catalogue.ts';
import { formatDuration, type AlertSettings, type DetectionSettings } from '../../domain/settings.ts';

export type EffectiveConfiguration = Record<string, unknown>;

/** The service name is on every line already (`service`). */
const logging = (config: LoggingConfig) => ({ logLevel: config.logLevel });

const alerting = (alerts: AlertSettings) => ({
  alertChannel: 'sns',
  alertMinSeverity: alerts.minSeverity,
  alertReminderInterval: formatDuration(alerts.reminderIntervalMs),
});

export function dispatchEffectiveConfiguration(config: DispatchConfig, log: LoggingConfig): EffectiveConfiguration {
  return {
    ...logging(log),
    region: config.region,
    clusters: config.clusters ?? 'opt-in tag',
    ...(config.clusters ? {} : { optInTag: `${config.optInTag.key}=${config.optInTag.value}` }),
  };
}

/**
 * Every detection threshold of the finding catalogue, by its osls param (`orphanGrace: '10m'`,
 * `churnPerHour: 10`): a threshold added to the catalogue is logged without a line here.
 */
function effectiveThresholds(detection: DetectionSettings): Record<string, string | number> {
  return Object.fromEntries(
    THRESHOLDS.map((t) => {
      const value = detection[t.setting as ThresholdSetting];
      return [t.param, t.unit === 'duration' ? formatDuration(value) : value];
    }),
  );
}

/** `{ 'response-size': '32 MiB', ... }`, each limit by its `KUBE_READ_LIMITS` name. */
function effectiveReadLimits(set: Partial<KubeReadLimits>): Record<string, string> {
  const limits = { ...DEFAULT_KUBE_READ_LIMITS, ...set };
  const keys = Object.keys(KUBE_READ_LIMIT_NAMES) as (keyof KubeReadLimits)[];
  return Object.fromEntries(keys.map((key) => [KUBE_READ_LIMIT_NAMES[key].name, formatReadLimit(key, limits[key])]));
}

export function scanEffectiveConfiguration(config: ScanConfig, log: LoggingConfig): EffectiveConfiguration {
  const { detection, actions } = config;
  return {
    ...logging(log),
    region: config.region,
    stateTable: config.stateTable,
    ...alerting(config.alerts),
    rolloutRestartMode: actions.modes.ROLLOUT_RESTART,
    terminateInstanceMode: actions.modes.TERMINATE_INSTANCE,
    maxTerminationsPerRun: actions.maxTerminationsPerRun,
    maxRestartsPerHour: actions.maxRestartsPerHour,
    restartCooldown: formatDuration(actions.restartCooldownMs),
    ...effectiveThresholds(detection),
    scanMaxAge: formatDuration(config.scanMaxAgeMs),
    idempotencyTtl: formatDuration(config.idempotencyTtlMs),
    scanLeaseDuration: formatDuration(config.scanLeaseMs),
    // Every read limit in force, defaults filled in: what a gap's "raise it with" line is measured against.
    kubeReadLimits: effectiveReadLimits(config.kubeReadLimits),
    // The clusters whose orphans the role may terminate (infra/iam.yml): none when unset.
    clusters: config.clusters ?? 'none (terminations only planned)',
  };
}

export function interruptionsEffectiveConfiguration(config: InterruptionsConfig, log: LoggingConfig): EffectiveConfiguration {
  return {
    ...logging(log),
    region: config.region,
    stateTable: config.stateTable,
    ...alerting(config.alerts),
    surgeThreshold: config.surgeThreshold,
    surgeWindow: formatDuration(config.surgeWindowMs),
    controllerStatusMaxAge: formatDuration(config.controllerStatusMaxAgeMs),
    idempotencyTtl: formatDuration(config.idempotencyTtlMs),
  };
}

export function slackEffectiveConfiguration(config: SlackConfig, log: LoggingConfig): EffectiveConfiguration {
  return {
    ...logging(log),
    region: config.region,
    alertChannel: 'webhook',
    // Where the URL is kept, by kind: not the parameter or secret, and never the URL.
    webhookStore: config.webhook.kind,
    slackMaxAttempts: config.maxAttempts,
  };
}

export function cleanupEffectiveConfiguration(config: CleanupConfig, log: LoggingConfig): EffectiveConfiguration {
  return {
    ...logging(log),
    region: config.region,
    cleanupTimeMargin: formatDuration(config.timeMarginMs),
    cleanupNodeClaimWait: formatDuration(config.nodeClaimWaitMs),
    // The clusters the role may delete in (infra/iam.yml): any other gets a dry run only.
    clusters: config.clusters ?? 'none (dry runs only)',
  };
}
