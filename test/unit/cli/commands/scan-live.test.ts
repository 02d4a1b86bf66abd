import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { EXAMPLES_NOW } from '../../../../src/cli/commands/demo.ts';
import { connectLive } from '../../../../src/cli/live-connection.ts';
import type { Report } from '../../../../src/domain/report.ts';
import { SOURCE_NAMES } from '../../../../src/domain/snapshot.ts';
import { KubeUnreachableError } from '../../../../src/ports/errors.ts';
import { simulateSnapshot } from '../../../../src/simulator/simulation.ts';
import { loadSnapshot } from '../../../../src/snapshot/load.ts';
import { run } from '../cli-harness.ts';
import { closedAfterEachTest } from '../../../support/simulation.ts';

const example = (name: string) => fileURLToPath(new URL(`../../../../examples/${name}`, import.meta.url));
const simulations = closedAfterEachTest();

/** `scan --cluster` wired to a simulated cluster instead of AWS: the CLI's live path, no account. */
async function liveServices(name: string) {
  const { snapshot } = await loadSnapshot([example(name)]);
  // A whole cluster: what the capture did not hold exists and is empty (a live scan reads every source).
  for (const source of SOURCE_NAMES) snapshot.captured.add(source);
  const simulation = await simulateSnapshot(snapshot);
  simulations.push(simulation);
  const targets: unknown[] = [];
  return {
    simulation,
    targets,
    services: {
      connectLive: async (target: unknown) => {
        targets.push(target);
        return simulation.connection;
      },
    },
  };
}

const statuses = (stdout: string) =>
  (JSON.parse(stdout) as Report).findings.map((f) => `${f.code} ${f.remediation?.action} ${f.remediation?.status}`);

describe('scan --simulate', () => {
  it('plans without --apply and changes nothing', async () => {
    const result = await run(['scan', '--simulate', example('fargate-bootstrap-deadlock'), '--now', EXAMPLES_NOW, '-o', 'json']);

    expect(result.stderr).toBe('');
    expect(result.code).toBe(1);
    expect(statuses(result.stdout)).toEqual(['KARPENTER_CONTROLLER_PENDING ROLLOUT_RESTART planned']);
  });

  it('reads the capture within --max-file-size, leaving a larger file out in one line and saying the data is incomplete', async () => {
    const folder = example('fargate-bootstrap-deadlock');

    const result = await run(['scan', '--simulate', folder, '--now', EXAMPLES_NOW, '--max-file-size', '4KiB']);

    const tooLarge = `${join(folder, 'karpenter-namespace.json')}: is more than 4 KiB (the limit; raise it with --max-file-size)`;
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`note: ${tooLarge}; left out, the scan goes on without it`);
    expect(result.stdout).toContain('DATA INCOMPLETE');
    expect(result.stdout).toContain(`left out ${tooLarge}`);
  });

  it('sets aside an object nested 10,000 levels deep with a note and scans the rest', async () => {
    // Prepare: the example, and a pod whose spec nests 10,000 levels (JSON.stringify overflows the stack at a few thousand)
    const folder = await mkdtemp(join(tmpdir(), 'sentinel-deep-'));
    try {
      await cp(example('fargate-bootstrap-deadlock'), folder, { recursive: true });
      const deep = `${'{"x":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
      const podJson = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"deep","namespace":"shop"},"spec":{"containers":[],"deep":${deep}}}`;
      await writeFile(join(folder, 'deep-pods.json'), `{"apiVersion":"v1","kind":"List","items":[${podJson}]}`);

      // Act
      const result = await run(['scan', '--simulate', folder, '--now', EXAMPLES_NOW, '-o', 'json']);

      // Assess
      expect(result.stderr).not.toContain('internal error');
      expect(result.stderr).toContain(
        `note: ${join(folder, 'deep-pods.json')}: Pod shop/deep: spec is nested more than 1,000 levels deep, expected at most 1,000; object set aside\n`,
      );
      expect(result.code).toBe(1);
      const report = JSON.parse(result.stdout) as Report;
      expect(report.gaps).toEqual([{ source: 'pods', error: '1 object set aside as malformed (see notes)' }]);
      expect(report.findings.map((f) => f.code)).toEqual(['KARPENTER_CONTROLLER_PENDING']);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('restarts the stuck controller with --apply', async () => {
    const result = await run([
      'scan',
      '--simulate',
      example('fargate-bootstrap-deadlock'),
      '--apply',
      '--now',
      EXAMPLES_NOW,
      '-o',
      'json',
    ]);

    const [finding] = (JSON.parse(result.stdout) as Report).findings;
    expect(finding?.remediation).toMatchObject({
      status: 'applied',
      reason: expect.stringContaining('restartedAt=2026-01-01T01:00:00Z'),
    });
  });

  it.each([
    [
      ['--from', 'a', '--simulate', 'b'],
      '--from and --simulate cannot be combined: --from analyses files, --simulate serves them as a cluster',
    ],
    [['--simulate', 'a', '--region', 'us-east-1'], '--region applies to a live scan only (not with --simulate)'],
    [['--from', 'a', '--apply'], 'offline captures cannot be changed; --apply needs --cluster or --simulate'],
  ])('%j is a usage error', async (flags, message) => {
    const result = await run(['scan', ...flags]);

    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`karpenter-sentinel: ${message}\n`);
  });
});

describe('scan --cluster', () => {
  it('reads the cluster through the live connection, read-only by default', async () => {
    const { services, targets, simulation } = await liveServices('orphans-after-destroy');

    const result = await run(
      ['scan', '--cluster', 'platform-eks-dev', '--region', 'eu-central-1', '--now', EXAMPLES_NOW, '-o', 'json'],
      {
        services,
      },
    );

    expect(targets).toEqual([{ clusterName: 'platform-eks-dev', region: 'eu-central-1' }]);
    expect(statuses(result.stdout)).toEqual([
      'INSTANCE_PROVENANCE_UNPROVEN MANUAL manual',
      'ORPHANED_INSTANCE TERMINATE_INSTANCE planned',
      'ORPHANED_INSTANCE TERMINATE_INSTANCE planned',
    ]);
    expect(simulation.aws.callsTo('TerminateInstances')).toEqual([]);
  });

  it('terminates the orphans with --apply, never the forged-tag instance beside them, and a second scan finds them gone', async () => {
    const { services, simulation } = await liveServices('orphans-after-destroy');
    const argv = ['scan', '--cluster', 'platform-eks-dev', '--apply', '--now', EXAMPLES_NOW, '-o', 'json'];

    const first = await run(argv, { services });
    const second = await run(argv, { services });

    expect(statuses(first.stdout)).toEqual([
      'INSTANCE_PROVENANCE_UNPROVEN MANUAL manual',
      'ORPHANED_INSTANCE TERMINATE_INSTANCE applied',
      'ORPHANED_INSTANCE TERMINATE_INSTANCE applied',
    ]);
    expect(simulation.aws.callsTo('TerminateInstances').map((c) => c.input.instanceIds)).toEqual([
      ['i-0a3f1c9e8b7d6a501', 'i-0b7e2d4f6a8c9e102'],
    ]);
    // prod-postgres-primary: only eks:eks-cluster-name and karpenter.sh/nodepool, launched in 2024.
    expect(simulation.aws.state.instances.get('i-0f00d5ba5e0b1e7a2')?.state).toBe('running');
    expect(statuses(second.stdout)).toEqual(['INSTANCE_PROVENANCE_UNPROVEN MANUAL manual']);
    expect(second.code).toBe(1);
  });

  it('a cluster whose Kubernetes API cannot be reached is an error in one line, not an empty report', async () => {
    const { services, simulation } = await liveServices('healthy');
    const unreachable = {
      connectLive: async () => ({
        ...simulation.connection,
        connectKube: async () => {
          throw new KubeUnreachableError('connect ETIMEDOUT 10.0.1.5:443');
        },
      }),
    };

    const cluster = simulation.seed.clusterName;
    const result = await run(['scan', '--cluster', cluster, '--now', EXAMPLES_NOW], {
      services: { ...services, ...unreachable },
    });

    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^karpenter-sentinel: cannot scan cluster [\w-]+: its Kubernetes API could not be read \(\w+: connect ETIMEDOUT 10\.0\.1\.5:443\)\n$/,
    );
  });

  it('a cluster EKS does not know is one line saying so and where it looked, not "No findings"', async () => {
    const { services, simulation } = await liveServices('healthy');

    const result = await run(['scan', '--cluster', `${simulation.seed.clusterName}-typo`, '--now', EXAMPLES_NOW], { services });

    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `karpenter-sentinel: cluster ${simulation.seed.clusterName}-typo does not exist in ${simulation.connection.aws.region} for this AWS account (EKS DescribeCluster: ResourceNotFoundException): a typo, another region or account, or deleted; the region's clusters: aws eks list-clusters --region ${simulation.connection.aws.region}\n`,
    );
  });

  it('a deleted cluster whose instances are still tagged for it: their report, with one note that the cluster does not exist', async () => {
    const { snapshot } = await loadSnapshot([example('orphans-after-destroy')]);
    const simulation = await simulateSnapshot({ ...snapshot, cluster: { name: snapshot.clusterName, gone: true } });
    simulations.push(simulation);

    const result = await run(['scan', '--cluster', snapshot.clusterName, '--now', EXAMPLES_NOW, '-o', 'json'], {
      services: { connectLive: async () => simulation.connection },
    });

    expect(result.stderr).toContain(
      `note: cluster ${snapshot.clusterName} does not exist in ${simulation.connection.aws.region}`,
    );
    expect((JSON.parse(result.stdout) as Report).findings.map((f) => f.code)).toContain('ORPHANED_INSTANCE');
  });

  it('a wrong --context or an insecure kubeconfig is refused before any AWS call', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sentinel-kubeconfig-'));
    const kubeconfig = join(dir, 'config');
    await writeFile(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters: [{name: c, cluster: {server: "https://127.0.0.1:6443", insecure-skip-tls-verify: true}}]',
        'users: [{name: u, user: {token: t}}]',
        'contexts: [{name: ctx, context: {cluster: c, user: u}}]',
      ].join('\n'),
    );
    const target = { clusterName: 'prod', region: 'us-east-1', kubeconfig };
    try {
      await expect(connectLive({ ...target, context: 'nope' })).rejects.toThrow(
        `context "nope" not found in ${kubeconfig} (available: ctx)`,
      );
      await expect(connectLive({ ...target, context: 'ctx' })).rejects.toThrow(/always verifies TLS/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('without a region anywhere it says how to give one', async () => {
    await expect(connectLive({ clusterName: 'prod' })).rejects.toThrow(
      'no AWS region for cluster prod: pass --region REGION, set AWS_REGION, or set one in the AWS config (aws configure set region REGION)',
    );
  });
});
