import { describe, expect, it } from 'vitest';
import type { Instance, LaunchTemplate } from '../../../src/domain/aws.ts';
import { newFinding, proposedAction, type Finding } from '../../../src/domain/finding.ts';
import { CLI_ACTIONS, type ActionSettings } from '../../../src/domain/settings.ts';
import { planRemediations } from '../../../src/remediations/plan.ts';
import { terminationBlocker } from '../../../src/remediations/terminate-instance.ts';
import { SnapshotIndex } from '../../../src/domain/snapshot-index.ts';
import { forgedInstance, instance, karpenterLaunchTemplate, launchTemplate, snapshotOf } from '../../factories/aws.ts';

const NOW = new Date('2026-01-01T01:00:00Z');

function orphanFinding(id: string): Finding {
  return newFinding({
    code: 'ORPHANED_INSTANCE',
    severity: 'warning',
    title: id,
    resource: { kind: 'Instance', id },
    since: null,
    cause: { code: 'NO_NODECLAIM', detail: '' },
    evidence: [],
    remediation: proposedAction('TERMINATE_INSTANCE', [`aws ec2 terminate-instances --instance-ids ${id}`]),
  });
}

function plan(
  instances: Instance[],
  options: { complete?: boolean; actions?: Partial<ActionSettings>; launchTemplates?: LaunchTemplate[] | null } = {},
) {
  const launchTemplates = options.launchTemplates === null ? undefined : (options.launchTemplates ?? [karpenterLaunchTemplate()]);
  const snapshot = snapshotOf({ instances, nodeClaims: [], launchTemplates });
  return planRemediations(
    instances.map((i) => orphanFinding(i.id)),
    {
      snapshot,
      index: new SnapshotIndex(snapshot),
      actions: { ...CLI_ACTIONS, ...options.actions },
      complete: options.complete ?? true,
      now: NOW,
    },
  );
}

describe('TERMINATE_INSTANCE guardrails', () => {
  it('plans termination of a cluster- and nodepool-tagged running instance', () => {
    const [f] = plan([instance({ id: 'i-0aaa' })]);

    expect(f?.remediation).toMatchObject({ action: 'TERMINATE_INSTANCE', status: 'planned', reason: '' });
  });

  it('accepts the kubernetes.io/cluster/<name>=owned tag form', () => {
    const i = instance({ id: 'i-0aaa', cluster: null, tags: { 'kubernetes.io/cluster/demo': 'owned' } });

    expect(terminationBlocker(i, 'demo', { launchTemplates: [karpenterLaunchTemplate()] })).toBeUndefined();
  });

  it('never plans the forged-tag instance (prod-postgres-primary): its two tags are not proof', () => {
    const [f] = plan([forgedInstance('i-0f00d5ba5e0b1e7a2')]);

    expect(f?.remediation).toMatchObject({
      status: 'skipped',
      reason: 'not proven to be launched by Karpenter: no aws:ec2launchtemplate:id tag: not launched from a launch template',
    });
  });

  it.each([
    [
      'its launch template is not Karpenter’s',
      [launchTemplate({ id: 'lt-0d3e9a7c1b5f28e46', name: 'db-fleet' })],
      "is not Karpenter's (name db-fleet)",
    ],
    ['its launch template is another cluster’s', [karpenterLaunchTemplate('staging')], 'tagged for cluster staging, not demo'],
    ['its launch template is not among those captured', [], 'not found among the 0 captured'],
    ['launch templates were not captured', null, 'launch templates not captured'],
  ])('never plans a fully tagged instance when %s', (_label, launchTemplates, reason) => {
    const [f] = plan([instance({ id: 'i-0aaa' })], { launchTemplates });

    expect(f?.remediation?.status).toBe('skipped');
    expect(f?.remediation?.reason).toContain(reason);
  });

  it.each([
    ['a managed node group instance', instance({ id: 'i-1', nodeGroup: 'system' }), 'eks:nodegroup-name'],
    [
      'an Auto Scaling group member',
      instance({ id: 'i-6', tags: { 'aws:autoscaling:groupName': 'self-managed-ng' } }),
      'Auto Scaling group',
    ],
    [
      'an EKS Auto Mode instance',
      instance({ id: 'i-7', tags: { 'eks:kubernetes-node-pool-name': 'general-purpose' } }),
      'EKS Auto Mode',
    ],
    [
      'an instance Karpenter tagged for another cluster, whatever legacy tag it carries',
      instance({ id: 'i-8', cluster: 'other', tags: { 'kubernetes.io/cluster/demo': 'owned' } }),
      'not tagged for cluster demo',
    ],
    ['another cluster', instance({ id: 'i-2', cluster: 'other' }), 'not tagged for cluster demo'],
    ['no nodepool tag', instance({ id: 'i-3', nodePool: null }), 'karpenter.sh/nodepool'],
    ['already terminated', instance({ id: 'i-4', state: 'terminated' }), 'already terminated'],
    ['still launching', instance({ id: 'i-5', state: 'pending' }), 'pending'],
  ])('never plans %s', (_label, i, reason) => {
    const [f] = plan([i]);

    expect(f?.remediation?.status).toBe('skipped');
    expect(f?.remediation?.reason).toContain(reason);
  });

  it('skips everything when the snapshot is incomplete', () => {
    const [f] = plan([instance({ id: 'i-0aaa' })], { complete: false });

    expect(f?.remediation?.status).toBe('skipped');
  });

  it('caps terminations per run and skips the rest with the reason', () => {
    const instances = ['i-01', 'i-02', 'i-03'].map((id) => instance({ id }));

    const planned = plan(instances, { actions: { maxTerminationsPerRun: 2 } });

    expect(planned.filter((f) => f.remediation?.status === 'planned')).toHaveLength(2);
    expect(planned.filter((f) => f.remediation?.status === 'skipped').map((f) => f.remediation?.reason)).toEqual([
      'per-run cap of 2 terminations reached',
    ]);
  });

  it('mode off skips with the reason', () => {
    const [f] = plan([instance({ id: 'i-0aaa' })], { actions: { modes: { ...CLI_ACTIONS.modes, TERMINATE_INSTANCE: 'off' } } });

    expect(f?.remediation).toMatchObject({ status: 'skipped', reason: 'TERMINATE_INSTANCE is off' });
  });
});

describe('a planner that throws', () => {
  it('skips the action with the reason instead of planning it or failing the report', () => {
    const broken = { ...instance({ id: 'i-0bad' }), tags: undefined } as unknown as Instance;

    const [finding] = plan([broken]);

    expect(finding?.remediation).toMatchObject({
      action: 'TERMINATE_INSTANCE',
      status: 'skipped',
      reason: expect.stringMatching(/^planning failed: /),
    });
  });
});
