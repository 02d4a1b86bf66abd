import { describe, expect, it } from 'vitest';
import type { Deployment } from '../../../src/domain/kube.ts';
import type { ActionSettings } from '../../../src/domain/settings.ts';
import { SourceError } from '../../../src/ports/errors.ts';
import { executeRemediations } from '../../../src/remediations/execute.ts';
import { snapshotOf } from '../../factories/aws.ts';
import { karpenterDeployment } from '../../factories/kube.ts';
import { FakeEc2, FakeKube } from '../../factories/ports.ts';
import { APPLY, controllerPendingFinding, executeContext, plannedReport } from './reports.ts';

const NS = 'karpenter';
const NAME = 'karpenter';

/** One scheduled scan: snapshot of the fake cluster as it is now, plan, then execute. */
async function scan(kube: FakeKube, at: string, pendingSince: string | null, actions: ActionSettings = APPLY) {
  const now = new Date(at);
  const snapshot = snapshotOf({ deployments: [kube.deployment(NS, NAME) as Deployment], pods: [] });
  const report = plannedReport(snapshot, [controllerPendingFinding(pendingSince)], { actions, now });
  const executed = await executeRemediations(report, executeContext({ kube, ec2: new FakeEc2() }, now, actions));
  return { planned: report.findings[0]?.remediation, outcome: executed.findings[0]?.remediation };
}

function annotations(kube: FakeKube) {
  const d = kube.deployment(NS, NAME) as Deployment;
  return {
    restartedAt: d.spec?.template?.metadata?.annotations?.['kubectl.kubernetes.io/restartedAt'],
    history: d.metadata?.annotations?.['karpenter-sentinel.io/restarts'],
    resourceVersion: d.metadata?.resourceVersion,
  };
}

describe('ROLLOUT_RESTART executor', () => {
  it('restarts once, with the resourceVersion read right before acting, and records the restart', async () => {
    const kube = new FakeKube([karpenterDeployment()]);
    const now = new Date('2026-01-01T01:00:00Z');
    const snapshot = snapshotOf({ deployments: [kube.deployment(NS, NAME) as Deployment], pods: [] });
    const report = plannedReport(snapshot, [controllerPendingFinding('2026-01-01T00:50:00Z')], { actions: APPLY, now });
    kube.put(karpenterDeployment()); // a status update after the scan: the snapshot's version is stale now
    const fresh = annotations(kube).resourceVersion;

    const executed = await executeRemediations(report, executeContext({ kube, ec2: new FakeEc2() }, now));

    expect(executed.findings[0]?.remediation).toMatchObject({
      status: 'applied',
      reason: 'restartedAt=2026-01-01T01:00:00Z (restart 1 of at most 3 in an hour)',
    });
    expect(kube.patches).toEqual([
      {
        namespace: NS,
        name: NAME,
        resourceVersion: fresh,
        annotations: { 'karpenter-sentinel.io/restarts': '2026-01-01T01:00:00Z' },
        templateAnnotations: { 'kubectl.kubernetes.io/restartedAt': '2026-01-01T01:00:00Z' },
      },
    ]);
    expect(annotations(kube)).toMatchObject({ restartedAt: '2026-01-01T01:00:00Z', history: '2026-01-01T01:00:00Z' });
  });

  it('a dry run leaves the restart planned and writes nothing', async () => {
    const kube = new FakeKube([karpenterDeployment()]);
    const dryRun: ActionSettings = { ...APPLY, modes: { ...APPLY.modes, ROLLOUT_RESTART: 'dry-run' } };

    const { outcome } = await scan(kube, '2026-01-01T01:00:00Z', '2026-01-01T00:50:00Z', dryRun);

    expect(outcome).toMatchObject({ status: 'planned', reason: '' });
    expect(kube.patches).toEqual([]);
    expect(annotations(kube).restartedAt).toBeUndefined();
  });

  it('skips on a 409 when someone restarted between the read and the write, and does not patch again', async () => {
    const kube = new FakeKube([karpenterDeployment()]);
    kube.afterGet = () => kube.kubectlRolloutRestart(NS, NAME, '2026-01-01T01:00:00+01:00');

    const { outcome } = await scan(kube, '2026-01-01T01:00:00Z', '2026-01-01T00:50:00Z');

    expect(outcome).toMatchObject({
      status: 'skipped',
      reason: 'the Deployment changed during the scan (another scan or a human restarted it); not restarted twice',
    });
    expect(kube.patches).toHaveLength(1);
    expect(annotations(kube)).toMatchObject({ restartedAt: '2026-01-01T01:00:00+01:00', history: undefined });
  });

  it('re-checks the cooldown on the fresh Deployment: two scans planned from the same moment restart once', async () => {
    const kube = new FakeKube([karpenterDeployment()]);
    const now = new Date('2026-01-01T01:00:00Z');
    const snapshot = snapshotOf({ deployments: [kube.deployment(NS, NAME) as Deployment], pods: [] });
    const plan = () => plannedReport(snapshot, [controllerPendingFinding('2026-01-01T00:50:00Z')], { actions: APPLY, now });
    const [scanA, scanB] = [plan(), plan()];

    const a = await executeRemediations(scanA, executeContext({ kube, ec2: new FakeEc2() }, now));
    const b = await executeRemediations(scanB, executeContext({ kube, ec2: new FakeEc2() }, new Date('2026-01-01T01:00:20Z')));

    expect(a.findings[0]?.remediation?.status).toBe('applied');
    expect(b.findings[0]?.remediation).toMatchObject({
      status: 'skipped',
      reason: 'restarted 20s ago (2026-01-01T01:00:00Z), within the 15m cooldown; waiting for that restart to take effect',
    });
    expect(kube.patches).toHaveLength(1);
  });

  it('says the restart did not help, and restarts no more, when the new pods stay Pending past the cooldown', async () => {
    const kube = new FakeKube([karpenterDeployment()]);

    const first = await scan(kube, '2026-01-01T01:00:00Z', '2026-01-01T00:50:00Z');
    const second = await scan(kube, '2026-01-01T01:20:00Z', '2026-01-01T01:00:03Z');

    expect(first.outcome?.status).toBe('applied');
    expect(second.planned).toMatchObject({ status: 'skipped', reason: expect.stringContaining('a human must look') });
    expect(second.outcome?.reason).toBe(
      'the restart at 2026-01-01T01:00:00Z did not help: the controller has been Pending since 2026-01-01T01:00:03Z, through the 15m cooldown after it; not restarting again — a human must look',
    );
    expect(kube.patches).toHaveLength(1);
  });

  it('holds the cooldown and the hourly cap across runs with a moving clock, from the Deployment alone', async () => {
    const kube = new FakeKube([karpenterDeployment()]);

    // Each recovery and relapse shows up as a later `since`: the restart helped, then the controller went Pending again.
    const runs = [
      await scan(kube, '2026-01-01T01:00:00Z', '2026-01-01T00:50:00Z'),
      await scan(kube, '2026-01-01T01:05:00Z', '2026-01-01T01:00:05Z'),
      await scan(kube, '2026-01-01T01:21:00Z', '2026-01-01T01:16:00Z'),
      await scan(kube, '2026-01-01T01:42:00Z', '2026-01-01T01:37:00Z'),
      await scan(kube, '2026-01-01T01:59:00Z', '2026-01-01T01:54:00Z'),
      await scan(kube, '2026-01-01T02:01:00Z', '2026-01-01T01:58:00Z'),
    ];

    expect(runs.map((r) => r.outcome?.status)).toEqual(['applied', 'skipped', 'applied', 'applied', 'skipped', 'applied']);
    expect(runs[1]?.outcome?.reason).toContain('restarted 5m ago (2026-01-01T01:00:00Z), within the 15m cooldown');
    expect(runs[4]?.outcome?.reason).toBe(
      '3 restarts in the last hour did not help (2026-01-01T01:00:00Z, 2026-01-01T01:21:00Z, 2026-01-01T01:42:00Z; cap 3 per hour); not restarting again — a human must look',
    );
    expect(runs[4]?.planned?.reason).toBe(runs[4]?.outcome?.reason);
    expect(runs[5]?.outcome?.reason).toBe('restartedAt=2026-01-01T02:01:00Z (restart 3 of at most 3 in an hour)');
    expect(kube.patches).toHaveLength(4);
    expect(annotations(kube).history).toBe('2026-01-01T01:21:00Z,2026-01-01T01:42:00Z,2026-01-01T02:01:00Z');
  });

  it('counts a human kubectl restart toward the cooldown even when the scan did not see it', async () => {
    const kube = new FakeKube([karpenterDeployment()]);
    const now = new Date('2026-01-01T01:00:00Z');
    const snapshot = snapshotOf({ deployments: [kube.deployment(NS, NAME) as Deployment], pods: [] });
    const report = plannedReport(snapshot, [controllerPendingFinding('2026-01-01T00:50:00Z')], { actions: APPLY, now });
    kube.kubectlRolloutRestart(NS, NAME, '2026-01-01T01:58:00+01:00');

    const executed = await executeRemediations(report, executeContext({ kube, ec2: new FakeEc2() }, now));

    expect(executed.findings[0]?.remediation).toMatchObject({
      status: 'skipped',
      reason: expect.stringContaining('restarted 2m ago'),
    });
    expect(kube.patches).toEqual([]);
  });

  it('skips when the Deployment is gone', async () => {
    const kube = new FakeKube([karpenterDeployment()]);
    kube.afterGet = () => kube.remove(NS, NAME);
    const gone = new FakeKube([]);
    const snapshot = snapshotOf({ deployments: [karpenterDeployment()], pods: [] });
    const now = new Date('2026-01-01T01:00:00Z');
    const report = plannedReport(snapshot, [controllerPendingFinding('2026-01-01T00:50:00Z')], { actions: APPLY, now });

    const beforeRead = await executeRemediations(report, executeContext({ kube: gone, ec2: new FakeEc2() }, now));
    const beforeWrite = await executeRemediations(report, executeContext({ kube, ec2: new FakeEc2() }, now));

    expect(beforeRead.findings[0]?.remediation).toMatchObject({
      status: 'skipped',
      reason: 'Deployment karpenter/karpenter no longer exists',
    });
    expect(gone.patches).toEqual([]);
    expect(beforeWrite.findings[0]?.remediation).toMatchObject({
      status: 'skipped',
      reason: 'Deployment karpenter/karpenter no longer exists',
    });
  });

  it('fails with the one-line error when the read or the write fails for another reason', async () => {
    const unreadable = new FakeKube([karpenterDeployment()]);
    unreadable.getError = new SourceError('403 Forbidden: deployments.apps "karpenter" is forbidden', { code: '403' });
    const unwritable = new FakeKube([karpenterDeployment()]);
    unwritable.patchError = new SourceError('403 Forbidden: cannot patch deployments.apps "karpenter"', { code: '403' });

    const read = await scan(unreadable, '2026-01-01T01:00:00Z', '2026-01-01T00:50:00Z');
    const write = await scan(unwritable, '2026-01-01T01:00:00Z', '2026-01-01T00:50:00Z');

    expect(read.outcome).toMatchObject({
      status: 'failed',
      reason:
        're-reading Deployment karpenter/karpenter before the restart failed: 403 Forbidden: deployments.apps "karpenter" is forbidden',
    });
    expect(unreadable.patches).toEqual([]);
    expect(write.outcome).toMatchObject({ status: 'failed', reason: '403 Forbidden: cannot patch deployments.apps "karpenter"' });
  });

  it('skips a paused Deployment (kubectl refuses too) and one whose replicas are all Ready by now', async () => {
    const paused = karpenterDeployment();
    paused.spec = { ...paused.spec, paused: true } as Deployment['spec'];
    const pausedKube = new FakeKube([paused]);
    const recoveredKube = new FakeKube([karpenterDeployment()]);
    const now = new Date('2026-01-01T01:00:00Z');
    const report = plannedReport(
      snapshotOf({ deployments: [karpenterDeployment()], pods: [] }),
      [controllerPendingFinding('2026-01-01T00:50:00Z')],
      { actions: APPLY, now },
    );
    recoveredKube.put(karpenterDeployment({ readyReplicas: 2 }));

    const onPaused = await executeRemediations(report, executeContext({ kube: pausedKube, ec2: new FakeEc2() }, now));
    const onRecovered = await executeRemediations(report, executeContext({ kube: recoveredKube, ec2: new FakeEc2() }, now));

    expect(onPaused.findings[0]?.remediation).toMatchObject({ status: 'skipped', reason: expect.stringContaining('is paused') });
    expect(onRecovered.findings[0]?.remediation).toMatchObject({
      status: 'skipped',
      reason: 'all 2 replica(s) of Deployment karpenter/karpenter are Ready now; no restart needed',
    });
    expect([...pausedKube.patches, ...recoveredKube.patches]).toEqual([]);
  });
});
