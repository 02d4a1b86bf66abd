import { describe, expect, it } from 'vitest';
import type { Deployment } from '../../../src/domain/kube.ts';
import { newFinding, proposedAction } from '../../../src/domain/finding.ts';
import { CLI_ACTIONS } from '../../../src/domain/settings.ts';
import { planRemediations } from '../../../src/remediations/plan.ts';
import { SnapshotIndex } from '../../../src/domain/snapshot-index.ts';
import { snapshotOf } from '../../factories/aws.ts';
import { karpenterDeployment, withAnnotations } from '../../factories/kube.ts';

const NOW = new Date('2026-01-01T01:00:00Z');

function planRestart(deployments: Deployment[], modes = CLI_ACTIONS.modes, since: string | null = null) {
  const snapshot = snapshotOf({ deployments, pods: [] });
  const finding = newFinding({
    code: 'KARPENTER_CONTROLLER_PENDING',
    severity: 'critical',
    title: 'stuck',
    resource: { kind: 'Deployment', namespace: 'karpenter', name: 'karpenter' },
    since,
    cause: { code: 'FARGATE_SCHEDULER_RACE', detail: '' },
    evidence: [],
    remediation: proposedAction('ROLLOUT_RESTART', ['kubectl rollout restart deployment -n karpenter karpenter']),
  });
  const [planned] = planRemediations([finding], {
    snapshot,
    index: new SnapshotIndex(snapshot),
    actions: { ...CLI_ACTIONS, modes },
    complete: true,
    now: NOW,
  });
  return planned?.remediation;
}

describe('ROLLOUT_RESTART guardrails', () => {
  it('plans a restart of a controller never restarted before', () => {
    expect(planRestart([karpenterDeployment()])).toMatchObject({ action: 'ROLLOUT_RESTART', status: 'planned' });
  });

  it('skips within the cooldown read from the restartedAt annotation', () => {
    const r = planRestart([karpenterDeployment({ restartedAt: '2026-01-01T00:50:00Z' })]);

    expect(r?.status).toBe('skipped');
    expect(r?.reason).toContain('restarted 10m ago');
    expect(r?.reason).toContain('within the 15m cooldown');
  });

  it('shows the hourly cap in a dry run, read from the restart history on the Deployment', () => {
    const d = withAnnotations(karpenterDeployment({ restartedAt: '2026-01-01T00:40:00Z' }), {
      'karpenter-sentinel.io/restarts': '2026-01-01T00:05:00Z,2026-01-01T00:20:00Z,2026-01-01T00:40:00Z',
    });

    const r = planRestart([d], CLI_ACTIONS.modes, '2026-01-01T00:56:00Z');

    expect(r?.status).toBe('skipped');
    expect(r?.reason).toMatch(/^3 restarts in the last hour did not help \(.*\); not restarting again — a human must look$/);
  });

  it('says a human must look when the controller stayed Pending through the cooldown after the last restart', () => {
    const r = planRestart(
      [karpenterDeployment({ restartedAt: '2026-01-01T00:30:00Z' })],
      CLI_ACTIONS.modes,
      '2026-01-01T00:30:02Z',
    );

    expect(r?.status).toBe('skipped');
    expect(r?.reason).toContain('the restart at 2026-01-01T00:30:00Z did not help');
    expect(r?.reason).toContain('a human must look');
  });

  it('plans a restart of a controller that went Pending again well after an earlier restart', () => {
    const r = planRestart(
      [karpenterDeployment({ restartedAt: '2026-01-01T00:30:00Z' })],
      CLI_ACTIONS.modes,
      '2026-01-01T00:50:00Z',
    );

    expect(r?.status).toBe('planned');
  });

  it('plans again once the cooldown has passed (boundary: exactly 15 minutes)', () => {
    expect(planRestart([karpenterDeployment({ restartedAt: '2026-01-01T00:45:00Z' })])?.status).toBe('planned');
    expect(planRestart([karpenterDeployment({ restartedAt: '2026-01-01T00:45:01Z' })])?.status).toBe('skipped');
  });

  it('a paused Deployment is not restarted: the dry run already says how to resume it', () => {
    const paused = karpenterDeployment();
    paused.spec = { ...paused.spec, paused: true };

    expect(planRestart([paused])).toMatchObject({
      status: 'skipped',
      reason: 'Deployment karpenter/karpenter is paused; run kubectl rollout resume, then restart it',
    });
  });

  it('mode off skips with the reason', () => {
    expect(planRestart([karpenterDeployment()], { ...CLI_ACTIONS.modes, ROLLOUT_RESTART: 'off' })).toMatchObject({
      status: 'skipped',
      reason: 'ROLLOUT_RESTART is off',
    });
  });
});
