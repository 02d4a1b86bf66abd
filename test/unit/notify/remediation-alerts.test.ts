import { describe, expect, it } from 'vitest';
import { newFinding, proposedAction, type Finding, type Remediation } from '../../../src/domain/finding.ts';
import { OUTCOME_UNKNOWN, remediationAlert } from '../../../src/notify/remediation-alerts.ts';
import type { OutboxEntry } from '../../../src/ports/state.ts';

const RECORDED_AT = '2026-01-01T00:06:00.000Z';

function controllerPending(): Finding {
  return newFinding({
    code: 'KARPENTER_CONTROLLER_PENDING',
    severity: 'critical',
    title: 'Karpenter controller karpenter/karpenter: 2 pod(s) Pending over 5m, 0 of 2 ready',
    resource: { kind: 'Deployment', namespace: 'karpenter', name: 'karpenter' },
    since: '2026-01-01T00:00:00Z',
    cause: { code: 'FARGATE_SCHEDULER_RACE', detail: 'schedulerName default-scheduler though a Fargate profile selects them' },
    evidence: ['Deployment karpenter/karpenter: 0 of 2 ready'],
    remediation: proposedAction('ROLLOUT_RESTART', ['kubectl rollout restart deployment -n karpenter karpenter']),
  });
}

function orphan(id: string): Finding {
  return newFinding({
    code: 'ORPHANED_INSTANCE',
    severity: 'info',
    title: `Instance ${id} (NodePool default) is running with no NodeClaim`,
    resource: { kind: 'Instance', id },
    since: '2026-01-01T00:00:00Z',
    cause: { code: 'NO_NODECLAIM', detail: 'no NodeClaim claims it' },
    evidence: [`${id} m5.large running`],
    remediation: proposedAction('TERMINATE_INSTANCE', [`aws ec2 terminate-instances --instance-ids ${id} --region eu-west-1`]),
  });
}

function entry(finding: Finding, outcome?: Pick<Remediation, 'status' | 'reason'>): OutboxEntry {
  const e: OutboxEntry = { cluster: 'prod', id: `${RECORDED_AT}#${finding.id}`, recordedAt: RECORDED_AT, finding };
  return outcome ? { ...e, outcome: { ...finding.remediation!, ...outcome } } : e;
}

describe('remediationAlert (an outbox entry as announced)', () => {
  it('an applied restart: says what was done, offers no step that would repeat it', () => {
    const finding = controllerPending();

    const alert = remediationAlert(entry(finding, { status: 'applied', reason: 'restartedAt=2026-01-01T00:06:00Z' }));

    expect(alert).toMatchObject({ event: 'remediation-applied', severity: 'critical', cluster: 'prod', threadId: finding.id });
    expect(alert.title).toBe(`Restart applied: ${finding.title}`);
    expect(alert.description).toContain('restart applied: restartedAt=2026-01-01T00:06:00Z');
    expect(alert.nextSteps).toEqual([]);
  });

  it('a failed termination: says why, and the step that does it by hand, whatever the finding’s severity', () => {
    const finding = orphan('i-0a3f1c9e8b7d6a501');

    const alert = remediationAlert(entry(finding, { status: 'failed', reason: 'UnauthorizedOperation' }));

    expect(alert).toMatchObject({ event: 'remediation-failed', severity: 'info', code: 'ORPHANED_INSTANCE' });
    expect(alert.title).toBe(`Termination failed: ${finding.title}`);
    expect(alert.description).toContain('termination failed: UnauthorizedOperation');
    expect(alert.nextSteps).toEqual(['aws ec2 terminate-instances --instance-ids i-0a3f1c9e8b7d6a501 --region eu-west-1']);
  });

  it('no outcome recorded (the scan stopped after deciding to act): says the outcome is unknown, never "applied" or "planned"', () => {
    const finding = controllerPending();

    const alert = remediationAlert(entry(finding));

    expect(alert.event).toBe('remediation-unknown');
    expect(alert.title).toBe(`Restart, ${OUTCOME_UNKNOWN}: ${finding.title}`);
    expect(alert.description).toContain(`**Action:** restart, ${OUTCOME_UNKNOWN}`);
    expect(alert.description).toContain('The scan of 2026-01-01T00:06:00Z stopped');
    expect(alert.description).not.toMatch(/planned|dry-run|applied/);
    expect(alert.nextSteps).toEqual(['kubectl rollout restart deployment -n karpenter karpenter']);
  });
});
