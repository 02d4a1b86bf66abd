import { describe, expect, it } from 'vitest';
import type { Instance } from '../../../src/domain/aws.ts';
import { manualRemediation, newFinding, type Finding } from '../../../src/domain/finding.ts';
import type { Report } from '../../../src/domain/report.ts';
import type { ActionMode, ActionSettings } from '../../../src/domain/settings.ts';
import { executeRemediations } from '../../../src/remediations/execute.ts';
import { instance, karpenterSnapshotOf } from '../../factories/aws.ts';
import { karpenterDeployment } from '../../factories/kube.ts';
import { FakeEc2, FakeKube } from '../../factories/ports.ts';
import { APPLY, controllerPendingFinding, executeContext, orphanFinding, plannedReport } from './reports.ts';

const NOW = new Date('2026-01-01T01:00:00Z');

function manualFinding(): Finding {
  return newFinding({
    code: 'NODECLASS_NOT_READY',
    severity: 'critical',
    title: 'EC2NodeClass default not Ready',
    resource: { kind: 'EC2NodeClass', name: 'default' },
    since: null,
    cause: { code: 'AMI_NOT_FOUND', detail: 'no AMI matches' },
    evidence: [],
    remediation: manualRemediation(['kubectl edit ec2nodeclass default']),
  });
}

function modes(restart: ActionMode, terminate: ActionMode): ActionSettings {
  return { ...APPLY, modes: { ROLLOUT_RESTART: restart, TERMINATE_INSTANCE: terminate } };
}

/** A scan with one restart, two orphans (one blocked by the nodegroup tag at plan time) and one manual fix. */
function mixedReport(actions: ActionSettings): Report {
  const snapshot = karpenterSnapshotOf({
    deployments: [karpenterDeployment()],
    pods: [],
    instances: [instance({ id: 'i-01' }), instance({ id: 'i-02', nodeGroup: 'system' })],
    nodeClaims: [],
  });
  const findings = [
    orphanFinding('i-01'),
    manualFinding(),
    controllerPendingFinding('2026-01-01T00:50:00Z'),
    orphanFinding('i-02'),
  ];
  return plannedReport(snapshot, findings, { actions, now: NOW });
}

function ports() {
  return { kube: new FakeKube([karpenterDeployment()]), ec2: new FakeEc2([instance({ id: 'i-01' }), instance({ id: 'i-02' })]) };
}

describe('executeRemediations', () => {
  it('takes the money an applied termination saved out of the report total', async () => {
    const actions = modes('dry-run', 'apply');
    const snapshot = karpenterSnapshotOf({ deployments: [], pods: [], instances: [instance({ id: 'i-01' })], nodeClaims: [] });
    const priced = { ...orphanFinding('i-01'), cost: { perDayUsd: 2.3, basis: '1 × m5.large on-demand' } };
    const report = plannedReport(snapshot, [priced], { actions, now: NOW });
    const { kube, ec2 } = ports();

    const executed = await executeRemediations(report, executeContext({ kube, ec2 }, NOW, actions));

    expect(report.cost).toEqual({ perDayUsd: 2.3, findings: 1 });
    expect(executed.findings[0]?.remediation?.status).toBe('applied');
    expect(executed).not.toHaveProperty('cost');
  });

  it('in dry-run returns the report as planned and touches nothing', async () => {
    const actions = modes('dry-run', 'dry-run');
    const report = mixedReport(actions);
    const { kube, ec2 } = ports();

    const executed = await executeRemediations(report, executeContext({ kube, ec2 }, NOW, actions));

    expect(executed).toEqual(report);
    expect(kube.patches).toEqual([]);
    expect([ec2.describeCalls, ec2.terminateCalls]).toEqual([[], []]);
  });

  it('carries out only the actions in apply mode and leaves the report otherwise unchanged', async () => {
    const actions = modes('apply', 'dry-run');
    const report = mixedReport(actions);
    const { kube, ec2 } = ports();

    const executed = await executeRemediations(report, executeContext({ kube, ec2 }, NOW, actions));

    expect(executed.findings.map((f) => [f.code, f.resource.id ?? f.resource.name, f.remediation?.status])).toEqual([
      ['KARPENTER_CONTROLLER_PENDING', 'karpenter', 'applied'],
      ['NODECLASS_NOT_READY', 'default', 'manual'],
      ['ORPHANED_INSTANCE', 'i-01', 'planned'],
      ['ORPHANED_INSTANCE', 'i-02', 'skipped'],
    ]);
    const withoutRemediation = (r: Report) => ({ ...r, findings: r.findings.map((f) => ({ ...f, remediation: null })) });
    expect(withoutRemediation(executed)).toEqual(withoutRemediation(report));
    expect(executed.findings.slice(1)).toEqual(report.findings.slice(1));
    expect(ec2.terminateCalls).toEqual([]);
  });

  it('applies both kinds and keeps skipped remediations as the planner left them', async () => {
    const report = mixedReport(APPLY);
    const { kube, ec2 } = ports();

    const executed = await executeRemediations(report, executeContext({ kube, ec2 }, NOW));

    expect(executed.findings.map((f) => f.remediation?.status)).toEqual(['applied', 'manual', 'applied', 'skipped']);
    expect(executed.findings[3]?.remediation).toEqual(report.findings[3]?.remediation);
    expect(ec2.terminateCalls).toEqual([['i-01']]);
    expect(kube.patches).toHaveLength(1);
  });

  it('turns an unexpected fault inside an executor into failed remediations instead of rejecting', async () => {
    const report = mixedReport(modes('off', 'apply'));
    const { kube, ec2 } = ports();
    ec2.describeInstances = () => Promise.resolve(undefined as unknown as Instance[]);

    const executed = await executeRemediations(report, executeContext({ kube, ec2 }, NOW, modes('off', 'apply')));

    expect(executed.findings[2]?.remediation).toMatchObject({ status: 'failed', reason: expect.stringContaining('undefined') });
    expect(ec2.terminateCalls).toEqual([]);
  });
});
