import { describe, expect, it } from 'vitest';
import type { AlertSettings } from '../../../src/config.ts';
import type { Alert } from '../../../src/domain/alert.ts';
import { commandStep, manualRemediation, newFinding, proposedAction, type Finding } from '../../../src/domain/finding.ts';
import { buildReport, type Report } from '../../../src/domain/report.ts';
import type { Gap } from '../../../src/domain/snapshot.ts';
import { planScanAlerts, UNREADABLE_KEY } from '../../../src/notify/finding-alerts.ts';
import type { OpenAlert } from '../../../src/ports/state.ts';

const CLUSTER = 'prod';
const T0 = Date.parse('2026-01-01T00:00:00Z');
const HOUR = 3_600_000;
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
const SETTINGS: AlertSettings = {
  topicArn: 'arn:aws:sns:eu-west-1:069057294951:alerts',
  minSeverity: 'warning',
  reminderIntervalMs: 4 * HOUR,
};

function controllerPending(severity: 'critical' | 'warning' = 'critical'): Finding {
  return newFinding({
    code: 'KARPENTER_CONTROLLER_PENDING',
    severity,
    title: 'Karpenter controller karpenter/karpenter: 2 pod(s) Pending over 5m, 0 of 2 ready',
    resource: { kind: 'Deployment', namespace: 'karpenter', name: 'karpenter' },
    since: '2026-01-01T00:00:00Z',
    cause: {
      code: 'FARGATE_SCHEDULER_RACE',
      detail: 'the pods carry schedulerName default-scheduler though Fargate profile karpenter selects them',
    },
    evidence: [
      'pod karpenter/karpenter-5697769d6c-abcde Pending since 2026-01-01T00:00:00Z',
      'pod karpenter/karpenter-5697769d6c-fghij Pending since 2026-01-01T00:00:00Z',
      'Fargate profile karpenter ACTIVE selects namespace karpenter',
      'no FailedScheduling event from fargate-scheduler',
      'schedulerName: default-scheduler',
      'Deployment karpenter/karpenter: 0 of 2 ready',
      'kube-system/coredns Running on Fargate',
    ],
    remediation: proposedAction('ROLLOUT_RESTART', ['kubectl rollout restart deployment -n karpenter karpenter']),
  });
}

function notRegistered(): Finding {
  return newFinding({
    code: 'NODECLAIM_NOT_REGISTERED',
    severity: 'critical',
    title: '2 NodeClaims of NodePool default launched but never registered a Node',
    resource: { kind: 'NodePool', name: 'default' },
    since: '2026-01-01T00:05:00Z',
    cause: { code: 'NODE_ROLE_NOT_MAPPED', detail: 'Node role KarpenterNodeRole-prod is not mapped in aws-auth' },
    evidence: ['NodeClaim default-x7k2p: instance i-0a3f1c9e8b7d6a501 launched 12m ago, not registered'],
    remediation: manualRemediation([
      commandStep(
        'map the node role',
        'aws eks create-access-entry --cluster-name prod --principal-arn arn:aws:iam::069057294951:role/KarpenterNodeRole-prod --type EC2_LINUX',
      ),
    ]),
  });
}

function orphan(id: string, status: 'planned' | 'applied' | 'failed' | 'skipped' = 'planned', reason = ''): Finding {
  const f = newFinding({
    code: 'ORPHANED_INSTANCE',
    severity: 'warning',
    title: `Instance ${id} (NodePool default) is running with no NodeClaim`,
    resource: { kind: 'Instance', id },
    since: '2026-01-01T00:00:00Z',
    cause: { code: 'NO_NODECLAIM', detail: 'no NodeClaim claims it' },
    evidence: [`${id} m5.large running`],
    remediation: proposedAction('TERMINATE_INSTANCE', [`aws ec2 terminate-instances --instance-ids ${id} --region eu-west-1`]),
  });
  return { ...f, remediation: { ...f.remediation!, status, reason } };
}

function amiUnscoped(): Finding {
  return newFinding({
    code: 'AMI_SELECTOR_UNSCOPED',
    severity: 'info',
    title: 'EC2NodeClass default selects AMIs by name without an owner',
    resource: { kind: 'EC2NodeClass', name: 'default' },
    since: null,
    cause: { code: 'NO_OWNER', detail: 'any account can publish an AMI of that name' },
    evidence: [],
    remediation: manualRemediation(['kubectl edit ec2nodeclass default']),
  });
}

function report(findings: Finding[], minutes: number, gaps: Gap[] = []): Report {
  return buildReport({ cluster: CLUSTER, now: at(minutes), gaps, findings });
}

const GAP: Gap = { source: 'nodeclaims', error: '403 Forbidden: nodeclaims.karpenter.sh is forbidden' };

/** Runs scans one after another against one table of open alerts, as the scan function does. */
function scans(settings: AlertSettings = SETTINGS) {
  const open = new Map<string, OpenAlert>();
  return {
    open,
    scan(r: Report, minutes: number, unreadable?: string, notFound?: { region: string }): Alert[] {
      const plan = planScanAlerts({
        cluster: CLUSTER,
        report: r,
        open: [...open.values()],
        now: at(minutes),
        settings,
        ...(unreadable === undefined ? {} : { unreadable }),
        ...(notFound === undefined ? {} : { notFound }),
      });
      for (const o of plan.save) open.set(o.key, o);
      for (const key of plan.clear) open.delete(key);
      return plan.alerts;
    },
  };
}

const summary = (alerts: Alert[]) => alerts.map((a) => `${a.event} ${a.code}`);

describe('planScanAlerts over a sequence of scans', () => {
  it('opens once, stays quiet within the interval, reminds after it, resolves once on a complete report', () => {
    // Prepare
    const s = scans();
    const finding = controllerPending();

    // Act + Assess: appears
    const opened = s.scan(report([finding], 0), 0);
    expect(opened).toHaveLength(1);
    expect(opened[0]).toMatchObject({
      event: 'opened',
      severity: 'critical',
      cluster: 'prod',
      code: 'KARPENTER_CONTROLLER_PENDING',
      title: finding.title,
      threadId: finding.id,
      nextSteps: ['kubectl rollout restart deployment -n karpenter karpenter'],
    });
    expect(s.open.get(finding.id)).toMatchObject({ firstSeen: '2026-01-01T00:00:00Z', lastSent: '2026-01-01T00:00:00Z' });

    // persists within the interval: every minute for just under 4 hours
    for (const minute of [1, 2, 60, 239]) expect(s.scan(report([finding], minute), minute)).toEqual([]);

    // the interval has passed (exactly 4h counts)
    const reminder = s.scan(report([finding], 240), 240);
    expect(summary(reminder)).toEqual(['reminder KARPENTER_CONTROLLER_PENDING']);
    expect(reminder[0]?.description).toContain('Still open since 2026-01-01T00:00:00Z (4h ago)');
    expect(s.open.get(finding.id)).toMatchObject({ firstSeen: '2026-01-01T00:00:00Z', lastSent: '2026-01-01T04:00:00Z' });
    expect(s.scan(report([finding], 241), 241)).toEqual([]);

    // clears on a complete report
    const resolved = s.scan(report([], 250), 250);
    expect(resolved).toHaveLength(1);
    expect(resolved[0]).toMatchObject({
      event: 'resolved',
      severity: 'critical',
      code: 'KARPENTER_CONTROLLER_PENDING',
      title: finding.title,
      threadId: finding.id,
      nextSteps: [],
    });
    expect(s.open.size).toBe(0);
    expect(s.scan(report([], 251), 251)).toEqual([]);
  });

  it('resolves nothing when the finding is absent from an incomplete report, and resolves it on the next complete one', () => {
    // Prepare
    const s = scans();
    const finding = notRegistered();
    s.scan(report([finding], 0), 0);

    // Act
    const onIncomplete = s.scan(report([], 1, [GAP]), 1);
    const onComplete = s.scan(report([], 2), 2);

    // Assess
    expect(onIncomplete).toEqual([]);
    expect(summary(onComplete)).toEqual(['resolved NODECLAIM_NOT_REGISTERED']);
  });

  it('keeps the finding open without a second "opened" after an incomplete scan that did not see it', () => {
    const s = scans();
    const finding = notRegistered();
    s.scan(report([finding], 0), 0);

    s.scan(report([], 1, [GAP]), 1);
    const back = s.scan(report([finding], 2), 2);

    expect(back).toEqual([]);
    expect([...s.open.keys()]).toEqual([finding.id]);
  });

  it('opens CLUSTER_UNREADABLE once, reminds after the interval, resolves it when the cluster reads again', () => {
    // Prepare
    const s = scans();
    const error = 'Kubernetes API unreachable: 401 Unauthorized (no access entry for the sentinel role)';
    const finding = controllerPending();
    s.scan(report([finding], 0), 0);

    // Act + Assess
    const first = s.scan(report([], 1), 1, error);
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({
      event: 'opened',
      code: UNREADABLE_KEY,
      severity: 'critical',
      cluster: 'prod',
      threadId: UNREADABLE_KEY,
    });
    expect(first[0]?.description).toContain(error);
    expect(first[0]?.nextSteps).toContain('aws eks list-access-entries --cluster-name prod');
    expect(s.scan(report([], 2), 2, error)).toEqual([]);
    // the open finding was not resolved by the empty, unreadable report
    expect(s.open.has(finding.id)).toBe(true);

    expect(summary(s.scan(report([], 241), 241, error))).toEqual(['reminder CLUSTER_UNREADABLE']);

    // readable again: unreadable resolves; the finding, still there and 4h after its last alert, is reminded
    const readable = s.scan(report([finding], 242), 242);
    expect(summary(readable)).toEqual(['resolved CLUSTER_UNREADABLE', 'reminder KARPENTER_CONTROLLER_PENDING']);
    expect(s.open.has(UNREADABLE_KEY)).toBe(false);
  });

  it('resolves CLUSTER_UNREADABLE once the cluster reads again even with gaps, but resolves no finding then', () => {
    const s = scans();
    const finding = notRegistered();
    s.scan(report([finding], 0), 0);
    s.scan(report([], 1), 1, 'connect ETIMEDOUT');

    const partial = s.scan(report([], 2, [GAP]), 2);

    expect(summary(partial)).toEqual(['resolved CLUSTER_UNREADABLE']);
    expect(s.open.has(finding.id)).toBe(true);
  });

  it('an unreadable cluster found not to exist: CLUSTER_UNREADABLE resolved because it does not exist, not "reads again"', () => {
    const s = scans();
    s.scan(report([], 0), 0, 'connect ETIMEDOUT');

    const gone = s.scan(report([], 1), 1, undefined, { region: 'eu-west-1' });

    expect(summary(gone)).toEqual(['resolved CLUSTER_UNREADABLE', 'opened CLUSTER_NOT_FOUND']);
    expect(gone[0]?.description).toMatch(
      /^Resolved at 2026-01-01T00:01:00Z: EKS says the cluster does not exist in eu-west-1: nothing left to read \(see CLUSTER_NOT_FOUND\)\./,
    );
    expect(gone[0]?.description).not.toContain('reads the cluster again');
  });

  it('CLUSTER_NOT_FOUND: reminded with its own lead, resolved once EKS describes the cluster again', () => {
    const s = scans();
    s.scan(report([], 0), 0, undefined, { region: 'eu-west-1' });

    const reminder = s.scan(report([], 240), 240, undefined, { region: 'eu-west-1' });
    const back = s.scan(report([], 241), 241);

    expect(summary(reminder)).toEqual(['reminder CLUSTER_NOT_FOUND']);
    expect(reminder[0]?.description).toMatch(/^Still not found since /);
    expect(summary(back)).toEqual(['resolved CLUSTER_NOT_FOUND']);
    expect(back[0]?.description).toContain(': EKS describes the cluster again.');
  });

  it('never alerts a finding below minSeverity, in any scan', () => {
    const s = scans();
    const info = amiUnscoped();

    const alerts = [0, 1, 300].flatMap((m) => s.scan(report([info], m), m));
    const afterClear = s.scan(report([], 301), 301);

    expect(alerts).toEqual([]);
    expect(afterClear).toEqual([]);
    expect(s.open.size).toBe(0);
  });

  it('alerts info findings when minSeverity is info', () => {
    const s = scans({ ...SETTINGS, minSeverity: 'info' });

    expect(summary(s.scan(report([amiUnscoped()], 0), 0))).toEqual(['opened AMI_SELECTOR_UNSCOPED']);
  });

  it('reminds at once when an open finding becomes more severe, and not again when it calms down', () => {
    const s = scans();
    s.scan(report([controllerPending('warning')], 0), 0);

    const worse = s.scan(report([controllerPending('critical')], 5), 5);
    const calmer = s.scan(report([controllerPending('warning')], 6), 6);

    expect(worse).toHaveLength(1);
    expect(worse[0]).toMatchObject({ event: 'reminder', severity: 'critical' });
    expect(worse[0]?.description).toContain('Escalated from warning to critical');
    expect(calmer).toEqual([]);
  });

  it('plans no remediation alert (the outbox announces actions), and opens the acted-on findings as any other', () => {
    const restarted = {
      ...controllerPending(),
      remediation: {
        ...controllerPending().remediation!,
        status: 'applied' as const,
        reason: 'restartedAt 2026-01-01T00:06:00Z',
      },
    };
    const failed = orphan('i-0a3f1c9e8b7d6a501', 'failed', 'UnauthorizedOperation');

    const alerts = scans().scan(report([restarted, failed], 6), 6);

    expect(summary(alerts)).toEqual(['opened KARPENTER_CONTROLLER_PENDING', 'opened ORPHANED_INSTANCE']);
  });
});

describe('planScanAlerts alert text', () => {
  it('carries the cause, resource, since, a few evidence lines and the planned action', () => {
    const finding = controllerPending();

    const [alert] = planScanAlerts({
      cluster: CLUSTER,
      report: report([finding], 23),
      open: [],
      now: at(23),
      settings: SETTINGS,
    }).alerts;

    const d = alert?.description ?? '';
    expect(d).toContain('**Cause:** `FARGATE_SCHEDULER_RACE`: the pods carry schedulerName default-scheduler');
    expect(d).toContain('**Resource:** Deployment karpenter/karpenter');
    expect(d).toContain('**Since:** 2026-01-01T00:00:00Z (23m ago)');
    expect(d).toContain('- pod karpenter/karpenter-5697769d6c-abcde Pending since 2026-01-01T00:00:00Z');
    expect(d).toContain('- schedulerName: default-scheduler');
    expect(d).not.toContain('Deployment karpenter/karpenter: 0 of 2 ready');
    expect(d).toContain('... and 2 more (`karpenter-sentinel scan --cluster prod` lists them all)');
    expect(d).toContain('**Action:** restart planned, not applied (dry-run: set ROLLOUT_RESTART_MODE=apply');
  });

  it('says why a remediation was skipped', () => {
    const skipped = orphan('i-0b7e2d4f6a8c9e102', 'skipped', 'at most 20 terminations per run');

    const [alert] = planScanAlerts({
      cluster: CLUSTER,
      report: report([skipped], 0),
      open: [],
      now: at(0),
      settings: SETTINGS,
    }).alerts;

    expect(alert?.description).toContain('**Action:** termination skipped: at most 20 terminations per run');
  });

  it('is deterministic and does not change its input', () => {
    const open: OpenAlert[] = [
      {
        cluster: CLUSTER,
        key: 'b0',
        code: 'NODEPOOL_NOT_READY',
        severity: 'warning',
        title: 'w',
        firstSeen: '2026-01-01T00:00:00Z',
        lastSent: '2026-01-01T00:00:00Z',
      },
      {
        cluster: CLUSTER,
        key: 'a0',
        code: 'NODECLASS_NOT_READY',
        severity: 'critical',
        title: 'c',
        firstSeen: '2026-01-01T00:00:00Z',
        lastSent: '2026-01-01T00:00:00Z',
      },
    ];
    const snapshot = structuredClone(open);
    const input = { cluster: CLUSTER, report: report([], 10), open, now: at(10), settings: SETTINGS };

    const first = planScanAlerts(input);
    const second = planScanAlerts(input);

    expect(second).toEqual(first);
    expect(open).toEqual(snapshot);
    // most severe first
    expect(first.clear).toEqual(['a0', 'b0']);
  });
});
