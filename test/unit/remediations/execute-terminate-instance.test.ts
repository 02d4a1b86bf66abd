import { describe, expect, it } from 'vitest';
import type { Instance } from '../../../src/domain/aws.ts';
import type { Report } from '../../../src/domain/report.ts';
import type { ActionSettings } from '../../../src/domain/settings.ts';
import { SourceError } from '../../../src/ports/errors.ts';
import { executeRemediations } from '../../../src/remediations/execute.ts';
import type { IamPort } from '../../../src/ports/aws.ts';
import { forgedInstance, instance, instanceProfile, karpenterSnapshotOf, launchTemplate } from '../../factories/aws.ts';
import { FakeEc2, FakeKube } from '../../factories/ports.ts';
import { APPLY, executeContext, orphanFinding, plannedReport } from './reports.ts';

const NOW = new Date('2026-01-01T01:00:00Z');

/** The scan saw these instances (all valid orphans); the fake AWS holds `current` by the time it acts. */
function scanned(seen: Instance[], options: { actions?: ActionSettings; complete?: boolean } = {}): Report {
  const snapshot = karpenterSnapshotOf({ instances: seen, nodeClaims: [] });
  return plannedReport(
    snapshot,
    seen.map((i) => orphanFinding(i.id)),
    { actions: options.actions ?? APPLY, now: NOW, ...(options.complete === undefined ? {} : { complete: options.complete }) },
  );
}

async function execute(report: Report, ec2: FakeEc2, actions: ActionSettings = APPLY, iam?: IamPort) {
  const ports = { kube: new FakeKube(), ec2, ...(iam ? { iam, region: 'us-east-1' } : {}) };
  const executed = await executeRemediations(report, executeContext(ports, NOW, actions));
  return Object.fromEntries(executed.findings.map((f) => [f.resource.id ?? '', f.remediation]));
}

describe('TERMINATE_INSTANCE executor', () => {
  it('re-reads all planned instances in one call and terminates them in one call', async () => {
    const seen = [instance({ id: 'i-01' }), instance({ id: 'i-02' })];
    const ec2 = new FakeEc2(seen);

    const outcomes = await execute(scanned(seen), ec2);

    expect(outcomes['i-01']).toMatchObject({ status: 'applied', reason: 'now shutting-down' });
    expect(outcomes['i-02']).toMatchObject({ status: 'applied', reason: 'now shutting-down' });
    expect(ec2.describeCalls).toEqual([{ instanceIds: ['i-01', 'i-02'] }]);
    expect(ec2.terminateCalls).toEqual([['i-01', 'i-02']]);
    expect(ec2.instance('i-01')?.state).toBe('shutting-down');
  });

  it('re-checks provenance on fresh data: a launch template no longer Karpenter’s, or gone, means no termination', async () => {
    const seen = [instance({ id: 'i-01' }), instance({ id: 'i-02', launchTemplateId: 'lt-0other' })];
    const ec2 = new FakeEc2(seen);
    // Since the scan: the first template was renamed away from karpenter.k8s.aws/, the second deleted.
    ec2.launchTemplates = [launchTemplate({ id: 'lt-0d3e9a7c1b5f28e46', name: 'renamed' })];
    const report = scanned(seen);
    report.findings = report.findings.map((f) => ({ ...f, remediation: { ...f.remediation!, status: 'planned' } }));

    const outcomes = await execute(report, ec2);

    expect(outcomes['i-01']).toMatchObject({
      status: 'skipped',
      reason:
        "on fresh data, not proven to be launched by Karpenter: launch template lt-0d3e9a7c1b5f28e46 is not Karpenter's (name renamed)",
    });
    expect(outcomes['i-02']?.reason).toContain('launch template lt-0other not found among the 1 captured');
    expect(ec2.launchTemplateCalls).toEqual(['demo']);
    expect(ec2.terminateCalls).toEqual([]);
  });

  it('with the launch template gone since the scan, re-lists instance profiles: Karpenter’s profile proves it, a failed listing does not', async () => {
    const profile = instanceProfile({ name: 'demo_1', path: '/karpenter/us-east-1/demo/3f6c2a9e/' });
    const seen = [instance({ id: 'i-01' })].map((i) => ({ ...i, iamInstanceProfileArn: profile.arn! }));
    const listed: string[] = [];
    const iam = (fail: boolean): IamPort => ({
      listInstanceProfiles: () => (
        listed.push('list'),
        fail ? Promise.reject(new Error('AccessDenied')) : Promise.resolve([profile])
      ),
      removeRoleFromInstanceProfile: () => Promise.reject(new Error('not here')),
      deleteInstanceProfile: () => Promise.reject(new Error('not here')),
    });
    const gone = () => Object.assign(new FakeEc2(seen), { launchTemplates: [launchTemplate({ id: 'lt-0still0there' })] });

    const denied = await execute(scanned(seen), gone(), APPLY, iam(true));
    const proven = await execute(scanned(seen), gone(), APPLY, iam(false));

    expect(denied['i-01']).toMatchObject({ status: 'skipped' });
    expect(denied['i-01']?.reason).toContain('no proof by its instance profile either: instance profiles not captured');
    expect(proven['i-01']).toMatchObject({ status: 'applied', reason: 'now shutting-down' });
    expect(listed).toEqual(['list', 'list']);
  });

  it('lists no instance profiles while every instance’s launch template is there', async () => {
    const seen = [instance({ id: 'i-01' })];
    let listed = 0;
    const iam: IamPort = {
      listInstanceProfiles: () => (listed++, Promise.resolve([])),
      removeRoleFromInstanceProfile: () => Promise.resolve(),
      deleteInstanceProfile: () => Promise.resolve(false),
    };

    const outcomes = await execute(scanned(seen), new FakeEc2(seen), APPLY, iam);

    expect(outcomes['i-01']).toMatchObject({ status: 'applied' });
    expect(listed).toBe(0);
  });

  it('never terminates an instance with only the forgeable tags, even when handed a planned termination for it', async () => {
    const forged = forgedInstance('i-0f00d5ba5e0b1e7a2');
    const ec2 = new FakeEc2([forged, instance({ id: 'i-01' })]);
    const report = scanned([forged, instance({ id: 'i-01' })]);
    report.findings = report.findings.map((f) => ({ ...f, remediation: { ...f.remediation!, status: 'planned', reason: '' } }));

    const outcomes = await execute(report, ec2);

    expect(outcomes['i-0f00d5ba5e0b1e7a2']).toMatchObject({
      status: 'skipped',
      reason:
        'on fresh data, not proven to be launched by Karpenter: no aws:ec2launchtemplate:id tag: not launched from a launch template',
    });
    expect(ec2.terminateCalls).toEqual([['i-01']]);
    expect(ec2.instance('i-0f00d5ba5e0b1e7a2')?.state).toBe('running');
  });

  it('terminates nothing when the launch templates cannot be re-read', async () => {
    const seen = [instance({ id: 'i-01' })];
    const ec2 = new FakeEc2(seen);
    ec2.launchTemplatesError = new SourceError('DescribeLaunchTemplates failed: UnauthorizedOperation');

    const outcomes = await execute(scanned(seen), ec2);

    expect(outcomes['i-01']).toMatchObject({ status: 'failed' });
    expect(outcomes['i-01']?.reason).toMatch(
      /^re-reading the instances and launch templates before terminating failed: .*; nothing terminated$/,
    );
    expect(ec2.terminateCalls).toEqual([]);
  });

  it('a dry run terminates nothing and reads nothing', async () => {
    const seen = [instance({ id: 'i-01' })];
    const ec2 = new FakeEc2(seen);
    const dryRun: ActionSettings = { ...APPLY, modes: { ...APPLY.modes, TERMINATE_INSTANCE: 'dry-run' } };

    const outcomes = await execute(scanned(seen, { actions: dryRun }), ec2, dryRun);

    expect(outcomes['i-01']).toMatchObject({ status: 'planned', reason: '' });
    expect(ec2.describeCalls).toEqual([]);
    expect(ec2.terminateCalls).toEqual([]);
  });

  it('does not terminate an instance whose tags changed since the scan, and terminates the others', async () => {
    const seen = [instance({ id: 'i-01' }), instance({ id: 'i-02' }), instance({ id: 'i-03' })];
    const ec2 = new FakeEc2([
      instance({ id: 'i-01', nodeGroup: 'system' }),
      instance({ id: 'i-02', cluster: null }),
      instance({ id: 'i-03' }),
    ]);

    const outcomes = await execute(scanned(seen), ec2);

    expect(outcomes['i-01']).toMatchObject({
      status: 'skipped',
      reason: 'tags changed since the scan: carries eks:nodegroup-name=system (managed by a managed node group, not Karpenter)',
    });
    expect(outcomes['i-02']).toMatchObject({
      status: 'skipped',
      reason: expect.stringMatching(/^tags changed since the scan: not tagged for cluster demo/),
    });
    expect(ec2.terminateCalls).toEqual([['i-03']]);
    expect(ec2.instance('i-01')?.state).toBe('running');
  });

  it('skips instances that are gone, already going, or were relaunched within the grace period', async () => {
    const seen = [instance({ id: 'i-01' }), instance({ id: 'i-02' }), instance({ id: 'i-03' })];
    const ec2 = new FakeEc2([
      instance({ id: 'i-02', state: 'shutting-down' }),
      instance({ id: 'i-03', launchTime: '2026-01-01T00:52:00Z' }), // stopped and started again: a new launch time
    ]);

    const outcomes = await execute(scanned(seen), ec2);

    expect(outcomes['i-01']).toMatchObject({ status: 'skipped', reason: 'instance no longer exists' });
    expect(outcomes['i-02']).toMatchObject({ status: 'skipped', reason: 'state changed since the scan: already shutting-down' });
    expect(outcomes['i-03']).toMatchObject({
      status: 'skipped',
      reason: 'launched 8m ago (2026-01-01T00:52:00Z), within the 10m orphan grace period',
    });
    expect(ec2.terminateCalls).toEqual([]);
  });

  it('terminates at the grace boundary (exactly 10 minutes old)', async () => {
    const seen = [instance({ id: 'i-01' })];
    const ec2 = new FakeEc2([instance({ id: 'i-01', launchTime: '2026-01-01T00:50:00Z' })]);

    const outcomes = await execute(scanned(seen), ec2);

    expect(outcomes['i-01']?.status).toBe('applied');
  });

  it('one termination failing does not stop the others', async () => {
    const seen = [instance({ id: 'i-01' }), instance({ id: 'i-02' }), instance({ id: 'i-03' })];
    const ec2 = new FakeEc2(seen);
    ec2.terminateErrors.set('i-02', 'UnauthorizedOperation: You are not authorized to perform this operation.');

    const outcomes = await execute(scanned(seen), ec2);

    expect(outcomes['i-02']).toMatchObject({
      status: 'failed',
      reason: 'UnauthorizedOperation: You are not authorized to perform this operation.',
    });
    expect([outcomes['i-01']?.status, outcomes['i-03']?.status]).toEqual(['applied', 'applied']);
    expect(ec2.instance('i-03')?.state).toBe('shutting-down');
  });

  it('terminates nothing when the re-read fails, and says why on every termination', async () => {
    const seen = [instance({ id: 'i-01' }), instance({ id: 'i-02' })];
    const ec2 = new FakeEc2(seen);
    ec2.describeError = new SourceError('RequestLimitExceeded: Request limit exceeded.', { code: 'RequestLimitExceeded' });

    const outcomes = await execute(scanned(seen), ec2);

    for (const id of ['i-01', 'i-02']) {
      expect(outcomes[id]).toMatchObject({
        status: 'failed',
        reason:
          're-reading the instances and launch templates before terminating failed: RequestLimitExceeded: Request limit exceeded.; nothing terminated',
      });
    }
    expect(ec2.terminateCalls).toEqual([]);
  });

  it('never terminates more than maxTerminationsPerRun, even when handed more planned terminations', async () => {
    const seen = ['i-01', 'i-02', 'i-03'].map((id) => instance({ id }));
    const ec2 = new FakeEc2(seen);
    const report = scanned(seen); // planned under the default cap of 20
    const tight: ActionSettings = { ...APPLY, maxTerminationsPerRun: 2 };

    const outcomes = await execute(report, ec2, tight);

    expect(ec2.terminateCalls).toEqual([['i-01', 'i-02']]);
    expect(outcomes['i-03']).toMatchObject({ status: 'skipped', reason: 'per-run cap of 2 terminations reached' });
  });

  it('with the planner and executor under the same cap, the same instances are picked', async () => {
    const seen = ['i-01', 'i-02', 'i-03'].map((id) => instance({ id }));
    const ec2 = new FakeEc2(seen);
    const tight: ActionSettings = { ...APPLY, maxTerminationsPerRun: 2 };

    const outcomes = await execute(scanned(seen, { actions: tight }), ec2, tight);

    expect(Object.values(outcomes).map((r) => r?.status)).toEqual(['applied', 'applied', 'skipped']);
    expect(ec2.terminateCalls).toEqual([['i-01', 'i-02']]);
  });

  it('terminates nothing from an incomplete scan', async () => {
    const seen = [instance({ id: 'i-01' })];
    const ec2 = new FakeEc2(seen);
    const report = scanned(seen);

    const outcomes = await execute({ ...report, complete: false }, ec2);

    expect(outcomes['i-01']).toMatchObject({ status: 'skipped', reason: expect.stringContaining('snapshot incomplete') });
    expect(ec2.describeCalls).toEqual([]);
  });
});
