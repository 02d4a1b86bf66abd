/**
 * A live scan end to end: the real Kubernetes adapter over HTTPS to the simulated API server,
 * in-memory AWS, the collector, detectors, planner and executor. Faults are injected where a real
 * cluster and a real account would fail.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { EXAMPLES_NOW } from '../../src/cli/commands/demo.ts';
import { actionsFor } from '../../src/cli/cluster-scan.ts';
import type { Report } from '../../src/domain/report.ts';
import { CLI_ACTIONS, DEFAULT_DETECTION } from '../../src/domain/settings.ts';
import type { Clock } from '../../src/ports/clock.ts';
import { KubeUnreachableError } from '../../src/ports/errors.ts';
import { simulatedSources, simulateSnapshot, type Simulation } from '../../src/simulator/simulation.ts';
import { loadSnapshot } from '../../src/snapshot/load.ts';
import { scanCluster } from '../../src/usecases/scan-cluster.ts';
import { closedAfterEachTest } from '../support/simulation.ts';

const example = (name: string) => fileURLToPath(new URL(`../../examples/${name}`, import.meta.url));
const NOW = new Date(EXAMPLES_NOW);
const APPLY = actionsFor(true, CLI_ACTIONS.maxTerminationsPerRun);
const DRY_RUN = actionsFor(false, CLI_ACTIONS.maxTerminationsPerRun);

const running = closedAfterEachTest();

/** Retries sleep through this clock: the test records the waits instead of waiting. */
function recordingClock(): Clock & { sleeps: number[] } {
  const sleeps: number[] = [];
  return { sleeps, now: () => new Date(), sleep: async (ms) => void sleeps.push(ms) };
}

async function simulate(name: string, clock = recordingClock()): Promise<Simulation> {
  const { snapshot } = await loadSnapshot([example(name)]);
  const simulation = await simulateSnapshot(snapshot, { kube: { clock } });
  running.push(simulation);
  return simulation;
}

function scan(
  simulation: Simulation,
  options: { now?: Date; actions?: typeof APPLY; connection?: Simulation['connection'] } = {},
): Promise<Report> {
  return scanCluster(options.connection ?? simulation.connection, {
    clusterName: simulation.seed.clusterName,
    sources: simulatedSources(simulation.seed),
    detection: DEFAULT_DETECTION,
    actions: options.actions ?? APPLY,
    now: options.now ?? NOW,
  }).then((r) => r.report);
}

const remediations = (report: Report, action: string) =>
  report.findings
    .filter((f) => f.remediation?.action === action)
    .map((f) => ({ id: f.resource.id ?? f.resource.name, ...f.remediation! }));

describe('scanCluster against the simulator', () => {
  it('a 403 on NodeClaims becomes a gap: the report is incomplete and no instance is terminated', async () => {
    const simulation = await simulate('orphans-after-destroy');
    simulation.kubeApi.faults.add({
      path: '/apis/karpenter.sh/v1/nodeclaims',
      status: 403,
      message:
        'nodeclaims.karpenter.sh is forbidden: User "sentinel" cannot list resource "nodeclaims" in API group "karpenter.sh" at the cluster scope',
    });

    const report = await scan(simulation);

    expect(report.complete).toBe(false);
    expect(report.gaps).toContainEqual({ source: 'nodeclaims', error: expect.stringContaining('403') });
    expect(report.gaps.find((g) => g.source === 'nodeclaims')?.error).toContain('cannot list resource "nodeclaims"');
    expect(remediations(report, 'TERMINATE_INSTANCE').filter((r) => r.status !== 'skipped')).toEqual([]);
    expect(simulation.aws.callsTo('TerminateInstances')).toEqual([]);
  });

  it('429 and 500 bursts are retried (honouring Retry-After) and the scan is complete', async () => {
    const clean = await scan(await simulate('orphans-after-destroy'), { actions: DRY_RUN });
    const clock = recordingClock();
    const simulation = await simulate('orphans-after-destroy', clock);
    const faults = [
      simulation.kubeApi.faults.add({ path: '/api/v1/pods', status: 429, retryAfterSeconds: 2, times: 2 }),
      simulation.kubeApi.faults.add({ path: '/apis/karpenter.sh/v1/nodeclaims', drop: true, times: 1 }),
      simulation.kubeApi.faults.add({ path: '/apis/karpenter.sh/v1/nodeclaims', status: 500, times: 3 }),
    ];

    const report = await scan(simulation, { actions: DRY_RUN });

    expect(report).toEqual(clean);
    expect(report.complete).toBe(true);
    expect(clock.sleeps.filter((ms) => ms === 2000)).toHaveLength(2);
    expect(faults.map((f) => f.hits)).toEqual([2, 1, 3]);
  });

  it('more failures than the retry bound leave a gap naming the source, not a crash', async () => {
    const simulation = await simulate('orphans-after-destroy');
    simulation.kubeApi.faults.add({ path: '/apis/karpenter.sh/v1/nodeclaims', status: 503 });

    const report = await scan(simulation);

    expect(report.complete).toBe(false);
    expect(report.gaps.map((g) => g.source)).toEqual(['nodeclaims']);
    expect(simulation.aws.callsTo('TerminateInstances')).toEqual([]);
  });

  it('a list the API server cannot convert (broken CRD conversion webhook) is a gap whose text is the diagnosis', async () => {
    const simulation = await simulate('orphans-after-destroy');
    simulation.kubeApi.faults.add({
      path: '/apis/karpenter.sh/v1/nodeclaims',
      status: 500,
      reason: 'InternalError',
      message:
        'conversion webhook for karpenter.sh/v1beta1, Kind=NodeClaim failed: Post "https://karpenter.kube-system.svc:8443/?timeout=30s": service "karpenter" not found',
    });

    const report = await scan(simulation);

    expect(report.gaps.map((g) => g.source)).toEqual(['nodeclaims']);
    const broken = report.findings.find((f) => f.code === 'CRD_CONVERSION_WEBHOOK_BROKEN');
    expect(broken?.resource).toEqual({ kind: 'CustomResourceDefinition', name: 'nodeclaims.karpenter.sh' });
    expect(broken?.cause?.code).toBe('SERVICE_MISSING');
    expect(simulation.aws.callsTo('TerminateInstances')).toEqual([]);
  });

  it('a restart patch that meets a 409 is not retried: the Deployment is restarted by nobody twice', async () => {
    const simulation = await simulate('fargate-bootstrap-deadlock');
    const { store } = simulation.kubeApi;
    const connectKube = simulation.connection.connectKube;
    const connection = {
      ...simulation.connection,
      connectKube: async (cluster: Parameters<typeof connectKube>[0]) => {
        const kube = await connectKube(cluster);
        return {
          ...kube,
          list: kube.list.bind(kube),
          get: kube.get.bind(kube),
          podLog: kube.podLog.bind(kube),
          deleteNodePool: kube.deleteNodePool.bind(kube),
          // Between the executor's read and its write, a human runs `kubectl rollout restart`.
          patchDeploymentAnnotations: async (patch: Parameters<typeof kube.patchDeploymentAnnotations>[0]) => {
            const current = structuredClone(store.get('deployments', patch.name, patch.namespace)!.object) as {
              spec: { template: { metadata: { annotations?: Record<string, string> } } };
            };
            current.spec.template.metadata.annotations = { 'kubectl.kubernetes.io/restartedAt': '2026-01-01T00:59:59Z' };
            store.put('deployments', current);
            return kube.patchDeploymentAnnotations(patch);
          },
        };
      },
    };

    const report = await scan(simulation, { connection });

    const [restart] = remediations(report, 'ROLLOUT_RESTART');
    expect(restart?.status).toBe('skipped');
    expect(restart?.reason).toMatch(/changed during the scan|restarted 1s ago/);
    const deployment = store.get('deployments', 'karpenter', 'karpenter')!.object as {
      spec: { template: { metadata: { annotations: Record<string, string> } } };
    };
    expect(deployment.spec.template.metadata.annotations['kubectl.kubernetes.io/restartedAt']).toBe('2026-01-01T00:59:59Z');
  });

  it('two scans racing to restart the controller restart it once', async () => {
    const simulation = await simulate('fargate-bootstrap-deadlock');
    simulation.kubeApi.faults.add({ method: 'PATCH', path: '/apis/apps/v1/namespaces/', latencyMs: 200, times: 2 });

    const reports = await Promise.all([scan(simulation), scan(simulation)]);

    const outcomes = reports.flatMap((r) => remediations(r, 'ROLLOUT_RESTART'));
    expect(outcomes.map((r) => r.status).sort()).toEqual(['applied', 'skipped']);
    expect(outcomes.find((r) => r.status === 'skipped')?.reason).toMatch(/changed during the scan|cooldown/);
  });

  it('across runs: restarts once, then holds off in the cooldown, then says the restart did not help', async () => {
    const simulation = await simulate('fargate-bootstrap-deadlock');
    const at = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000);

    const outcomes = [];
    for (const minutes of [0, 5, 20, 70]) {
      const [restart] = remediations(await scan(simulation, { now: at(minutes) }), 'ROLLOUT_RESTART');
      outcomes.push(`${restart?.status}: ${restart?.reason}`);
    }

    expect(outcomes[0]).toMatch(/^applied: restartedAt=2026-01-01T01:00:00Z \(restart 1 of at most 3/);
    expect(outcomes[1]).toMatch(/^skipped: restarted 5m ago .*within the 15m cooldown/);
    expect(outcomes[2]).toMatch(/^skipped: .*did not help.*a human must look/);
    // An hour without restarts: one more try.
    expect(outcomes[3]).toMatch(/^applied: restartedAt=2026-01-01T02:10:00Z/);
    const deployment = simulation.kubeApi.store.get('deployments', 'karpenter', 'karpenter')!.object as {
      metadata: { annotations: Record<string, string> };
    };
    expect(deployment.metadata.annotations['karpenter-sentinel.io/restarts']).toBe('2026-01-01T02:10:00Z');
  });

  it('a deleted cluster with --apply terminates its orphans without reaching for its gone Kubernetes API', async () => {
    const { snapshot } = await loadSnapshot([example('orphans-after-destroy')]);
    const simulation = await simulateSnapshot({ ...snapshot, cluster: { name: snapshot.clusterName, gone: true } });
    running.push(simulation);
    const connectKube = vi.fn(async () => {
      throw new KubeUnreachableError(`EKS cluster ${snapshot.clusterName} has no API endpoint or CA yet (it does not exist)`);
    });

    const report = await scan(simulation, { connection: { ...simulation.connection, connectKube } });

    expect(report.complete).toBe(true);
    expect(remediations(report, 'TERMINATE_INSTANCE').map((r) => `${r.id} ${r.status}`)).toEqual([
      'i-0a3f1c9e8b7d6a501 applied',
      'i-0b7e2d4f6a8c9e102 applied',
    ]);
    expect(connectKube).not.toHaveBeenCalled();
  });

  it('an instance whose tags changed between the scan and the termination is left alone', async () => {
    const simulation = await simulate('orphans-after-destroy');
    const [adopted, orphan] = simulation.seed.instances.filter((i) => i.tags['karpenter.sh/nodepool']).map((i) => i.id);
    const ec2 = simulation.connection.aws.ec2;
    let reads = 0;
    const describeInstances: typeof ec2.describeInstances = async (query) => {
      const result = await ec2.describeInstances.call(ec2, query);
      // After the collector's read, a managed node group adopts the instance.
      if (++reads === 1) simulation.aws.updateInstance(adopted!, (i) => void (i.tags['eks:nodegroup-name'] = 'system'));
      return result;
    };
    const connection = {
      ...simulation.connection,
      aws: {
        ...simulation.connection.aws,
        ec2: {
          ...ec2,
          describeInstances,
          terminateInstances: ec2.terminateInstances.bind(ec2),
          describeLaunchTemplates: ec2.describeLaunchTemplates.bind(ec2),
          deleteLaunchTemplate: ec2.deleteLaunchTemplate.bind(ec2),
        },
      },
    };

    const report = await scan(simulation, { connection });

    const byId = new Map(remediations(report, 'TERMINATE_INSTANCE').map((r) => [r.id, r]));
    expect(byId.get(adopted)?.status).toBe('skipped');
    expect(byId.get(adopted)?.reason).toContain('eks:nodegroup-name=system');
    expect(byId.get(orphan)?.status).toBe('applied');
    expect(simulation.aws.callsTo('TerminateInstances').map((c) => c.input)).toEqual([{ instanceIds: [orphan] }]);
  });
});
