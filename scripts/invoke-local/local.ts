/**
 * What every locally invoked function shares: placeholder settings read through src/config.ts (so
 * the deployed validation applies), a clock fixed at `--now`, a Lambda context, and the capture
 * that stands in for the AWS account and the cluster.
 */
import type { Context } from 'aws-lambda';
import { EmfMetricsSink, type EmfDocument } from '../../src/adapters/aws/emf-metrics.ts';
import { RecordingMetricsSink } from '../../src/adapters/memory/outputs.ts';
import { METRICS_NAMESPACE } from '../../src/config.ts';
import type { Alert } from '../../src/domain/alert.ts';
import type { MetricDatum } from '../../src/domain/metric.ts';
import type { ClusterSnapshot } from '../../src/domain/snapshot.ts';
import type { Clock } from '../../src/ports/clock.ts';
import type { MetricsSink, ScanRequest } from '../../src/ports/notify.ts';
import type { Logger } from '../../src/support/logger.ts';
import { loadSnapshot } from '../../src/snapshot/load.ts';
import type { LoggingConfig } from '../../src/config.ts';
import type { ServiceHooks } from '../../src/service/middleware.ts';
import type { EffectiveConfiguration } from '../../src/service/compose/effective-config.ts';
import { lambdaContext } from '../../test/support/lambda.ts';

/**
 * The variables serverless.yml sets from the stack's resources (queue URL, table, topic, Slack
 * parameter): placeholders here, since nothing is deployed. Every other setting keeps its default.
 */
export const PLACEHOLDER_ENV: Readonly<Record<string, string>> = {
  AWS_REGION: 'eu-west-1',
  STATE_TABLE: 'karpenter-sentinel-local-state',
  ALERT_TOPIC_ARN: 'arn:aws:sns:eu-west-1:111122223333:karpenter-sentinel-local-alerts',
  SCAN_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/111122223333/karpenter-sentinel-local-scan',
  SLACK_WEBHOOK_PARAMETER: '/karpenter-sentinel/local/slack-webhook',
};

export interface LocalSetup {
  /** Capture files or directories (`--simulate`): the account's AWS records and the cluster. */
  capture: readonly string[];
  /** `--clusters a,b` (scan-dispatch only): the CLUSTERS variable. */
  clusters: string | undefined;
  clock: Clock;
  /** The deployed functions' logger (Powertools, src/service/powertools-logger.ts), writing to stderr here. */
  logger: Logger;
  /** POWERTOOLS_SERVICE_NAME and POWERTOOLS_LOG_LEVEL as read when deployed. */
  logging: LoggingConfig;
  /** Powertools' injectLambdaContext for that logger: the Lambda context keys on every line. */
  logContext: NonNullable<ServiceHooks['logContext']>;
  /** Where the function's raw log lines go (EMF metrics): stderr, with the log lines. */
  logLine: (line: string) => void;
}

/** What the invocation sent, and what the user should know to read it. */
interface LocalOutputs {
  alerts?: readonly Alert[];
  metrics?: readonly MetricDatum[];
  /** The same metrics as the deployed function writes them: EMF documents (one log line each). */
  emf?: readonly EmfDocument[];
  queued?: readonly ScanRequest[];
  slack?: readonly unknown[];
  notes: readonly string[];
}

/**
 * What the composition roots (src/service/compose/) add around a handler, so a local invoke logs
 * exactly as the deployed function: the Lambda context on every line and the `effective
 * configuration` line (then its warnings) on the first invocation.
 */
export function deployedHooks(
  setup: LocalSetup,
  configuration: EffectiveConfiguration,
  warnings?: readonly string[],
): ServiceHooks {
  return {
    logContext: setup.logContext,
    effectiveConfiguration: configuration,
    ...(warnings ? { configWarnings: warnings } : {}),
  };
}

export interface LocalFunction {
  /** The deployed timeout, when the function watches its remaining time (default 60 s). */
  timeoutMs?: number;
  invoke(event: unknown, context: Context): Promise<unknown>;
  outputs(): LocalOutputs;
  close(): Promise<void>;
}

export function localContext(functionName: string, remainingMs = 60_000): Context {
  const name = `karpenter-sentinel-local-${functionName}`;
  return lambdaContext(
    {
      functionName: name,
      invokedFunctionArn: `arn:aws:lambda:eu-west-1:111122223333:function:${name}`,
      awsRequestId: '00000000-0000-4000-8000-000000000001',
      logGroupName: `/aws/lambda/${name}`,
      logStreamName: 'local',
    },
    remainingMs,
  );
}

export interface Capture {
  snapshot: ClusterSnapshot;
  /** The paths as given, for notes. */
  label: string;
  notices: string[];
}

export async function loadCapture(paths: readonly string[]): Promise<Capture> {
  const { snapshot, notices } = await loadSnapshot(paths);
  return { snapshot, label: paths.join(' '), notices };
}

/** The name the loader gives a capture that names no cluster anywhere. */
const UNNAMED = 'unknown';

/**
 * The capture as cluster `name`: each whole occurrence of its own cluster name (describe-cluster,
 * ARNs, `kubernetes.io/cluster/*` and `eks:eks-cluster-name` tags, Karpenter's settings) becomes
 * `name`, so a scan request for another cluster reads a coherent cluster rather than a gone one.
 * Names that merely start with it (`<cluster>-karpenter-node`) stay: they are names, not references.
 */
export function captureAs(snapshot: ClusterSnapshot, name: string): ClusterSnapshot {
  const own = snapshot.clusterName;
  if (own === name) return snapshot;
  const { captured, ...records } = snapshot;
  if (own === '' || own === UNNAMED) return { ...snapshot, clusterName: name };
  const whole = new RegExp(`(?<![A-Za-z0-9-])${own.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![A-Za-z0-9-])`, 'g');
  const renamed = JSON.parse(JSON.stringify(records).replace(whole, () => name)) as Omit<ClusterSnapshot, 'captured'>;
  return { ...renamed, captured: new Set(captured), clusterName: name };
}

/**
 * The metrics of a local invoke: recorded as datums, and written as the deployed function writes
 * them, EMF lines, into the log stream (`logLine`, stderr) and the document's `emf`.
 */
export function localMetrics(logger: Logger, logLine: (line: string) => void) {
  const recording = new RecordingMetricsSink();
  const documents: EmfDocument[] = [];
  const emf = new EmfMetricsSink(METRICS_NAMESPACE, {
    logger,
    write: (line) => {
      documents.push(JSON.parse(line) as EmfDocument);
      logLine(line);
    },
  });
  const sink: MetricsSink = {
    async put(datums, timestamp) {
      await recording.put(datums, timestamp);
      await emf.put(datums, timestamp);
    },
  };
  return { sink, datums: () => recording.datums, emf: () => documents };
}
