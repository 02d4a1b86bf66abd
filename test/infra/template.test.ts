/**
 * The packaged service: `npm run package` (bundle + `osls package`, offline, no credentials), then
 * the generated CloudFormation template checked for what issue 4 promises: encryption, DLQs,
 * partial batch failures, the queue policy, the five rules, the table, alarms, dashboard, every
 * configuration variable, and least-privilege IAM (no wildcard actions, guarded termination).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAMBDA_FUNCTIONS, type LambdaFunctionName } from '../../scripts/bundle.ts';
import { packageService } from '../../scripts/package-service.ts';
import { zipEntries } from '../../scripts/zip-entries.ts';
import { STATE_TABLE_KEYS } from '../../src/adapters/aws/state-table.ts';
import {
  ConfigError,
  METRICS_NAMESPACE,
  readCleanupConfig,
  readDispatchConfig,
  readInterruptionsConfig,
  readScanConfig,
  readSlackConfig,
} from '../../src/config.ts';
import { FINDING_METRICS } from '../../src/domain/finding-catalogue.ts';
import { METRIC } from '../../src/domain/metric.ts';
import { FOREIGN_OWNER_TAGS } from '../../src/domain/tags.ts';
import { INTERRUPTING_STATES } from '../../src/interruptions/kinds/state-change.ts';
import { KIND_PARSERS } from '../../src/interruptions/parse.ts';
import {
  at,
  conditionHolds,
  iamAllows,
  isObject,
  lambdaLogicalId,
  logGroupLogicalId,
  readTemplate,
  referenceProblems,
  resource,
  resourcesOfType,
  roleStatements,
  SAMPLE_ACCOUNT,
  statementsOf,
  substitute,
  type Statement,
  type Template,
} from './cloudformation.ts';

const SLACK_PARAMETER = '/karpenter-sentinel/slack-webhook';

let workDir: string;
/** Packaged with the default params: slack-notify's condition is false. */
let template: Template;
/** Packaged with `--param slackWebhookParameter=...` (every function deployed) and a concurrency cap of 12. */
let slackTemplate: Template;
let packageDir: string;
/** Packaged with `--param clusters=...`: the scan and cleanup roles may terminate and delete, for those clusters only. */
let clustersTemplate: Template;
const LISTED_CLUSTERS = ['prod-eu', 'prod-us'];

beforeAll(async () => {
  workDir = await mkdtemp(path.join(tmpdir(), 'karpenter-sentinel-package-'));
  packageDir = path.join(workDir, 'default');
  // Copies of the service, so the repository's dist/ and .serverless/ are left alone.
  const packaged = await packageService({ serviceDir: path.join(workDir, 'service'), packageDir });
  await packageService({
    serviceDir: path.join(workDir, 'service-slack'),
    packageDir: path.join(workDir, 'slack'),
    bundlesFrom: packaged.serviceDir,
    params: { slackWebhookParameter: SLACK_PARAMETER, interruptionsMaxConcurrency: '12' },
  });
  await packageService({
    serviceDir: path.join(workDir, 'service-clusters'),
    packageDir: path.join(workDir, 'clusters'),
    bundlesFrom: packaged.serviceDir,
    params: { clusters: LISTED_CLUSTERS.join(',') },
  });
  template = await readTemplate(packageDir);
  clustersTemplate = await readTemplate(path.join(workDir, 'clusters'));
  slackTemplate = await readTemplate(path.join(workDir, 'slack'));
}, 300_000);

afterAll(async () => {
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

type Reader = (env: NodeJS.ProcessEnv) => unknown;
const READERS: Record<LambdaFunctionName, Reader> = {
  'scan-dispatch': readDispatchConfig,
  scan: readScanConfig,
  interruptions: readInterruptionsConfig,
  'slack-notify': readSlackConfig,
  cleanup: readCleanupConfig,
};
/** Lambda sets it; a function may not declare it. */
const LAMBDA_RESERVED = new Set(['AWS_REGION']);

function functionOf(t: Template, fn: string) {
  return resource(t, lambdaLogicalId(fn));
}

function roleOf(t: Template, fn: string) {
  const arn = at(functionOf(t, fn), 'Properties', 'Role', 'Fn::GetAtt');
  if (!Array.isArray(arn) || typeof arn[0] !== 'string') throw new Error(`${fn} has no role of this template`);
  return { id: arn[0], role: resource(t, arn[0]) };
}

function declaredVariables(t: Template, fn: string): Record<string, unknown> {
  const variables = at(functionOf(t, fn), 'Properties', 'Environment', 'Variables');
  return isObject(variables) ? variables : {};
}

/** Every variable a reader looks at, whether or not it is required. */
function variablesRead(reader: Reader): string[] {
  const seen = new Set<string>();
  const env = new Proxy({} as NodeJS.ProcessEnv, {
    get: (_target, key) => {
      if (typeof key === 'string') seen.add(key);
      return undefined;
    },
  });
  try {
    reader(env);
  } catch {
    // An empty environment is invalid; only the names matter here.
  }
  return [...seen];
}

function requiredVariables(reader: Reader): string[] {
  try {
    reader({});
  } catch (error) {
    if (error instanceof ConfigError) return error.variables;
    throw error;
  }
  return [];
}

/** The function's environment as Lambda would see it, with a placeholder for each reference. */
function deployedEnvironment(t: Template, fn: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { AWS_REGION: 'us-east-1' };
  for (const [name, value] of Object.entries(declaredVariables(t, fn))) {
    env[name] = typeof value === 'string' ? value : `<reference ${JSON.stringify(value)}>`;
  }
  return env;
}

function allRoleStatements(t: Template): [string, Statement][] {
  return resourcesOfType(t, 'AWS::IAM::Role').flatMap(([id, role]) =>
    roleStatements(role).map((s): [string, Statement] => [id, s]),
  );
}

function actionsOf(statements: readonly Statement[]): string[] {
  return [...new Set(statements.flatMap((s) => s.Action))].sort();
}

const getAtt = (id: string, attribute = 'Arn') => ({ 'Fn::GetAtt': [id, attribute] });

describe('packaged artifacts', () => {
  it.each(LAMBDA_FUNCTIONS)('%s: a zip holding only its ESM bundle', async (fn) => {
    // Prepare
    const zip = await readFile(path.join(packageDir, `${fn}.zip`));

    // Act
    const names = zipEntries(zip).map((e) => e.name);

    // Assess
    expect(names).toEqual([`dist/${fn}/index.mjs`]);
  });

  it.each(LAMBDA_FUNCTIONS)('%s: nodejs22.x on arm64, handler in the bundle, its own role and log retention', (fn) => {
    const properties = functionOf(slackTemplate, fn).Properties;

    expect(properties?.Runtime).toBe('nodejs22.x');
    expect(properties?.Architectures).toEqual(['arm64']);
    expect(properties?.Handler).toBe(`dist/${fn}/index.handler`);
    expect(roleOf(slackTemplate, fn).role.Type).toBe('AWS::IAM::Role');
    expect(at(resource(slackTemplate, logGroupLogicalId(fn)), 'Properties', 'RetentionInDays')).toBe(30);
  });

  it('gives every function a role of its own and no shared default role', () => {
    const roles = LAMBDA_FUNCTIONS.map((fn) => roleOf(slackTemplate, fn).id);

    expect(new Set(roles).size).toBe(LAMBDA_FUNCTIONS.length);
    expect(slackTemplate.Resources.IamRoleLambdaExecution).toBeUndefined();
  });

  it('references only what exists, and conditional resources only under their condition', () => {
    expect(referenceProblems(template)).toEqual([]);
    expect(referenceProblems(slackTemplate)).toEqual([]);
  });
});

describe('configuration', () => {
  it.each(LAMBDA_FUNCTIONS)('%s declares every variable its config reader reads', (fn) => {
    const wanted = variablesRead(READERS[fn]).filter((v) => !LAMBDA_RESERVED.has(v));

    const declared = Object.keys(declaredVariables(slackTemplate, fn));

    expect(wanted.length).toBeGreaterThan(0);
    expect(declared.sort()).toEqual([...wanted].sort());
  });

  it.each(LAMBDA_FUNCTIONS)('%s gives every required variable a value, and its defaults pass validation', (fn) => {
    const env = deployedEnvironment(slackTemplate, fn);

    for (const name of requiredVariables(READERS[fn])) expect(env[name], name).toBeTruthy();
    expect(() => READERS[fn](env)).not.toThrow();
  });

  it.each(['scan-dispatch', 'scan', 'interruptions', 'cleanup'] as const)(
    '%s: the deployed defaults are the code defaults',
    (fn) => {
      // Prepare: only what the reader requires, so everything else takes src/config.ts's default
      const deployed = deployedEnvironment(template, fn);
      const minimal: NodeJS.ProcessEnv = Object.fromEntries(requiredVariables(READERS[fn]).map((v) => [v, deployed[v]]));

      // Act / Assess
      expect(READERS[fn](deployed)).toEqual(READERS[fn](minimal));
    },
  );

  it('deploys restarts in apply and terminations in dry-run by default', () => {
    const env = deployedEnvironment(template, 'scan');

    expect(env.ROLLOUT_RESTART_MODE).toBe('apply');
    expect(env.TERMINATE_INSTANCE_MODE).toBe('dry-run');
  });

  it('scan: the cluster lease outlasts the function’s timeout, so a running scan never loses it', () => {
    const leaseMs = readScanConfig(deployedEnvironment(template, 'scan')).scanLeaseMs;
    const timeoutMs = Number(functionOf(template, 'scan').Properties?.Timeout) * 1000;

    expect(leaseMs).toBeGreaterThan(timeoutMs);
    expect(leaseMs).toBeLessThanOrEqual(timeoutMs + 60_000);
  });

  it('takes settings from --param', () => {
    expect(declaredVariables(slackTemplate, 'slack-notify').SLACK_WEBHOOK_PARAMETER).toBe(SLACK_PARAMETER);
    expect(declaredVariables(template, 'slack-notify').SLACK_WEBHOOK_PARAMETER).toBe('');
  });
});

describe('queues', () => {
  const queues = [
    { queue: 'ScanQueue', dlq: 'ScanDeadLetterQueue', fn: 'scan', receives: 3 },
    { queue: 'InterruptionQueue', dlq: 'InterruptionDeadLetterQueue', fn: 'interruptions', receives: 5 },
  ] as const;

  it('encrypts every queue', () => {
    const all = resourcesOfType(slackTemplate, 'AWS::SQS::Queue');

    expect(all.map(([id]) => id).sort()).toEqual(
      [
        'InterruptionDeadLetterQueue',
        'InterruptionQueue',
        'ScanDeadLetterQueue',
        'ScanQueue',
        'SlackNotifyDeadLetterQueue',
      ].sort(),
    );
    for (const [id, q] of all) expect(q.Properties?.SqsManagedSseEnabled ?? q.Properties?.KmsMasterKeyId, id).toBeTruthy();
  });

  it.each(queues)('$queue redrives to $dlq after $receives receives', ({ queue, dlq, receives }) => {
    const redrive = at(resource(template, queue), 'Properties', 'RedrivePolicy');

    expect(redrive).toEqual({ deadLetterTargetArn: getAtt(dlq), maxReceiveCount: receives });
    expect(at(resource(template, dlq), 'Properties', 'MessageRetentionPeriod')).toBe(1_209_600);
  });

  it.each(queues)('$queue: visibility timeout at least 6x the $fn timeout', ({ queue, fn }) => {
    const visibility = Number(at(resource(template, queue), 'Properties', 'VisibilityTimeout'));
    const timeout = Number(functionOf(template, fn).Properties?.Timeout);

    expect(visibility).toBeGreaterThanOrEqual(6 * timeout);
  });

  it.each(queues)('$fn consumes $queue with partial batch failures', ({ queue, fn }) => {
    const mappings = resourcesOfType(template, 'AWS::Lambda::EventSourceMapping').filter(
      ([, m]) => JSON.stringify(m.Properties?.EventSourceArn) === JSON.stringify(getAtt(queue)),
    );

    expect(mappings).toHaveLength(1);
    const properties = mappings[0]?.[1].Properties;
    expect(properties?.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
    expect(properties?.FunctionName).toEqual(getAtt(lambdaLogicalId(fn)));
  });

  it('caps the interruptions event source at 5 concurrent invocations (param interruptionsMaxConcurrency), reserving nothing', () => {
    const scaling = (t: Template, queue: string) =>
      resourcesOfType(t, 'AWS::Lambda::EventSourceMapping')
        .filter(([, m]) => JSON.stringify(m.Properties?.EventSourceArn) === JSON.stringify(getAtt(queue)))
        .map(([, m]) => m.Properties?.ScalingConfig);

    expect(scaling(template, 'InterruptionQueue')).toEqual([{ MaximumConcurrency: 5 }]);
    expect(scaling(slackTemplate, 'InterruptionQueue')).toEqual([{ MaximumConcurrency: 12 }]);
    // Reserved concurrency would take from the account's pool and throttle SQS batches into the DLQ.
    for (const [id, fn] of resourcesOfType(slackTemplate, 'AWS::Lambda::Function')) {
      expect(fn.Properties?.ReservedConcurrentExecutions, id).toBeUndefined();
    }
  });

  it('lets only this stack’s five rules send to the interruption queue', () => {
    const rules = resourcesOfType(template, 'AWS::Events::Rule')
      .filter(([, r]) => JSON.stringify(at(r, 'Properties', 'Targets', 0, 'Arn')) === JSON.stringify(getAtt('InterruptionQueue')))
      .map(([id]) => getAtt(id));
    const policies = resourcesOfType(template, 'AWS::SQS::QueuePolicy').filter(([, p]) =>
      JSON.stringify(p.Properties?.Queues).includes('"InterruptionQueue"'),
    );

    expect(rules).toHaveLength(5);
    expect(policies).toHaveLength(1);
    const allows = statementsOf(at(policies[0]?.[1], 'Properties', 'PolicyDocument')).filter((s) => s.Effect === 'Allow');
    expect(allows).toHaveLength(1);
    expect(allows[0]?.Principal).toEqual({ Service: 'events.amazonaws.com' });
    expect(allows[0]?.Action).toEqual(['sqs:SendMessage']);
    const sourceArns = at(allows[0], 'Condition', 'ArnEquals', 'aws:SourceArn');
    expect(Array.isArray(sourceArns) ? [...sourceArns] : sourceArns).toEqual(expect.arrayContaining(rules));
    expect(Array.isArray(sourceArns) && sourceArns.length).toBe(5);
  });

  it('refuses non-TLS requests on every queue', () => {
    const queueIds = resourcesOfType(slackTemplate, 'AWS::SQS::Queue').map(([id]) => id);
    const policies = resourcesOfType(slackTemplate, 'AWS::SQS::QueuePolicy');

    for (const id of queueIds) {
      const policy = policies.find(([, p]) => JSON.stringify(p.Properties?.Queues) === JSON.stringify([{ Ref: id }]));
      const denies = statementsOf(at(policy?.[1], 'Properties', 'PolicyDocument')).filter((s) => s.Effect === 'Deny');
      expect(denies, id).toHaveLength(1);
      expect(denies[0]?.Principal).toBe('*');
      expect(denies[0]?.Condition).toEqual({ Bool: { 'aws:SecureTransport': 'false' } });
    }
  });
});

describe('interruption rules', () => {
  const expected: Record<string, unknown> = {
    SpotInterruptionRule: { source: ['aws.ec2'], 'detail-type': ['EC2 Spot Instance Interruption Warning'] },
    RebalanceRecommendationRule: { source: ['aws.ec2'], 'detail-type': ['EC2 Instance Rebalance Recommendation'] },
    InstanceStateChangeRule: {
      source: ['aws.ec2'],
      'detail-type': ['EC2 Instance State-change Notification'],
      detail: { state: ['stopping', 'stopped', 'shutting-down', 'terminated'] },
    },
    ScheduledChangeRule: {
      source: ['aws.health'],
      'detail-type': ['AWS Health Event'],
      detail: { service: ['EC2'], eventTypeCategory: ['scheduledChange'] },
    },
    CapacityReservationInterruptionRule: {
      source: ['aws.ec2'],
      'detail-type': ['EC2 Capacity Reservation Instance Interruption Warning'],
    },
  };

  it.each(Object.keys(expected))('%s matches exactly its events and targets the interruption queue', (id) => {
    const rule = resource(template, id);

    expect(rule.Properties?.EventPattern).toEqual(expected[id]);
    expect(rule.Properties?.State).toBe('ENABLED');
    expect(rule.Properties?.Targets).toEqual([{ Id: 'InterruptionQueue', Arn: getAtt('InterruptionQueue') }]);
  });

  it('has one rule for every kind the interruptions function parses, and the states it counts', () => {
    const patterns = resourcesOfType(template, 'AWS::Events::Rule').map(([, r]) => r.Properties?.EventPattern);

    for (const parser of KIND_PARSERS) {
      const matching = patterns.filter(
        (p) =>
          JSON.stringify(at(p, 'source')) === JSON.stringify([parser.source]) && at(p, 'detail-type', 0) === parser.detailType,
      );
      expect(matching, parser.detailType).toHaveLength(1);
    }
    expect(
      new Set(at(resource(template, 'InstanceStateChangeRule'), 'Properties', 'EventPattern', 'detail', 'state') as string[]),
    ).toEqual(new Set(INTERRUPTING_STATES));
  });
});

describe('alert topic and state table', () => {
  it('encrypts the topic with its own rotating key that CloudWatch alarms may use', () => {
    const topic = resource(template, 'AlertTopic');
    const key = resource(template, 'AlertTopicKey');
    const keyStatements = statementsOf(at(key, 'Properties', 'KeyPolicy'));

    expect(topic.Properties?.KmsMasterKeyId).toEqual({ Ref: 'AlertTopicKey' });
    expect(key.Type).toBe('AWS::KMS::Key');
    expect(key.Properties?.EnableKeyRotation).toBe(true);
    const cloudwatch = keyStatements.find(
      (s) => JSON.stringify(s.Principal) === JSON.stringify({ Service: 'cloudwatch.amazonaws.com' }),
    );
    expect(cloudwatch?.Action.sort()).toEqual(['kms:Decrypt', 'kms:GenerateDataKey']);
    expect(at(cloudwatch, 'Condition', 'StringEquals', 'aws:SourceAccount')).toEqual({ Ref: 'AWS::AccountId' });
    // The account keeps administering the key (KMS refuses a policy that locks it out).
    expect(keyStatements.some((s) => s.Action.includes('kms:PutKeyPolicy'))).toBe(true);
  });

  it('creates the state table on demand, with the code’s key schema, TTL, PITR and encryption', () => {
    const table = resource(template, 'StateTable').Properties;

    expect(table?.BillingMode).toBe('PAY_PER_REQUEST');
    expect(table?.KeySchema).toEqual([
      { AttributeName: STATE_TABLE_KEYS.partitionKey, KeyType: 'HASH' },
      { AttributeName: STATE_TABLE_KEYS.sortKey, KeyType: 'RANGE' },
    ]);
    expect(table?.AttributeDefinitions).toEqual([
      { AttributeName: STATE_TABLE_KEYS.partitionKey, AttributeType: 'S' },
      { AttributeName: STATE_TABLE_KEYS.sortKey, AttributeType: 'S' },
    ]);
    expect(table?.TimeToLiveSpecification).toEqual({ AttributeName: STATE_TABLE_KEYS.ttlAttribute, Enabled: true });
    expect(table?.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
    expect(table?.SSESpecification).toEqual({ SSEEnabled: true });
  });

  it('exports the scan and cleanup role ARNs for the clusters’ access entries, and the cleanup function’s name', () => {
    expect(template.Outputs?.ScanRoleArn?.Value).toEqual(getAtt('ScanRole'));
    expect(template.Outputs?.CleanupRoleArn?.Value).toEqual(getAtt('CleanupRole'));
    expect(template.Outputs?.CleanupFunctionName?.Value).toEqual({ Ref: lambdaLogicalId('cleanup') });
  });
});

describe('cleanup function', () => {
  it('runs up to Lambda’s 15 minutes, with 512 MB, stopping 30 s before the end', () => {
    const properties = functionOf(template, 'cleanup').Properties;

    expect(properties?.Timeout).toBe(900);
    expect(properties?.MemorySize).toBe(512);
    expect(readCleanupConfig(deployedEnvironment(template, 'cleanup')).timeMarginMs).toBe(30_000);
  });

  it('is invoked only by hand: no event source, no permission for any service, never retried', () => {
    const cleanupRef = JSON.stringify({ Ref: lambdaLogicalId('cleanup') });
    const cleanupArn = JSON.stringify(getAtt(lambdaLogicalId('cleanup')));
    const invokeConfig = resourcesOfType(slackTemplate, 'AWS::Lambda::EventInvokeConfig').find(
      ([, c]) => JSON.stringify(c.Properties?.FunctionName) === cleanupRef,
    );
    const triggers = [
      ...resourcesOfType(slackTemplate, 'AWS::Lambda::EventSourceMapping'),
      ...resourcesOfType(slackTemplate, 'AWS::Lambda::Permission'),
      ...resourcesOfType(slackTemplate, 'AWS::Events::Rule'),
      ...resourcesOfType(slackTemplate, 'AWS::SNS::Subscription'),
    ].filter(([, r]) => [cleanupRef, cleanupArn].some((ref) => JSON.stringify(r.Properties).includes(ref)));

    expect(triggers.map(([id]) => id)).toEqual([]);
    expect(at(invokeConfig?.[1], 'Properties', 'MaximumRetryAttempts')).toBe(0);
  });
});

describe('slack-notify', () => {
  it('exists only when a webhook location is given', () => {
    expect(conditionHolds(template, 'SlackEnabled')).toBe(false);
    expect(conditionHolds(slackTemplate, 'SlackEnabled')).toBe(true);
    for (const id of [
      lambdaLogicalId('slack-notify'),
      'SlackNotifyRole',
      'SlackNotifySubscription',
      'SlackNotifyDeadLetterQueue',
    ]) {
      expect(resource(slackTemplate, id).Condition, id).toBe('SlackEnabled');
    }
  });

  it('is subscribed to the alert topic and sends what still fails to its DLQ after two retries', () => {
    const subscription = resource(slackTemplate, 'SlackNotifySubscription').Properties;
    const invokeConfig = resourcesOfType(slackTemplate, 'AWS::Lambda::EventInvokeConfig').find(
      ([, c]) => JSON.stringify(c.Properties?.FunctionName) === JSON.stringify({ Ref: lambdaLogicalId('slack-notify') }),
    );

    expect(subscription).toMatchObject({ TopicArn: { Ref: 'AlertTopic' }, Protocol: 'lambda' });
    expect(at(invokeConfig?.[1], 'Properties', 'MaximumRetryAttempts')).toBe(2);
    expect(at(invokeConfig?.[1], 'Properties', 'DestinationConfig', 'OnFailure', 'Destination')).toEqual(
      getAtt('SlackNotifyDeadLetterQueue'),
    );
  });

  it('may read the configured parameter and nothing else', () => {
    const reads = roleStatements(roleOf(slackTemplate, 'slack-notify').role).filter((s) => s.Action.includes('ssm:GetParameter'));

    expect(reads).toHaveLength(1);
    const resources = (reads[0]?.Resource ?? []).map((r) => substitute(slackTemplate, at(r, 'Fn::Sub')));
    expect(resources).toContain(`arn:<AWS::Partition>:ssm:<AWS::Region>:<AWS::AccountId>:parameter${SLACK_PARAMETER}`);
    expect(resources.every((r) => r.includes(SLACK_PARAMETER))).toBe(true);
  });
});

describe('alarms', () => {
  const alarms = () => resourcesOfType(slackTemplate, 'AWS::CloudWatch::Alarm').map(([, a]) => a.Properties ?? {});

  it('publishes every alarm to the alert topic', () => {
    for (const alarm of alarms()) expect(alarm.AlarmActions, String(alarm.AlarmName)).toEqual([{ Ref: 'AlertTopic' }]);
  });

  it.each(['ScanDeadLetterQueue', 'InterruptionDeadLetterQueue', 'SlackNotifyDeadLetterQueue'])(
    'alarms when %s holds a message',
    (dlq) => {
      const alarm = alarms().find(
        (a) => JSON.stringify(a.Dimensions) === JSON.stringify([{ Name: 'QueueName', Value: getAtt(dlq, 'QueueName') }]),
      );

      expect(alarm).toMatchObject({
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
      });
    },
  );

  it.each(LAMBDA_FUNCTIONS)('alarms on %s errors', (fn) => {
    const alarm = alarms().find(
      (a) => JSON.stringify(a.Dimensions) === JSON.stringify([{ Name: 'FunctionName', Value: { Ref: lambdaLogicalId(fn) } }]),
    );

    expect(alarm).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'Errors',
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
    });
  });

  /**
   * Whether the alarm is in ALARM after `scans` consecutive breaching scans, one every
   * `everyMinutes` (missing data as the alarm treats it): CloudWatch's M out of N evaluation.
   */
  function firesAfter(alarm: Record<string, unknown> | undefined, scans: number, everyMinutes: number): boolean {
    const period = Number(alarm?.Period) / 60;
    const periods = Number(alarm?.EvaluationPeriods);
    const needed = Number(alarm?.DatapointsToAlarm ?? periods);
    const breachingMinutes = new Set(Array.from({ length: scans }, (_, i) => i * everyMinutes));
    const last = (scans - 1) * everyMinutes;
    let breaching = 0;
    for (let p = 0; p < periods; p++) {
      const end = last - p * period;
      for (let m = end; m > end - period; m--) if (breachingMinutes.has(m)) breaching += 1;
    }
    return alarm?.TreatMissingData === 'notBreaching' && breaching >= needed;
  }

  it.each([METRIC.scanGaps, METRIC.scanFailures, METRIC.clustersNotFound])(
    'alarms on %s after 3 breaching scans running, at rate(1 minute) and at the documented rate(5 minutes), not after 2 (account-wide series)',
    (metric) => {
      const alarm = alarms().find((a) => a.MetricName === metric);

      expect(alarm).toMatchObject({ Namespace: METRICS_NAMESPACE, Statistic: 'Sum', Period: 60 });
      expect(alarm?.Dimensions).toBeUndefined();
      for (const everyMinutes of [1, 5]) {
        expect(firesAfter(alarm, 3, everyMinutes)).toBe(true);
        expect(firesAfter(alarm, 2, everyMinutes)).toBe(false);
      }
    },
  );

  it('watches the watcher: no cluster scanned for 5 minutes, silence counting as failure', () => {
    const alarm = alarms().find((a) => a.MetricName === METRIC.clustersScanned);

    expect(alarm).toMatchObject({
      Namespace: METRICS_NAMESPACE,
      Statistic: 'Sum',
      Period: 60,
      EvaluationPeriods: 5,
      Threshold: 1,
      ComparisonOperator: 'LessThanThreshold',
      TreatMissingData: 'breaching',
    });
    expect(alarm?.Dimensions).toBeUndefined();
  });
});

describe('dashboard', () => {
  const body = (t: Template) =>
    JSON.parse(substitute(t, at(resource(t, 'Dashboard'), 'Properties', 'DashboardBody', 'Fn::Sub'))) as unknown;
  const expressions = (t: Template) => JSON.stringify(body(t));

  it('is valid JSON with and without slack-notify', () => {
    expect(at(body(template), 'widgets')).toEqual(expect.any(Array));
    expect(expressions(slackTemplate)).toContain('<SlackNotifyDeadLetterQueue.QueueName>');
    expect(expressions(template)).not.toContain('SlackNotify');
  });

  const perCluster = [...Object.values(METRIC), ...FINDING_METRICS.map((m) => m.name)].filter(
    (m) => m !== METRIC.clustersScanned,
  );
  it.each(perCluster)('shows %s per cluster with a SEARCH', (metric) => {
    const searches = [...expressions(template).matchAll(/SEARCH\('\{([^}]*)\} MetricName=\\"([A-Za-z]+)\\"'/g)];

    const schema = searches.find((m) => m[2] === metric)?.[1]?.split(',');

    expect(schema?.[0]).toBe(METRICS_NAMESPACE);
    expect(schema).toContain('Cluster');
  });

  it('shows the DLQ depths and the function errors', () => {
    const text = expressions(template);

    expect(text).toContain('"ApproximateNumberOfMessagesVisible","QueueName","<ScanDeadLetterQueue.QueueName>"');
    expect(text).toContain('"ApproximateNumberOfMessagesVisible","QueueName","<InterruptionDeadLetterQueue.QueueName>"');
    for (const fn of ['scan-dispatch', 'scan', 'interruptions', 'cleanup'])
      expect(text).toContain(`"Errors","FunctionName","<${lambdaLogicalId(fn)}>"`);
  });
});

describe('IAM', () => {
  /** The APIs with no resource-level permissions: the only ones allowed on Resource '*'. */
  const NO_RESOURCE_LEVEL = new Set([
    'eks:ListClusters',
    'ec2:DescribeInstances',
    'ec2:DescribeLaunchTemplates',
    'ec2:DescribeSubnets',
    'ec2:DescribeInstanceTypes',
    'ec2:DescribeSpotPriceHistory',
    'cloudwatch:GetMetricStatistics',
  ]);

  it.each(['scan', 'cleanup'])(
    '%s may list instance profiles and read their tags (the proof of Karpenter’s), on instance profiles only',
    (fn) => {
      const reads = roleStatements(roleOf(template, fn).role).filter((s) => s.Action.includes('iam:ListInstanceProfileTags'));

      expect(reads).toHaveLength(1);
      expect(reads[0]?.Effect).toBe('Allow');
      expect([...(reads[0]?.Action ?? [])].sort()).toEqual(['iam:ListInstanceProfileTags', 'iam:ListInstanceProfiles']);
      expect(reads[0]?.Resource).toEqual([{ 'Fn::Sub': 'arn:${AWS::Partition}:iam::${AWS::AccountId}:instance-profile/*' }]);
    },
  );

  it('grants no wildcard action, in roles or in the Allow statements of resource policies', () => {
    const resourcePolicies = [
      ...resourcesOfType(slackTemplate, 'AWS::SQS::QueuePolicy').map(([, p]) => at(p, 'Properties', 'PolicyDocument')),
      ...resourcesOfType(slackTemplate, 'AWS::KMS::Key').map(([, k]) => at(k, 'Properties', 'KeyPolicy')),
    ].flatMap((document) => statementsOf(document));
    const roles = allRoleStatements(slackTemplate).map(([, s]) => s);

    const wildcards = [...roles, ...resourcePolicies.filter((s) => s.Effect === 'Allow')]
      .flatMap((s) => s.Action)
      .filter((a) => a.includes('*'));

    expect(roles.length).toBeGreaterThan(10);
    expect(wildcards).toEqual([]);
  });

  it("uses Resource '*' only for APIs without resource-level permissions", () => {
    const unscoped = allRoleStatements(slackTemplate).filter(([, s]) => s.Resource.includes('*'));

    for (const [role, s] of unscoped)
      for (const action of s.Action) expect(NO_RESOURCE_LEVEL.has(action), `${role} ${action}`).toBe(true);
  });

  /** What terminates, deletes or detaches: each must be held to the clusters the stack serves. */
  const DESTRUCTIVE = [
    'ec2:TerminateInstances',
    'ec2:DeleteLaunchTemplate',
    'iam:RemoveRoleFromInstanceProfile',
    'iam:DeleteInstanceProfile',
  ];
  /** The statements CloudFormation deploys for a role, each with its role's logical id. */
  const deployedStatements = (t: Template): [string, Statement][] =>
    resourcesOfType(t, 'AWS::IAM::Role').flatMap(([id, role]) =>
      roleStatements(role, t).map((s): [string, Statement] => [id, s]),
    );
  const destructive = (t: Template) => deployedStatements(t).filter(([, s]) => s.Action.some((a) => DESTRUCTIVE.includes(a)));
  const deployedRole = (t: Template, id: string) => roleStatements(resource(t, id), t);

  it('without `clusters`, no role may terminate, delete or detach anything: the scan and cleanup roles only read', () => {
    for (const t of [template, slackTemplate]) {
      expect(conditionHolds(t, 'ClustersListed')).toBe(false);
      expect(destructive(t)).toEqual([]);
    }
    // The statements are there, behind the condition (not lost): `clusters` brings them back.
    expect(destructive(clustersTemplate).map(([role]) => role)).toEqual([
      'ScanRole',
      'CleanupRole',
      'CleanupRole',
      'CleanupRole',
      'CleanupRole',
    ]);
  });

  it('with `clusters` set, every destructive statement names the listed clusters, in a condition or in its ARNs', () => {
    const grants = destructive(clustersTemplate);

    expect(grants.length).toBe(5);
    for (const [role, statement] of grants) {
      const text = JSON.stringify(statement);
      for (const cluster of LISTED_CLUSTERS) expect(text, `${role} ${statement.Sid}`).toContain(cluster);
      // Each statement's cluster condition lists exactly those clusters (the ARN alone would let `a` reach `a_b`).
      const clusterValues = Object.entries(at(statement.Condition, 'StringEquals') ?? {})
        .filter(([key]) => key.endsWith('/eks:eks-cluster-name') || key.endsWith('/karpenter.k8s.aws/cluster'))
        .map(([, value]) => value);
      expect(clusterValues, `${role} ${statement.Sid}`).toEqual([LISTED_CLUSTERS]);
    }
  });

  it('terminates only instances carrying Karpenter’s tags and EC2’s launch tags, owned by no node group', () => {
    const grants = destructive(clustersTemplate).filter(([, s]) => s.Action.includes('ec2:TerminateInstances'));

    expect(grants.map(([role]) => role).sort()).toEqual(['CleanupRole', 'ScanRole']);
    for (const [role, statement] of grants) {
      expect(statement.Action, role).toEqual(['ec2:TerminateInstances']);
      expect(statement.Resource, role).toEqual([
        { 'Fn::Sub': 'arn:${AWS::Partition}:ec2:${AWS::Region}:${AWS::AccountId}:instance/*' },
      ]);
      const nullConditions = at(statement.Condition, 'Null');
      // Each present (false) tag: Karpenter's own, and the aws: tags no caller can write (EC2 sets
      // them when an EC2 Fleet launches from a launch template). Forgeable tags alone do not pass.
      expect(nullConditions, role).toMatchObject({
        'aws:ResourceTag/karpenter.sh/nodepool': 'false',
        'aws:ResourceTag/karpenter.sh/nodeclaim': 'false',
        'aws:ResourceTag/karpenter.k8s.aws/ec2nodeclass': 'false',
        'aws:ResourceTag/aws:ec2launchtemplate:id': 'false',
        'aws:ResourceTag/aws:ec2:fleet-id': 'false',
        'aws:ResourceTag/eks:nodegroup-name': 'true',
      });
      for (const tag of FOREIGN_OWNER_TAGS) expect(at(nullConditions, `aws:ResourceTag/${tag}`), `${role} ${tag}`).toBe('true');
    }
    // The cleanup is held to exactly the scan's guard, not a looser copy of it.
    expect(grants[0]?.[1].Condition).toEqual(grants[1]?.[1].Condition);
  });

  describe('evaluated against sample requests (clusters prod-eu,prod-us)', () => {
    const { partition, accountId, region } = SAMPLE_ACCOUNT;
    const [cluster = '', other = ''] = LISTED_CLUSTERS;
    const instanceArn = `arn:${partition}:ec2:${region}:${accountId}:instance/i-0123456789abcdef0`;
    const templateArn = `arn:${partition}:ec2:${region}:${accountId}:launch-template/lt-0123456789abcdef0`;
    const profileArn = (pathAndName: string) => `arn:${partition}:iam::${accountId}:instance-profile/${pathAndName}`;
    const karpenterInstance = (clusterName: string) => ({
      'karpenter.sh/nodepool': 'default',
      'karpenter.sh/nodeclaim': 'default-x7k2p',
      'karpenter.k8s.aws/ec2nodeclass': 'default',
      'eks:eks-cluster-name': clusterName,
      'aws:ec2launchtemplate:id': 'lt-0123456789abcdef0',
      'aws:ec2launchtemplate:version': '1',
      'aws:ec2:fleet-id': 'fleet-0123456789abcdef0',
    });
    const karpenterTemplate = (clusterName: string) => ({
      'karpenter.sh/nodepool': 'default',
      'karpenter.k8s.aws/ec2nodeclass': 'default',
      'eks:eks-cluster-name': clusterName,
      [`kubernetes.io/cluster/${clusterName}`]: 'owned',
    });
    const karpenterProfile = (clusterName: string, profileRegion: string = region) => ({
      [`kubernetes.io/cluster/${clusterName}`]: 'owned',
      'eks:eks-cluster-name': clusterName,
      'karpenter.k8s.aws/ec2nodeclass': 'default',
      'topology.kubernetes.io/region': profileRegion,
    });

    it.each(['ScanRole', 'CleanupRole'])('%s terminates a listed cluster’s Karpenter instance, none of another', (role) => {
      const statements = deployedRole(clustersTemplate, role);
      const terminate = (tags: Record<string, string>) =>
        iamAllows(statements, { action: 'ec2:TerminateInstances', resource: instanceArn, tags });

      expect(terminate(karpenterInstance(cluster))).toBe(true);
      expect(terminate(karpenterInstance(other))).toBe(true);
      expect(terminate(karpenterInstance('prod-ap'))).toBe(false);
      expect(terminate({ ...karpenterInstance(cluster), 'eks:nodegroup-name': 'system' })).toBe(false);
      const { 'aws:ec2:fleet-id': _fleet, ...notByFleet } = karpenterInstance(cluster);
      expect(terminate(notByFleet)).toBe(false);
      // Unset `clusters`: not even this stack's own cluster.
      expect(
        iamAllows(deployedRole(template, role), {
          action: 'ec2:TerminateInstances',
          resource: instanceArn,
          tags: karpenterInstance(cluster),
        }),
      ).toBe(false);
    });

    it('the cleanup deletes a listed cluster’s Karpenter launch template, not a node group’s or another cluster’s', () => {
      const statements = deployedRole(clustersTemplate, 'CleanupRole');
      const remove = (tags: Record<string, string>) =>
        iamAllows(statements, { action: 'ec2:DeleteLaunchTemplate', resource: templateArn, tags });

      expect(remove(karpenterTemplate(cluster))).toBe(true);
      const { 'eks:eks-cluster-name': _current, ...legacy } = karpenterTemplate(cluster);
      expect(remove({ ...legacy, 'karpenter.k8s.aws/cluster': cluster })).toBe(true);
      expect(remove(karpenterTemplate('prod-ap'))).toBe(false);
      expect(remove({ ...legacy, 'karpenter.k8s.aws/cluster': 'prod-ap' })).toBe(false);
      // A node group's (or a user's) template tagged for the cluster, without Karpenter's own tags.
      expect(remove({ 'eks:eks-cluster-name': cluster, 'eks:nodegroup-name': 'system' })).toBe(false);
      expect(
        iamAllows(deployedRole(template, 'CleanupRole'), {
          action: 'ec2:DeleteLaunchTemplate',
          resource: templateArn,
          tags: karpenterTemplate(cluster),
        }),
      ).toBe(false);
    });

    it.each(['iam:RemoveRoleFromInstanceProfile', 'iam:DeleteInstanceProfile'])(
      'the cleanup may %s only on a listed cluster’s Karpenter profile of this region',
      (action) => {
        const statements = deployedRole(clustersTemplate, 'CleanupRole');
        const allowed = (pathAndName: string, tags: Record<string, string>) =>
          iamAllows(statements, { action, resource: profileArn(pathAndName), tags });

        // Karpenter >= 1.7: under /karpenter/<region>/<cluster>/<EC2NodeClass uid>/.
        const uid = '6f1c2b7e-0d4a-4c5e-9b8f-3a2d1e0c9b7a';
        expect(allowed(`karpenter/${region}/${cluster}/${uid}/${cluster}_2210914871349226017`, karpenterProfile(cluster))).toBe(
          true,
        );
        // Before: at /, named <cluster>_<number>.
        expect(allowed(`${other}_10480372154367880520`, karpenterProfile(other))).toBe(true);
        // Another region's profile of a cluster of the same name (IAM is global): by path, and by tag.
        expect(allowed(`karpenter/us-east-1/${cluster}/${uid}/${cluster}_1`, karpenterProfile(cluster, 'us-east-1'))).toBe(false);
        expect(allowed(`${cluster}_1`, karpenterProfile(cluster, 'us-east-1'))).toBe(false);
        // No region tag: no longer passes as "not another region's".
        const { 'topology.kubernetes.io/region': _region, ...noRegion } = karpenterProfile(cluster);
        expect(allowed(`${cluster}_1`, noRegion)).toBe(false);
        // Cluster `prod-eu_x` shares the name prefix `prod-eu_`; its tag tells them apart.
        expect(allowed(`${cluster}_x_1`, karpenterProfile(`${cluster}_x`))).toBe(false);
        // Tagged for a listed cluster but named or placed otherwise: not by ARN.
        expect(allowed('node-role-profile', karpenterProfile(cluster))).toBe(false);
        expect(allowed(`karpenter/${region}/prod-ap/${uid}/prod-ap_1`, karpenterProfile(cluster))).toBe(false);
        // Not Karpenter's: no EC2NodeClass tag.
        const { 'karpenter.k8s.aws/ec2nodeclass': _nodeClass, ...notKarpenters } = karpenterProfile(cluster);
        expect(allowed(`${cluster}_1`, notKarpenters)).toBe(false);
        // Unset `clusters`: nothing.
        expect(
          iamAllows(deployedRole(template, 'CleanupRole'), {
            action,
            resource: profileArn(`karpenter/${region}/${cluster}/${uid}/${cluster}_1`),
            tags: karpenterProfile(cluster),
          }),
        ).toBe(false);
      },
    );
  });

  it('grants no IAM Allow with a wildcard action, even as a prefix', () => {
    const allows = allRoleStatements(slackTemplate).filter(([, s]) => s.Effect === 'Allow');

    const wildcards = allows.flatMap(([role, s]) =>
      s.Action.filter((a) => a === '*' || a.includes('*')).map((a) => `${role} ${a}`),
    );

    expect(allows.filter(([role]) => role === 'CleanupRole').length).toBeGreaterThan(5);
    expect(wildcards).toEqual([]);
  });

  it("grants no CloudWatch metrics API but the scan's one read: the functions write their metrics as EMF log lines", () => {
    const grants = allRoleStatements(slackTemplate).filter(([, s]) => s.Action.some((a) => a.startsWith('cloudwatch:')));

    // The age of the oldest message in Karpenter's interruption queue (INTERRUPTION_HANDLING_OFF, NOT_CONSUMED).
    expect(grants.map(([role, s]) => [role, s.Action])).toEqual([['ScanRole', ['cloudwatch:GetMetricStatistics']]]);
  });

  it("never lets a function receive or delete a message of a queue it does not own (Karpenter's interruption queue above all)", () => {
    const consumers = allRoleStatements(slackTemplate).filter(([, s]) =>
      s.Action.some((a) => a === 'sqs:ReceiveMessage' || a === 'sqs:DeleteMessage'),
    );
    const ownQueues = resourcesOfType(slackTemplate, 'AWS::SQS::Queue').map(([id]) => getAtt(id));

    expect(consumers.length).toBeGreaterThan(0);
    for (const [role, s] of consumers)
      for (const r of s.Resource) expect(ownQueues, `${role} ${JSON.stringify(r)}`).toContainEqual(r);
  });

  it("reads Karpenter's interruption queue, its rules and its age read-only, scoped to this account and region", () => {
    const reads = allRoleStatements(template).filter(([, s]) =>
      s.Action.some((a) => ['sqs:GetQueueUrl', 'events:ListRuleNamesByTarget', 'events:DescribeRule'].includes(a)),
    );

    expect(reads.map(([role, s]) => [role, [...s.Action].sort(), s.Resource])).toEqual([
      [
        'ScanRole',
        ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl'],
        [{ 'Fn::Sub': 'arn:${AWS::Partition}:sqs:${AWS::Region}:${AWS::AccountId}:*' }],
      ],
      [
        'ScanRole',
        ['events:DescribeRule', 'events:ListRuleNamesByTarget'],
        [{ 'Fn::Sub': 'arn:${AWS::Partition}:events:${AWS::Region}:${AWS::AccountId}:rule/*' }],
      ],
    ]);
  });

  it.each([
    [
      'scan-dispatch',
      ['eks:DescribeCluster', 'eks:ListClusters', 'logs:CreateLogStream', 'logs:PutLogEvents', 'sqs:SendMessage'],
    ],
    [
      'scan',
      [
        'cloudwatch:GetMetricStatistics',
        'dynamodb:DeleteItem',
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:Query',
        'ec2:DescribeInstanceTypes',
        'ec2:DescribeInstances',
        'ec2:DescribeLaunchTemplates',
        'ec2:DescribeSpotPriceHistory',
        'ec2:DescribeSubnets',
        'ec2:TerminateInstances',
        'eks:DescribeAccessEntry',
        'eks:DescribeCluster',
        'eks:DescribeFargateProfile',
        'eks:ListAccessEntries',
        'eks:ListFargateProfiles',
        'events:DescribeRule',
        'events:ListRuleNamesByTarget',
        'iam:ListInstanceProfileTags',
        'iam:ListInstanceProfiles',
        'kms:Decrypt',
        'kms:GenerateDataKey',
        'logs:CreateLogStream',
        'logs:PutLogEvents',
        'sns:Publish',
        'sqs:DeleteMessage',
        'sqs:GetQueueAttributes',
        'sqs:GetQueueUrl',
        'sqs:ReceiveMessage',
      ],
    ],
    [
      'interruptions',
      [
        'dynamodb:BatchGetItem',
        'dynamodb:DeleteItem',
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        'ec2:DescribeInstances',
        'kms:Decrypt',
        'kms:GenerateDataKey',
        'logs:CreateLogStream',
        'logs:PutLogEvents',
        'sns:Publish',
        'sqs:DeleteMessage',
        'sqs:GetQueueAttributes',
        'sqs:ReceiveMessage',
      ],
    ],
    ['slack-notify', ['kms:Decrypt', 'logs:CreateLogStream', 'logs:PutLogEvents', 'sqs:SendMessage', 'ssm:GetParameter']],
    [
      'cleanup',
      [
        'ec2:DeleteLaunchTemplate',
        'ec2:DescribeInstances',
        'ec2:DescribeLaunchTemplates',
        'ec2:TerminateInstances',
        'eks:DescribeCluster',
        'iam:DeleteInstanceProfile',
        'iam:ListInstanceProfileTags',
        'iam:ListInstanceProfiles',
        'iam:RemoveRoleFromInstanceProfile',
        'logs:CreateLogStream',
        'logs:PutLogEvents',
      ],
    ],
  ] as const)('%s may do exactly what its code calls', (fn, expected) => {
    // With `clusters` set: everything the code may call (without it the destructive actions are absent, above).
    const t = fn === 'slack-notify' ? slackTemplate : clustersTemplate;
    expect(actionsOf(roleStatements(roleOf(t, fn).role, t))).toEqual([...expected]);
  });

  it('writes logs only to each function’s own log group', () => {
    for (const fn of LAMBDA_FUNCTIONS) {
      const logs = roleStatements(roleOf(slackTemplate, fn).role).filter((s) => s.Action.some((a) => a.startsWith('logs:')));
      expect(logs.flatMap((s) => s.Resource)).toEqual([getAtt(logGroupLogicalId(fn))]);
    }
  });
});
