/**
 * The one place that reads the environment. Everything else receives plain, validated values.
 */
import { isEksClusterName } from './domain/aws.ts';
import { SEVERITIES } from './domain/codes.ts';
import { SentinelError } from './domain/errors.ts';
import { THRESHOLDS } from './domain/finding-catalogue.ts';
import { oneLine } from './domain/shape.ts';
import { KUBE_READ_LIMITS_VARIABLE, parseKubeReadLimits, type KubeReadLimits } from './domain/kube-read-limits.ts';
import {
  ACTION_MODES,
  CLI_ACTIONS,
  formatDuration,
  parseDuration,
  parseUsd,
  type ActionMode,
  type ActionSettings,
  type AlertSettings,
  type DetectionSettings,
  type OptInTag,
} from './domain/settings.ts';

export interface TerminalEnvironment {
  /** NO_COLOR set (https://no-color.org): never colour. */
  noColor: boolean;
  /** FORCE_COLOR set to anything but 0/false: colour even off a TTY (0/false: never colour). */
  forceColor: boolean;
  /** COLUMNS when a positive integer: the width prose is wrapped to, over the terminal's own. */
  columns?: number;
}

export function readTerminalEnvironment(env: NodeJS.ProcessEnv = process.env): TerminalEnvironment {
  const force = env.FORCE_COLOR;
  // Node's convention: FORCE_COLOR=0 (or false) turns colour off even on a terminal.
  const forceOff = force === '0' || force === 'false';
  const columns = /^\s*[1-9]\d*\s*$/.test(env.COLUMNS ?? '') ? Number(env.COLUMNS) : undefined;
  return {
    noColor: (env.NO_COLOR !== undefined && env.NO_COLOR !== '') || forceOff,
    forceColor: force !== undefined && force !== '' && !forceOff,
    ...(columns !== undefined && { columns }),
  };
}

/** Where the CLI's live scans look for their region and kubeconfig, as the AWS CLI and kubectl do. */
export interface CliCloudEnvironment {
  /** AWS_REGION, else AWS_DEFAULT_REGION. */
  region: string | undefined;
  /** KUBECONFIG (may list several files, joined by ':'). */
  kubeconfig: string | undefined;
  /** KUBE_READ_LIMITS, as written (`--kube-read-limits` wins over it). */
  kubeReadLimits?: string | undefined;
}

export function readCliCloudEnvironment(env: NodeJS.ProcessEnv = process.env): CliCloudEnvironment {
  const nonEmpty = (v: string | undefined) => (v === undefined || v.trim() === '' ? undefined : v.trim());
  return {
    region: nonEmpty(env.AWS_REGION) ?? nonEmpty(env.AWS_DEFAULT_REGION),
    kubeconfig: nonEmpty(env.KUBECONFIG),
    kubeReadLimits: nonEmpty(env[KUBE_READ_LIMITS_VARIABLE]),
  };
}

// ---------------------------------------------------------------------------------------------
// The deployed service (Lambda). Every variable is declared in serverless.yml; each function reads
// its settings once, at cold start, and a bad value stops it there with a message naming the variable.
// ---------------------------------------------------------------------------------------------

/** What one bad variable may add to the line: a value pasted by mistake (a whole file) must not flood the log. */
const MAX_PROBLEM_CHARS = 300;

/**
 * One or more invalid variables: the message names each one and what was wrong. Thrown at cold
 * start, it fails the init and Lambda logs it with its `stack` split into lines: that stack is the
 * message alone, so the log shows one line naming the variable (docs/service.md, "Configuration"),
 * not the frames of a minified bundle, which say nothing about a setting.
 */
export class ConfigError extends SentinelError {
  readonly variables: string[];
  constructor(problems: { variable: string; problem: string }[]) {
    super(`invalid configuration: ${problems.map((p) => oneLine(`${p.variable} ${p.problem}`, MAX_PROBLEM_CHARS)).join('; ')}`);
    this.variables = problems.map((p) => p.variable);
    this.stack = `${this.name}: ${this.message}`;
  }
}

/** The metric namespace is fixed: the dashboard and the alarms name it (the EMF lines carry it). */
export type { AlertSettings } from './domain/settings.ts';

export const METRICS_NAMESPACE = 'KarpenterSentinel';

/** How every function logs (Powertools Logger): the service name on each line, and the lowest level written. */
export interface LoggingConfig {
  /** POWERTOOLS_SERVICE_NAME, default `karpenter-sentinel`. */
  serviceName: string;
  /** POWERTOOLS_LOG_LEVEL, default INFO (Lambda's own AWS_LAMBDA_LOG_LEVEL, when set, wins: Powertools reads it). */
  logLevel: LogLevelName;
}

const LOG_LEVELS = ['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT'] as const;
type LogLevelName = (typeof LOG_LEVELS)[number];
const DEFAULT_SERVICE_NAME = 'karpenter-sentinel';

/**
 * What Lambda sets in an on-demand environment, where Powertools reports `cold_start` (only there):
 * `npm run invoke` (scripts/invoke-local.ts, its only caller) stands in for one, so its log lines
 * carry the key as the deployed ones do. Here, not in the script: only this file touches the
 * environment (eslint.config.js, no-restricted-syntax).
 */
export function actAsOnDemandLambda(env: NodeJS.ProcessEnv = process.env): void {
  env.AWS_LAMBDA_INITIALIZATION_TYPE ??= 'on-demand';
}

export function readLoggingConfig(env: NodeJS.ProcessEnv = process.env): LoggingConfig {
  const read = new EnvReader(env);
  const level = read.optional('POWERTOOLS_LOG_LEVEL')?.toUpperCase();
  const config: LoggingConfig = {
    serviceName: read.optional('POWERTOOLS_SERVICE_NAME') ?? DEFAULT_SERVICE_NAME,
    logLevel: read.oneOf('POWERTOOLS_LOG_LEVEL', LOG_LEVELS, 'INFO', level),
  };
  return read.done(config);
}

export interface DispatchConfig {
  region: string;
  scanQueueUrl: string;
  /** CLUSTERS: scan exactly these; when unset, every cluster carrying the opt-in tag. */
  clusters: string[] | undefined;
  optInTag: OptInTag;
}

export interface ScanConfig {
  region: string;
  stateTable: string;
  alerts: AlertSettings;
  detection: DetectionSettings;
  actions: ActionSettings;
  /** A scan message older than this is dropped: a newer one for the same cluster is already queued. */
  scanMaxAgeMs: number;
  /** How long a processed delivery is remembered, so a duplicate does nothing. */
  idempotencyTtlMs: number;
  /**
   * How long a scan holds its cluster's lease (one scan per cluster at a time): longer than the
   * function's timeout, so a running scan never loses it; a crashed scan's lease lapses after it.
   */
  scanLeaseMs: number;
  /** KUBE_READ_LIMITS: how much one Kubernetes list or log may read (domain/kube-read-limits.ts); the rest default. */
  kubeReadLimits: Partial<KubeReadLimits>;
  /**
   * CLUSTERS: the clusters this stack serves. Only for them does the role hold TerminateInstances
   * (infra/iam.yml); unset, TERMINATE_INSTANCE_MODE apply is read as dry-run (see `warnings`).
   */
  clusters: string[] | undefined;
  /** Settings that were valid but cannot take effect as given: logged once, at cold start. */
  warnings: string[];
}

/** The scan function's timeout (serverless.yml) plus a margin: the default lease (a test keeps them apart). */
const DEFAULT_SCAN_LEASE_MS = 150_000;
/** Under a minute a lease lapses during an ordinary scan: refused, as it always was. */
const SCAN_LEASE_MIN_MS = 60_000;
/**
 * The scan function's timeout (serverless.yml): a lease that lapses sooner may be taken by the next
 * minute's scan while this one still writes, two scans acting at once (docs/service.md, "Overlaps").
 * Accepted with a warning, not refused: a deployment that set 1m–2m before keeps starting.
 */
const SCAN_TIMEOUT_MS = 120_000;
const LAMBDA_MAX_TIMEOUT_MS = 15 * 60_000;
/** Past Lambda's longest timeout and a margin a lease only keeps a killed scan's cluster waiting. */
const SCAN_LEASE_MAX_MS = LAMBDA_MAX_TIMEOUT_MS + SCAN_LEASE_MIN_MS;

export interface InterruptionsConfig {
  region: string;
  stateTable: string;
  alerts: AlertSettings;
  /** This many interruptions of one NodePool within one window is a surge. */
  surgeThreshold: number;
  surgeWindowMs: number;
  /** The controller state the last scan recorded counts only when it is at most this old. */
  controllerStatusMaxAgeMs: number;
  idempotencyTtlMs: number;
}

/** Where the webhook URL is stored (not to be confused with the port `WebhookUrlSource`, which reads it). */
type WebhookUrlLocation = { kind: 'ssm-parameter'; name: string } | { kind: 'secrets-manager'; secretId: string };

export interface SlackConfig {
  region: string;
  webhook: WebhookUrlLocation;
  /** Attempts per message, the first included, before the invocation fails (and Lambda retries, then the DLQ). */
  maxAttempts: number;
}

export function readDispatchConfig(env: NodeJS.ProcessEnv = process.env): DispatchConfig {
  const read = new EnvReader(env);
  const config: DispatchConfig = {
    region: read.required('AWS_REGION'),
    scanQueueUrl: read.required('SCAN_QUEUE_URL'),
    clusters: read.clusterNames('CLUSTERS'),
    optInTag: read.tag('OPT_IN_TAG', 'karpenter-sentinel/enabled=true'),
  };
  return read.done(config);
}

export function readScanConfig(env: NodeJS.ProcessEnv = process.env): ScanConfig {
  const read = new EnvReader(env);
  const config: ScanConfig = {
    region: read.required('AWS_REGION'),
    stateTable: read.required('STATE_TABLE'),
    alerts: readAlertSettings(read),
    detection: readDetection(read),
    actions: {
      modes: {
        ROLLOUT_RESTART: read.mode('ROLLOUT_RESTART_MODE', SERVICE_ACTIONS.modes.ROLLOUT_RESTART),
        TERMINATE_INSTANCE: read.mode('TERMINATE_INSTANCE_MODE', SERVICE_ACTIONS.modes.TERMINATE_INSTANCE),
      },
      maxTerminationsPerRun: read.integer('MAX_TERMINATIONS_PER_RUN', SERVICE_ACTIONS.maxTerminationsPerRun, 0, 1000),
      restartCooldownMs: read.duration('RESTART_COOLDOWN', SERVICE_ACTIONS.restartCooldownMs),
      maxRestartsPerHour: read.integer('MAX_RESTARTS_PER_HOUR', SERVICE_ACTIONS.maxRestartsPerHour, 0, 60),
    },
    scanMaxAgeMs: read.duration('SCAN_MAX_AGE', 5 * 60_000),
    idempotencyTtlMs: readIdempotencyTtl(read),
    scanLeaseMs: read.duration('SCAN_LEASE_DURATION', DEFAULT_SCAN_LEASE_MS),
    kubeReadLimits: read.readLimits(KUBE_READ_LIMITS_VARIABLE),
    clusters: read.clusterNames('CLUSTERS'),
    warnings: [],
  };
  // Without `clusters` the role holds no TerminateInstances: planning says so once, where applying would fail per instance.
  if (config.actions.modes.TERMINATE_INSTANCE === 'apply' && config.clusters === undefined) {
    config.actions.modes.TERMINATE_INSTANCE = 'dry-run';
    config.warnings.push(UNSCOPED_TERMINATION_WARNING);
  }
  // Under the scan timeout it would lapse while a slow scan still runs; over 16m it outlasts any Lambda timeout for nothing.
  if ((config.scanLeaseMs > 0 && config.scanLeaseMs < SCAN_LEASE_MIN_MS) || config.scanLeaseMs > SCAN_LEASE_MAX_MS) {
    read.problem('SCAN_LEASE_DURATION', 'must be from 1m to 16m: a bit longer than the scan function’s timeout');
  } else if (config.scanLeaseMs > 0 && config.scanLeaseMs < SCAN_TIMEOUT_MS) {
    config.warnings.push(SHORT_LEASE_WARNING);
  }
  return read.done(config);
}

export function readInterruptionsConfig(env: NodeJS.ProcessEnv = process.env): InterruptionsConfig {
  const read = new EnvReader(env);
  const config: InterruptionsConfig = {
    region: read.required('AWS_REGION'),
    stateTable: read.required('STATE_TABLE'),
    alerts: readAlertSettings(read),
    surgeThreshold: read.integer('SURGE_THRESHOLD', 5, 1, 10_000),
    surgeWindowMs: read.duration('SURGE_WINDOW', 10 * 60_000),
    controllerStatusMaxAgeMs: read.duration('CONTROLLER_STATUS_MAX_AGE', 10 * 60_000),
    idempotencyTtlMs: readIdempotencyTtl(read),
  };
  return read.done(config);
}

export function readSlackConfig(env: NodeJS.ProcessEnv = process.env): SlackConfig {
  const read = new EnvReader(env);
  const parameter = read.optional('SLACK_WEBHOOK_PARAMETER');
  const secret = read.optional('SLACK_WEBHOOK_SECRET');
  if ((parameter === undefined) === (secret === undefined)) {
    read.problem('SLACK_WEBHOOK_PARAMETER', 'or SLACK_WEBHOOK_SECRET must be set, not both and not neither');
  }
  const config: SlackConfig = {
    region: read.required('AWS_REGION'),
    webhook:
      secret !== undefined ? { kind: 'secrets-manager', secretId: secret } : { kind: 'ssm-parameter', name: parameter ?? '' },
    maxAttempts: read.integer('SLACK_MAX_ATTEMPTS', 5, 1, 10),
  };
  return read.done(config);
}

export interface CleanupConfig {
  region: string;
  /** No step, batch or wait starts later than this before the invocation's timeout: the run returns `complete: false` instead of being killed. */
  timeMarginMs: number;
  /** How long to wait for the deleted NodePools' NodeClaims to go before terminating what Karpenter left. */
  nodeClaimWaitMs: number;
  /** CLUSTERS: the clusters this stack serves; the role may delete only theirs (infra/iam.yml), so only they may be cleaned for real. */
  clusters: string[] | undefined;
}

/** Logged at cold start when SCAN_LEASE_DURATION is under the scan function's timeout. */
export const SHORT_LEASE_WARNING =
  'SCAN_LEASE_DURATION is under the scan function’s 2m timeout: a slow scan’s lease can lapse while it still runs, and the next minute’s scan then works on the same cluster at once; set it a bit over 2m (default 150s)';

/** Logged at cold start when terminations are asked for but the stack serves no listed cluster. */
export const UNSCOPED_TERMINATION_WARNING =
  'TERMINATE_INSTANCE_MODE is apply but CLUSTERS is unset: orphans are only planned, since the scan role may terminate only in the clusters the stack serves; deploy with --param="clusters=<name>[,<name>...]" (docs/deploy.md)';

export function readCleanupConfig(env: NodeJS.ProcessEnv = process.env): CleanupConfig {
  const read = new EnvReader(env);
  const config: CleanupConfig = {
    region: read.required('AWS_REGION'),
    timeMarginMs: read.duration('CLEANUP_TIME_MARGIN', 30_000),
    // DEFAULT_NODECLAIM_WAIT_MS of src/usecases/cleanup.ts (config reads no use case).
    nodeClaimWaitMs: read.duration('CLEANUP_NODECLAIM_WAIT', 5 * 60_000),
    clusters: read.clusterNames('CLUSTERS'),
  };
  if (config.timeMarginMs >= LAMBDA_MAX_TIMEOUT_MS)
    read.problem('CLEANUP_TIME_MARGIN', 'must be shorter than 15m, Lambda’s longest timeout');
  return read.done(config);
}

/** The deployed service fixes what is safe by default: restarts applied, terminations only planned (docs/guardrails.md#remediation-modes). */
export const SERVICE_ACTIONS: ActionSettings = {
  ...CLI_ACTIONS,
  modes: { ROLLOUT_RESTART: 'apply', TERMINATE_INSTANCE: 'dry-run' },
};

function readAlertSettings(read: EnvReader): AlertSettings {
  return {
    topicArn: read.required('ALERT_TOPIC_ARN'),
    minSeverity: read.oneOf('ALERT_MIN_SEVERITY', SEVERITIES, 'warning'),
    reminderIntervalMs: read.duration('ALERT_REMINDER_INTERVAL', 4 * 3_600_000),
  };
}

/** Every threshold of the finding catalogue from its variable (serverless.yml sets each from its param). */
function readDetection(read: EnvReader): DetectionSettings {
  const settings = THRESHOLDS.map((t) => [
    t.setting,
    t.unit === 'count'
      ? read.integer(t.env, t.default, t.envRange.min, t.envRange.max)
      : t.unit === 'usd'
        ? read.usd(t.env, t.default, t.range.min, t.range.max)
        : read.duration(t.env, t.default, t.min),
  ]);
  return Object.fromEntries(settings) as DetectionSettings;
}

/** One variable for both SQS functions: a duplicate delivery is recognised for this long. */
function readIdempotencyTtl(read: EnvReader): number {
  return read.duration('IDEMPOTENCY_TTL', 24 * 3_600_000);
}

/** Reads variables, remembering every problem so one message can name them all. */
class EnvReader {
  private readonly env: NodeJS.ProcessEnv;
  private readonly problems: { variable: string; problem: string }[] = [];

  constructor(env: NodeJS.ProcessEnv) {
    this.env = env;
  }

  optional(name: string): string | undefined {
    const value = this.env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  }

  required(name: string): string {
    const value = this.optional(name);
    if (value === undefined) this.problem(name, 'is required but not set');
    return value ?? '';
  }

  readLimits(name: string): Partial<KubeReadLimits> {
    const value = this.optional(name);
    if (value === undefined) return {};
    const limits = parseKubeReadLimits(value);
    if (!('problem' in limits)) return limits;
    this.problem(name, limits.problem);
    return {};
  }

  list(name: string): string[] | undefined {
    const value = this.optional(name);
    if (value === undefined) return undefined;
    const items = value
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    if (items.length === 0) this.problem(name, `must list at least one name, comma-separated (got ${JSON.stringify(value)})`);
    return items;
  }

  /** A comma list of EKS cluster names: a typo here would otherwise be a poison scan message every minute. */
  clusterNames(name: string): string[] | undefined {
    const names = this.list(name);
    const bad = names?.filter((n) => !isEksClusterName(n)) ?? [];
    if (bad.length > 0) this.problem(name, `holds ${bad.map((n) => JSON.stringify(n)).join(', ')}, not EKS cluster names`);
    return names;
  }

  tag(name: string, fallback: string): OptInTag {
    const value = this.optional(name) ?? fallback;
    const eq = value.indexOf('=');
    if (eq <= 0 || eq === value.length - 1) {
      this.problem(name, `must be KEY=VALUE, e.g. ${fallback} (got ${JSON.stringify(value)})`);
      return { key: '', value: '' };
    }
    return { key: value.slice(0, eq), value: value.slice(eq + 1) };
  }

  /** A duration above 0, and at least `min.ms` when given (`min.why` says why). */
  duration(name: string, fallback: number, min?: { ms: number; why: string }): number {
    const value = this.optional(name);
    if (value === undefined) return fallback;
    const ms = parseDuration(value);
    if (ms === undefined || ms <= 0) this.problem(name, `must be a duration like 90s, 15m or 4h (got ${JSON.stringify(value)})`);
    else if (min && ms < min.ms) {
      this.problem(name, `must be at least ${formatDuration(min.ms)}: ${min.why} (got ${JSON.stringify(value)})`);
    }
    return ms ?? fallback;
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    const value = this.optional(name);
    if (value === undefined) return fallback;
    const n = /^\d+$/.test(value) ? Number(value) : Number.NaN;
    if (!(n >= min && n <= max))
      this.problem(name, `must be a whole number from ${min} to ${max} (got ${JSON.stringify(value)})`);
    return Number.isNaN(n) ? fallback : n;
  }

  usd(name: string, fallback: number, min: number, max: number): number {
    const value = this.optional(name);
    if (value === undefined) return fallback;
    const n = parseUsd(value);
    if (n === undefined || n < min || n > max)
      this.problem(name, `must be an amount of USD from ${min} to ${max}, such as 50 or 12.5 (got ${JSON.stringify(value)})`);
    return n ?? fallback;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T, given = this.optional(name)): T {
    const value = given;
    if (value === undefined) return fallback;
    if ((allowed as readonly string[]).includes(value)) return value as T;
    this.problem(name, `must be one of ${allowed.join(', ')} (got ${JSON.stringify(value)})`);
    return fallback;
  }

  mode(name: string, fallback: ActionMode): ActionMode {
    return this.oneOf(name, ACTION_MODES, fallback);
  }

  problem(variable: string, problem: string): void {
    this.problems.push({ variable, problem });
  }

  done<T>(config: T): T {
    if (this.problems.length > 0) throw new ConfigError(this.problems);
    return config;
  }
}
