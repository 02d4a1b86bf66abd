import { describe, expect, it } from 'vitest';
import { interruptionHandlingOff } from '../../../../src/detectors/interruption-handling-off/detector.ts';
import type { Finding } from '../../../../src/domain/finding.ts';
import { priceBookOf } from '../../../../src/domain/price-book.ts';
import { CLI_ACTIONS, DEFAULT_DETECTION } from '../../../../src/domain/settings.ts';
import { loadSnapshot } from '../../../../src/snapshot/load.ts';
import { analyze } from '../../../../src/usecases/analyze.ts';
import type { ClusterSnapshot } from '../../../../src/domain/snapshot.ts';
import { SnapshotIndex } from '../../../../src/domain/snapshot-index.ts';
import { instance, logLine } from '../../../factories/aws.ts';
import { nodeClaim } from '../../../factories/karpenter.ts';
import { T0, minutesAfter } from '../../../factories/kube.ts';
import {
  CLUSTER,
  QUEUE,
  QUEUE_ARN,
  QUEUE_URL,
  TEMPLATE_POLICY,
  V14_NOT_FOUND,
  interruptionSnapshot,
  queue,
  templateRules,
} from './fixtures.ts';

function detect(snapshot: ClusterSnapshot): Finding<'INTERRUPTION_HANDLING_OFF'>[] {
  return interruptionHandlingOff.detect({
    snapshot,
    index: new SnapshotIndex(snapshot),
    prices: priceBookOf(snapshot),
    settings: DEFAULT_DETECTION,
    now: new Date(minutesAfter(T0, 30)),
  });
}

function only(snapshot: ClusterSnapshot): Finding<'INTERRUPTION_HANDLING_OFF'> {
  const findings = detect(snapshot);
  expect(findings).toHaveLength(1);
  return findings[0] as Finding<'INTERRUPTION_HANDLING_OFF'>;
}

const steps = (f: Finding) => (f.remediation?.steps ?? []).join('\n');
const text = (f: Finding) => [f.title, f.cause?.detail, ...f.evidence, steps(f)].join('\n');
const notFoundQueue = (name: string) => ({ name, exists: false });

describe('INTERRUPTION_HANDLING_OFF', () => {
  it('stays quiet on a queue, rules, policy and consumer as the getting-started template makes them', () => {
    expect(detect(interruptionSnapshot({ age: 4 }))).toEqual([]);
  });

  describe('QUEUE_NOT_CONFIGURED', () => {
    it('fires when no queue is set and Spot NodeClaims run, and creates the queue named after the cluster', () => {
      const f = only(interruptionSnapshot({ env: [], queues: [] }));
      expect(f.cause?.code).toBe('QUEUE_NOT_CONFIGURED');
      expect(f.severity).toBe('warning');
      expect(f.evidence).toContain('2 Spot node(s) or NodeClaim(s) (karpenter.sh/capacity-type: spot)');
      expect(steps(f)).toContain(`aws sqs create-queue --queue-name ${CLUSTER}`);
      expect(steps(f)).toContain(`--set settings.interruptionQueue=${CLUSTER}`);
      expect(f.counts).toEqual({ objects: 1 });
    });

    it('checks for the queue named after the cluster before creating it, unless a lookup said it does not exist', () => {
      const unknown = only(interruptionSnapshot({ env: [], queues: [] }));
      expect(unknown.remediation?.steps[0]).toContain(`aws sqs get-queue-url --queue-name ${CLUSTER}`);
      const answered = only(interruptionSnapshot({ env: [], queues: [notFoundQueue(CLUSTER)] }));
      expect(steps(answered)).not.toContain('get-queue-url');
      expect(answered.remediation?.steps[0]).toContain(`aws sqs create-queue --queue-name ${CLUSTER}`);
    });

    it('stays quiet when no Spot capacity is used or allowed', () => {
      const onDemand = interruptionSnapshot({ env: [], queues: [], claims: [nodeClaim({ name: 'od-1' })] });
      expect(detect(onDemand)).toEqual([]);
    });

    it("counts Karpenter's running Spot instances, not a managed node group's", () => {
      const onDemand = [nodeClaim({ name: 'od-1' })];
      const nodeGroupSpot = { ...instance({ id: 'i-0ng1', nodePool: null, nodeGroup: 'spot-ng' }), lifecycle: 'spot' };
      expect(detect(interruptionSnapshot({ env: [], queues: [], claims: onDemand, instances: [nodeGroupSpot] }))).toEqual([]);
      const karpenterSpot = { ...instance({ id: 'i-0kp1' }), lifecycle: 'spot' };
      const f = only(interruptionSnapshot({ env: [], queues: [], claims: onDemand, instances: [karpenterSpot] }));
      expect(f.cause?.code).toBe('QUEUE_NOT_CONFIGURED');
    });

    it('never reads a redacted or referenced value as unset', () => {
      expect(detect(interruptionSnapshot({ env: [{ name: 'INTERRUPTION_QUEUE' }], queues: [] }))).toEqual([]);
      const fromRef = [{ name: 'INTERRUPTION_QUEUE', valueFrom: { configMapKeyRef: { name: 'q', key: 'name' } } }];
      expect(detect(interruptionSnapshot({ env: fromRef, queues: [] }))).toEqual([]);
    });

    it('points the setting at the queue named after the cluster when one exists, instead of creating one', () => {
      const f = only(interruptionSnapshot({ env: [], queues: [queue({}, CLUSTER)] }));
      expect(f.cause?.code).toBe('QUEUE_NOT_CONFIGURED');
      expect(steps(f)).toContain(`--set settings.interruptionQueue=${CLUSTER}`);
      expect(steps(f)).not.toContain('create-queue');
    });

    it('says v0.33+ no longer reads a queue left in karpenter-global-settings', () => {
      const settings = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'karpenter-global-settings', namespace: 'karpenter' },
        data: { 'aws.interruptionQueueName': 'old-queue' },
      };
      const f = only(interruptionSnapshot({ env: [], version: '0.33.2', queues: [], configMaps: [settings] }));
      expect(f.cause?.code).toBe('QUEUE_NOT_CONFIGURED');
      expect(f.cause?.detail).toContain('no longer read');
      expect(steps(f)).toContain('--set settings.interruptionQueue=old-queue');
    });
  });

  describe('QUEUE_NOT_CONFIGURED with a stale karpenter-global-settings value', () => {
    const settings = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'karpenter-global-settings', namespace: 'karpenter' },
      data: { 'aws.interruptionQueueName': 'old-queue' },
    };
    const staleScan = (queues: ReturnType<typeof queue>[] | { name: string; exists: boolean }[]) =>
      only(interruptionSnapshot({ env: [], version: '1.3.3', queues, configMaps: [settings] }));
    const setSteps = (f: Finding) =>
      (f.remediation?.steps ?? []).filter((st) => st.includes('--set settings.interruptionQueue='));

    it('never sets two different queues: checks the old one first when it was not looked up', () => {
      const f = staleScan([]);
      expect(f.remediation?.steps[0]).toContain('aws sqs get-queue-url --queue-name old-queue');
      expect(setSteps(f)).toHaveLength(1);
      expect(steps(f)).not.toContain('create-queue');
    });

    it('points at the old queue when the lookup found it, and at a new one when it said it does not exist', () => {
      const found = staleScan([queue({}, 'old-queue')]);
      expect(setSteps(found)).toEqual([expect.stringContaining('settings.interruptionQueue=old-queue')]);
      expect(steps(found)).not.toContain('create-queue');
      const gone = staleScan([notFoundQueue('')]);
      expect(steps(gone)).not.toContain('interruptionQueue=old-queue');
      expect(steps(gone)).toContain(`aws sqs create-queue --queue-name ${CLUSTER}`);
      expect(setSteps(gone)).toHaveLength(1);
    });
  });

  describe('QUEUE_NAME_INVALID', () => {
    it('names the queue in an ARN, and says the named queue exists', () => {
      const f = only(interruptionSnapshot({ env: [{ name: 'INTERRUPTION_QUEUE', value: QUEUE_ARN }] }));
      expect(f.cause?.code).toBe('QUEUE_NAME_INVALID');
      expect(f.title).toContain(`set it to ${QUEUE}`);
      expect(f.cause?.detail).toContain(`a queue named ${QUEUE} exists`);
      expect(steps(f)).toContain(`--set settings.interruptionQueue=${QUEUE}`);
      expect(steps(f)).not.toContain('create-queue');
    });

    it('names the queue in a URL, and creates it when it does not exist', () => {
      const f = only(
        interruptionSnapshot({ env: [{ name: 'INTERRUPTION_QUEUE', value: QUEUE_URL }], queues: [notFoundQueue(QUEUE)] }),
      );
      expect(f.cause?.code).toBe('QUEUE_NAME_INVALID');
      expect(f.cause?.detail).toContain('exists either');
      expect(steps(f)).toContain(`aws sqs create-queue --queue-name ${QUEUE}`);
    });

    it('does not apply an unnamed NonExistentQueue answer (asked with the ARN) to the name: checks instead of creating', () => {
      const f = only(
        interruptionSnapshot({ env: [{ name: 'INTERRUPTION_QUEUE', value: QUEUE_ARN }], queues: [notFoundQueue('')] }),
      );
      expect(f.cause?.code).toBe('QUEUE_NAME_INVALID');
      expect(f.cause?.detail).not.toContain('exists either');
      expect(f.remediation?.steps[0]).toContain(`aws sqs get-queue-url --queue-name ${QUEUE}`);
      expect(steps(f)).not.toContain('create-queue');
    });

    it('reads the --interruption-queue arg over the env, and fixes the arg', () => {
      const f = only(interruptionSnapshot({ args: [`--interruption-queue=${QUEUE_ARN}`] }));
      expect(f.cause?.code).toBe('QUEUE_NAME_INVALID');
      expect(steps(f)).toContain('kubectl edit deployment -n karpenter karpenter');
    });
  });

  describe('QUEUE_MISSING', () => {
    it('says in one line that the typo’d queue does not exist, and offers the queue named after the cluster', () => {
      const f = only(
        interruptionSnapshot({
          env: [{ name: 'INTERRUPTION_QUEUE', value: 'shop-prdo' }],
          queues: [notFoundQueue('shop-prdo'), queue({}, CLUSTER)],
        }),
      );
      expect(f.cause?.code).toBe('QUEUE_MISSING');
      expect(f.title).toBe(
        "Karpenter's interruption queue shop-prdo does not exist: did you mean shop-prod (it exists)? point the setting at it",
      );
      expect(steps(f)).toContain('--set settings.interruptionQueue=shop-prod');
      expect(steps(f)).not.toContain('create-queue');
    });

    it('checks the queue named after the cluster (its rules, no other reader) before pointing the setting at it', () => {
      const f = only(
        interruptionSnapshot({
          env: [{ name: 'INTERRUPTION_QUEUE', value: 'shop-prdo' }],
          queues: [notFoundQueue('shop-prdo'), queue({}, CLUSTER)],
        }),
      );
      const all = f.remediation?.steps ?? [];
      const check = all.findIndex((st) => st.includes(`aws events list-rule-names-by-target --target-arn ${QUEUE_ARN}`));
      const reader = all.findIndex((st) => st.includes("no other cluster's Karpenter reads"));
      const set = all.findIndex((st) => st.includes('--set settings.interruptionQueue=shop-prod'));
      expect(check).toBeGreaterThanOrEqual(0);
      expect(reader).toBeGreaterThan(check);
      expect(set).toBeGreaterThan(reader);
    });

    it('reads a capture’s unnamed NonExistentQueue answer as the setting’s queue', () => {
      const f = only(interruptionSnapshot({ queues: [notFoundQueue('')] }));
      expect(f.cause?.code).toBe('QUEUE_MISSING');
      expect(steps(f)).toContain(`aws sqs create-queue --queue-name ${QUEUE}`);
    });

    it('quotes the controller log when the queue was not looked up, and checks before creating', () => {
      const f = only(interruptionSnapshot({ queues: [], rules: [], logs: [V14_NOT_FOUND] }));
      expect(f.cause?.code).toBe('QUEUE_MISSING');
      expect(text(f)).toContain('AWS.SimpleQueueService.NonExistentQueue');
      expect(f.remediation?.steps[0]).toContain(`aws sqs get-queue-url --queue-name ${QUEUE}`);
    });

    it('prints no placeholder to paste when the setting is unknown and the log says the queue is missing', () => {
      const fromRef = [{ name: 'INTERRUPTION_QUEUE', valueFrom: { configMapKeyRef: { name: 'q', key: 'name' } } }];
      const f = only(interruptionSnapshot({ env: fromRef, queues: [], rules: [], logs: [V14_NOT_FOUND] }));
      expect(f.cause?.code).toBe('QUEUE_MISSING');
      expect(steps(f)).not.toMatch(/--queue-name NAME\b/);
      expect(steps(f)).toContain('with that name');
    });

    it('does not say missing when the lookup found the queue the log says is missing: checks instead', () => {
      const f = only(interruptionSnapshot({ logs: [V14_NOT_FOUND] }));
      expect(f.cause?.code).toBe('UNKNOWN');
      expect(steps(f)).not.toContain('create-queue');
      expect(steps(f)).toContain('AWS_REGION');
    });
  });

  describe('RULES_MISSING', () => {
    it('names the kinds no enabled rule sends, enables the disabled rule and creates the missing one', () => {
      const rules = templateRules({ RebalanceRule: 'DISABLED' }).filter((r) => !r.name.includes('ScheduledChange'));
      const f = only(interruptionSnapshot({ rules }));
      expect(f.cause?.code).toBe('RULES_MISSING');
      expect(f.title).toContain('rebalance recommendation, scheduled change');
      expect(steps(f)).toContain(`aws events enable-rule --name Karpenter-${CLUSTER}-RebalanceRule-1A2B3C4D5E6F`);
      expect(steps(f)).toContain(`aws events put-rule --name ${QUEUE}-ScheduledChange`);
      expect(steps(f)).toContain(`Arn=${QUEUE_ARN}`);
      expect(steps(f)).not.toContain(`${QUEUE}-SpotInterruption`);
    });

    it('does not judge rules listed by name only (describe-rule not captured)', () => {
      expect(detect(interruptionSnapshot({ rules: [{ name: 'Karpenter-SpotInterruptionRule' }] }))).toEqual([]);
    });

    it('does not judge rules whose source is a gap', () => {
      const s = interruptionSnapshot({ rules: [] });
      s.gaps.push({ source: 'queuerules', error: 'ListRuleNamesByTarget failed: AccessDeniedException: not authorized' });
      expect(detect(s)).toEqual([]);
    });
  });

  describe('QUEUE_POLICY_DENIES_EVENTS', () => {
    it('adds the template statement to the policy the queue has, keeping its statements', () => {
      const own = JSON.stringify({
        Version: '2012-10-17',
        Statement: [
          {
            Sid: 'Ops',
            Effect: 'Allow',
            Principal: { AWS: 'arn:aws:iam::111122223333:root' },
            Action: 'sqs:*',
            Resource: QUEUE_ARN,
          },
        ],
      });
      const f = only(interruptionSnapshot({ queues: [queue({ Policy: own })] }));
      expect(f.cause?.code).toBe('QUEUE_POLICY_DENIES_EVENTS');
      expect(steps(f)).toContain('"Sid\\":\\"Ops\\"');
      expect(steps(f)).toContain('events.amazonaws.com');
      expect(steps(f)).toContain(
        `aws sqs set-queue-attributes --queue-url ${QUEUE_URL} --attributes file://queue-attributes.json`,
      );
    });

    it('fires on a queue with no policy at all', () => {
      expect(only(interruptionSnapshot({ queues: [queue({ Policy: undefined })] })).cause?.code).toBe(
        'QUEUE_POLICY_DENIES_EVENTS',
      );
    });

    it('prints no policy fix when the policy allows events.amazonaws.com (the template, with its DenyHTTP)', () => {
      const findings = detect(
        interruptionSnapshot({ queues: [queue({ Policy: TEMPLATE_POLICY, KmsMasterKeyId: 'alias/aws/sqs' })] }),
      );
      expect(findings.map((f) => f.cause?.code)).toEqual(['KMS_KEY_UNUSABLE']);
      expect(findings.map(steps).join('\n')).not.toContain('queue-attributes.json');
    });
  });

  describe('QUEUE_POLICY_DENIES_EVENTS: how the policy is read', () => {
    const allow = (extra: Record<string, unknown>) => ({
      Effect: 'Allow',
      Principal: { Service: 'events.amazonaws.com' },
      Action: 'sqs:SendMessage',
      Resource: QUEUE_ARN,
      ...extra,
    });
    const policyOf = (...statements: Record<string, unknown>[]) =>
      queue({ Policy: JSON.stringify({ Version: '2012-10-17', Statement: statements }) });

    it('quotes an unconditional Deny as the reason and changes it, never adding an Allow it would override', () => {
      const deny = { Sid: 'LockDown', Effect: 'Deny', Principal: '*', Action: 'sqs:*', Resource: QUEUE_ARN };
      const f = only(interruptionSnapshot({ queues: [policyOf(allow({}), deny)] }));
      expect(f.cause?.code).toBe('QUEUE_POLICY_DENIES_EVENTS');
      expect(f.cause?.detail).toContain('Sid LockDown denies');
      expect(f.cause?.detail).not.toContain('has no statement allowing');
      expect(f.evidence.join('\n')).toContain('"Sid":"LockDown"');
      expect(steps(f)).toContain("change the policy's Sid LockDown");
      expect(steps(f)).not.toContain('plus the getting-started template statement');
      expect(steps(f)).not.toContain('queue-attributes.json');
    });

    it('reads wildcard actions and the AWS "*" principal as a list, as IAM does', () => {
      const forms = [
        allow({ Action: 'sqs:Send*' }),
        allow({ Action: ['SQS:SendMessage*'] }),
        allow({ Principal: { AWS: ['*'] } }),
        allow({ Resource: 'arn:aws:sqs:us-east-1:111122223333:*' }),
      ];
      for (const statement of forms) expect(detect(interruptionSnapshot({ queues: [policyOf(statement)] }))).toEqual([]);
    });

    it("does not count an Allow on another queue's ARN", () => {
      const f = only(
        interruptionSnapshot({ queues: [policyOf(allow({ Resource: 'arn:aws:sqs:us-east-1:111122223333:other-queue' }))] }),
      );
      expect(f.cause?.code).toBe('QUEUE_POLICY_DENIES_EVENTS');
      expect(f.cause?.detail).toContain('has no statement allowing');
    });
  });

  describe('KMS_KEY_UNUSABLE', () => {
    it('fires on the AWS-managed alias/aws/sqs key, by alias ARN too, and switches to SSE-SQS', () => {
      const key = 'arn:aws:kms:us-east-1:111122223333:alias/aws/sqs';
      const f = only(interruptionSnapshot({ queues: [queue({ KmsMasterKeyId: key })] }));
      expect(f.cause?.code).toBe('KMS_KEY_UNUSABLE');
      expect(steps(f)).toContain('"SqsManagedSseEnabled":"true"');
    });

    it('stays quiet on a customer-managed key (its policy cannot be seen, so nothing is claimed)', () => {
      const cmk = 'arn:aws:kms:us-east-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab';
      expect(detect(interruptionSnapshot({ queues: [queue({ KmsMasterKeyId: cmk, SqsManagedSseEnabled: 'false' })] }))).toEqual(
        [],
      );
    });
  });

  describe('NOT_CONSUMED', () => {
    it(`fires when the oldest message is older than 180 s, and checks the controller before anything`, () => {
      const f = only(interruptionSnapshot({ age: 290 }));
      expect(f.cause?.code).toBe('NOT_CONSUMED');
      expect(f.title).toContain('290 s old');
      expect(steps(f)).toContain('kubectl logs -n karpenter deployment/karpenter');
    });

    it('stays quiet at 180 s, a few polls late at most', () => {
      expect(detect(interruptionSnapshot({ age: 180 }))).toEqual([]);
    });
  });

  describe('UNKNOWN', () => {
    it('quotes another queue error of the controller and names the denied action only when the text does', () => {
      const denied = logLine({
        level: 'ERROR',
        time: T0,
        message: 'failed to create valid sqs provider',
        error: `operation error SQS: GetQueueUrl, https response error StatusCode: 403, RequestID: 1, api error AccessDenied: User: arn:aws:sts::111122223333:assumed-role/KarpenterController/1 is not authorized to perform: sqs:getqueueurl on resource: ${QUEUE_ARN}`,
      });
      const twice = (line: typeof denied) => [line, { ...line, time: minutesAfter(T0, 1) }];
      const f = only(interruptionSnapshot({ queues: [], rules: [], logs: twice(denied) }));
      expect(f.cause?.code).toBe('UNKNOWN');
      expect(text(f)).toContain('sqs:getqueueurl');
      const vague = logLine({
        level: 'ERROR',
        time: T0,
        message: 'failed to create valid sqs provider',
        error: 'Access to the resource https://sqs.us-east-1.amazonaws.com/ is denied.',
      });
      const g = only(interruptionSnapshot({ queues: [], rules: [], logs: twice(vague) }));
      expect(steps(g)).not.toContain('allow sqs:');
    });
  });

  describe('UNKNOWN: which queue errors count', () => {
    const failed = (error: string, minutes: number, message = 'getting messages from queue') =>
      logLine({ level: 'ERROR', time: minutesAfter(T0, minutes), message, controller: 'interruption', error });
    const scan = (logs: ReturnType<typeof logLine>[]) => detect(interruptionSnapshot({ queues: [], rules: [], logs }));

    it('stays quiet on one transient error, and on repeated polls cut short by context canceled', () => {
      expect(
        scan([
          failed(
            'receiving sqs messages, operation error SQS: ReceiveMessage, https response error StatusCode: 0, RequestID: , canceled, context deadline exceeded',
            0,
          ),
        ]),
      ).toEqual([]);
      const canceled = 'receiving sqs messages, operation error SQS: ReceiveMessage, context canceled';
      expect(scan([failed(canceled, 0), failed(canceled, 1), failed(canceled, 2)])).toEqual([]);
    });

    it("matches Karpenter's own delete error text, and dates the finding from the first failing line", () => {
      const error =
        'operation error SQS: DeleteMessage, https response error StatusCode: 403, RequestID: 2, api error AccessDenied: denied';
      const [f] = scan([failed(error, 3, 'deleting sqs message'), failed(error, 9, 'deleting sqs message')]);
      expect(f?.cause?.code).toBe('UNKNOWN');
      expect(f?.since).toBe(minutesAfter(T0, 3));
      const never = 'deleting messages from queue';
      expect(scan([failed(error, 3, never), failed(error, 9, never)])).toEqual([]);
    });

    it('dates a missing queue from the first NonExistentQueue line, not the newest', () => {
      const later = { ...V14_NOT_FOUND, time: minutesAfter(T0, 12) };
      const f = only(interruptionSnapshot({ queues: [], rules: [], logs: [V14_NOT_FOUND, later] }));
      expect(f.cause?.code).toBe('QUEUE_MISSING');
      expect(f.since).toBe(T0);
    });
  });

  it('reads the v0.19–v0.32 ConfigMap setting, and waits for the ConfigMap before saying unset', () => {
    const settings = (value: string) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'karpenter-global-settings', namespace: 'karpenter' },
      data: { 'aws.interruptionQueueName': value },
    });
    const f = only(interruptionSnapshot({ env: [], version: 'v0.27.0', configMaps: [settings(QUEUE_ARN)] }));
    expect(f.cause?.code).toBe('QUEUE_NAME_INVALID');
    expect(steps(f)).toContain('--set settings.aws.interruptionQueueName=shop-prod');
    expect(detect(interruptionSnapshot({ env: [], version: 'v0.27.0', queues: [], configMaps: [] }))).toEqual([]);
  });

  it('on v0.32 also sets settings.aws.interruptionQueueName, which the chart renders over settings.interruptionQueue', () => {
    const settings = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'karpenter-global-settings', namespace: 'karpenter' },
      data: { 'aws.interruptionQueueName': QUEUE_ARN },
    };
    const f = only(interruptionSnapshot({ env: [], version: 'v0.32.1', configMaps: [settings] }));
    expect(f.cause?.code).toBe('QUEUE_NAME_INVALID');
    expect(steps(f)).toContain(`--set settings.interruptionQueue=${QUEUE} --set settings.aws.interruptionQueueName=${QUEUE}`);
    const v1 = only(interruptionSnapshot({ env: [{ name: 'INTERRUPTION_QUEUE', value: QUEUE_ARN }] }));
    expect(steps(v1)).not.toContain('settings.aws.interruptionQueueName');
  });
});

describe('INTERRUPTION_HANDLING_OFF beside the crash loop it causes (v0.33–v1.3)', () => {
  it('both fire on the real incident, and the controller finding points at this one', async () => {
    // Prepare: kubernetes-sigs/karpenter#1799, rebuilt as a capture (test/incidents)
    const dir = new URL('../../../incidents/interruption-queue-never-created/', import.meta.url).pathname;
    const files = ['deployment.json', 'pods.json', 'karpenter-previous.log'].map((f) => `${dir}${f}`);
    const { snapshot } = await loadSnapshot(files);

    // Act
    const findings = analyze(snapshot, {
      detection: DEFAULT_DETECTION,
      actions: CLI_ACTIONS,
      now: new Date('2024-11-07T10:00:00Z'),
    }).findings;

    // Assess
    const pairs = findings.map((f) => `${f.code}/${f.cause?.code ?? ''}`);
    expect(pairs).toEqual(['KARPENTER_CONTROLLER_UNHEALTHY/CRASH_LOOP', 'INTERRUPTION_HANDLING_OFF/QUEUE_MISSING']);
    expect(findings[0]?.cause?.detail).toContain('see INTERRUPTION_HANDLING_OFF');
    expect(findings[1]?.title).toBe(
      "Karpenter's interruption queue tajawal-dev does not exist: create it (the getting-started template) or unset the setting",
    );
  });
});
