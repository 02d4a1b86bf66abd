/** Findings and planned reports for the executor tests (planned the way analyze plans them). */
import { newFinding, proposedAction, type Finding } from '../../../src/domain/finding.ts';
import { buildReport, type Report } from '../../../src/domain/report.ts';
import { CLI_ACTIONS, DEFAULT_DETECTION, type ActionSettings } from '../../../src/domain/settings.ts';
import type { ClusterSnapshot } from '../../../src/domain/snapshot.ts';
import type { ExecuteContext } from '../../../src/remediations/execute.ts';
import { planRemediations } from '../../../src/remediations/plan.ts';
import { SnapshotIndex } from '../../../src/domain/snapshot-index.ts';
import type { FakeEc2, FakeKube } from '../../factories/ports.ts';

export const APPLY: ActionSettings = { ...CLI_ACTIONS, modes: { ROLLOUT_RESTART: 'apply', TERMINATE_INSTANCE: 'apply' } };

export function controllerPendingFinding(since: string | null): Finding {
  return newFinding({
    code: 'KARPENTER_CONTROLLER_PENDING',
    severity: 'critical',
    title: 'Karpenter controller karpenter/karpenter: 2 pod(s) Pending',
    resource: { kind: 'Deployment', namespace: 'karpenter', name: 'karpenter' },
    since,
    cause: { code: 'FARGATE_SCHEDULER_RACE', detail: 'pods use default-scheduler' },
    evidence: [],
    remediation: proposedAction('ROLLOUT_RESTART', ['kubectl rollout restart deployment -n karpenter karpenter']),
  });
}

export function orphanFinding(id: string): Finding {
  return newFinding({
    code: 'ORPHANED_INSTANCE',
    severity: 'warning',
    title: `orphan ${id}`,
    resource: { kind: 'Instance', id },
    since: null,
    cause: { code: 'NO_NODECLAIM', detail: '' },
    evidence: [],
    remediation: proposedAction('TERMINATE_INSTANCE', [`aws ec2 terminate-instances --instance-ids ${id}`]),
  });
}

/** detect's output → report → plan, as analyze does it. */
export function plannedReport(
  snapshot: ClusterSnapshot,
  findings: Finding[],
  options: { actions: ActionSettings; now: Date; complete?: boolean },
): Report {
  const complete = options.complete ?? true;
  const gaps = complete ? [] : [{ source: 'nodeclaims' as const, error: '403 Forbidden' }];
  const report = buildReport({ cluster: snapshot.clusterName, now: options.now, gaps, findings });
  const planned = planRemediations(report.findings, {
    snapshot,
    index: new SnapshotIndex(snapshot),
    actions: options.actions,
    complete,
    now: options.now,
  });
  return { ...report, findings: planned };
}

export function executeContext(
  ports: Pick<ExecuteContext, 'iam' | 'region'> & { kube: FakeKube; ec2: FakeEc2 },
  now: Date,
  actions: ActionSettings = APPLY,
): ExecuteContext {
  return { ...ports, actions, detection: DEFAULT_DETECTION, clusterName: 'demo', now };
}
