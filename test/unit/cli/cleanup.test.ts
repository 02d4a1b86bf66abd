import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_SERVICES, type CliServices } from '../../../src/cli/io.ts';
import type { CleanupResult } from '../../../src/domain/cleanup.ts';
import { AWS_WRITE_OPERATIONS } from '../../../src/simulator/in-memory-aws.ts';
import type { Simulation } from '../../../src/simulator/simulation.ts';
import { karpenterPod } from '../../factories/kube.ts';
import { steppingClock } from '../../support/clock.ts';
import { ANSI, run, type RunOptions } from './cli-harness.ts';
import {
  CLEANED as EXPECTED,
  CLEANUP_EXAMPLE as EXAMPLE,
  CLEANUP_EXAMPLE_CLUSTER as CLUSTER,
} from '../../examples/cleanup-partial-destroy.ts';
import { closedAfterEachTest } from '../../support/simulation.ts';

/** What the progress display writes to take its status line off a terminal. */
const ERASE_LINE = '\r\u001b[2K';

const START = '2026-01-01T01:00:00Z';

const UNTOUCHED = [
  'i-02b7f4a9c6e1d8503 terminated',
  'i-08c4a7e1f3d9b2650 running',
  'i-0a8c4e2b7d1f95603 stopped',
  'i-0d9f2b6e4a1c83575 running',
  'i-0e1a7c3f9b5d26487 running',
  'i-0f00d5ba5e0b1e7a2 running', // prod-postgres-primary: only the two tags anyone can write
];

/**
 * The example with its Karpenter controller still running, but draining slower than the 5-minute
 * NodeClaim wait (PodDisruptionBudgets, long grace periods): the NodeClaims are waited for, and stay.
 */
const slowController: CliServices['startSimulation'] = (seed, options) =>
  DEFAULT_SERVICES.startSimulation(
    { ...seed, pods: [...seed.pods, karpenterPod({ name: 'karpenter-6c8d9f7b54-q2w7r', nodeName: 'ip-10-0-12-37' })] },
    { ...options, karpenter: { drainDelayMs: 10 * 60_000 } },
  );

const started = closedAfterEachTest();

/**
 * `startSimulation` that starts the example once and hands the same simulation to every run (its
 * close waits for the test's end), and one clock for all runs: a test can arm faults and run the
 * command several times on one cluster, time going on between runs as it would.
 */
function sharedSimulation(
  arm: (simulation: Simulation) => void = () => {},
  start: CliServices['startSimulation'] = DEFAULT_SERVICES.startSimulation,
) {
  let simulation: Simulation | undefined;
  const startSimulation: CliServices['startSimulation'] = async (seed, options) => {
    if (!simulation) {
      simulation = await start(seed, options);
      started.push(simulation);
      arm(simulation);
    }
    return { ...simulation, close: async () => {} };
  };
  const timer = steppingClock(START);
  return {
    services: { startSimulation, timer },
    timer,
    get simulation(): Simulation {
      if (!simulation) throw new Error('the command never started the simulation');
      return simulation;
    },
  };
}

function cleanup(args: string[], services: Partial<CliServices> = {}, options: Omit<RunOptions, 'services'> = {}) {
  return run(['cleanup', ...args], { ...options, services: { timer: steppingClock(START), ...services } });
}

const resultOf = (stdout: string) => JSON.parse(stdout) as CleanupResult;
const lastLine = (text: string) => text.trimEnd().split('\n').at(-1);

function instanceStates(simulation: Simulation): string[] {
  return [...simulation.aws.state.instances.values()].map((i) => `${i.id} ${i.state}`).sort();
}

describe('cleanup --simulate', () => {
  it('lists in a dry run what it would do and changes nothing; --apply then does exactly that', async () => {
    const shared = sharedSimulation();

    const dryRun = await cleanup(['--simulate', EXAMPLE, '-o', 'json'], shared.services);
    const changesAfterDryRun = AWS_WRITE_OPERATIONS.flatMap((operation) => shared.simulation.aws.callsTo(operation));
    const nodePoolsAfterDryRun = shared.simulation.kubeApi.store.list('nodepools').map((p) => p.name);
    const applied = await cleanup(['--simulate', EXAMPLE, '--apply', '-o', 'json'], shared.services);

    expect(dryRun.code).toBe(0);
    expect(resultOf(dryRun.stdout)).toEqual({ cluster: CLUSTER, dryRun: true, complete: true, ...EXPECTED, errors: [] });
    expect(changesAfterDryRun).toEqual([]);
    expect(nodePoolsAfterDryRun).toEqual(['ondemand-pool', 'spot-pool']);
    expect(applied.code).toBe(0);
    expect(resultOf(applied.stdout)).toEqual({ cluster: CLUSTER, dryRun: false, complete: true, ...EXPECTED, errors: [] });
    expect(instanceStates(shared.simulation)).toEqual(
      [...EXPECTED.instancesTerminated.map((id) => `${id} terminated`), ...UNTOUCHED].sort(),
    );
    expect(shared.simulation.kubeApi.store.list('nodepools')).toEqual([]);
  });

  it('reads the capture within --max-file-size: a larger file is left out, named, and the run is not complete', async () => {
    const result = await cleanup(['--simulate', EXAMPLE, '--max-file-size', '4KiB']);

    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `note: ${join(EXAMPLE, 'ec2nodeclasses.json')}: is more than 4 KiB (the limit; raise it with --max-file-size); left out`,
    );
    expect(result.stdout).toContain('NOT COMPLETE');
  });

  it('prints exactly the result object with --output json', async () => {
    const result = await cleanup(['--simulate', EXAMPLE, '--output', 'json']);

    expect(result.stdout).toBe(`${JSON.stringify(resultOf(result.stdout), null, 2)}\n`);
    expect(Object.keys(resultOf(result.stdout))).toEqual([
      'cluster',
      'dryRun',
      'complete',
      'nodePoolsDeleted',
      'instancesTerminated',
      'instancesNotProven',
      'launchTemplatesDeleted',
      'instanceProfilesDeleted',
      'errors',
    ]);
  });

  it('a second --apply run finds nothing left to do', async () => {
    const shared = sharedSimulation();

    await cleanup(['--simulate', EXAMPLE, '--apply', '-o', 'json'], shared.services);
    const second = await cleanup(['--simulate', EXAMPLE, '--apply'], shared.services);

    expect(second.code).toBe(0);
    expect(second.stdout).toContain('NodePools: none deleted\nInstances: none terminated\n');
    expect(lastLine(second.stdout)).toBe('Complete: nothing was left to clean up.');
  });

  it('says in the table what a dry run would do and the command that does it', async () => {
    const result = await cleanup(['--simulate', EXAMPLE]);

    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^cleanup of cluster platform-eks-dev \(eu-central-1\) · DRY RUN — nothing changed\n/);
    expect(result.stdout).toContain('NodePools: 2 would be deleted\n  ondemand-pool\n  spot-pool\n');
    expect(result.stdout).toContain(
      `Instances: 3 would be terminated\n${EXPECTED.instancesTerminated.map((id) => `  ${id}`).join('\n')}\n`,
    );
    expect(result.stdout).toContain(
      'Instances not proven launched by Karpenter: 1 left alone (check them by hand)\n' +
        '  i-0f00d5ba5e0b1e7a2: no aws:ec2launchtemplate:id tag: not launched from a launch template\n',
    );
    expect(result.stdout).toContain('Launch templates: 2 would be deleted\n');
    expect(result.stdout).toContain('Instance profiles: 2 would be deleted\n');
    expect(lastLine(result.stdout)).toBe(
      `Dry run: nothing was changed. To do it: karpenter-sentinel cleanup --simulate ${EXAMPLE} --apply`,
    );
  });

  it('reports one termination that fails, terminates the rest and leaves launch templates and profiles, exit 1', async () => {
    const shared = sharedSimulation((simulation) =>
      simulation.aws.faults.fail('TerminateInstances', {
        instanceId: 'i-07e3b9d1c5a2f8406',
        error: { code: 'UnauthorizedOperation', message: 'You are not authorized to perform this operation.' },
      }),
    );

    const result = await cleanup(['--simulate', EXAMPLE, '--apply', '-o', 'json'], shared.services);

    expect(result.code).toBe(1);
    const cleaned = resultOf(result.stdout);
    expect(cleaned.complete).toBe(false);
    expect(cleaned.errors).toEqual([
      { step: 'instances', resource: 'i-07e3b9d1c5a2f8406', message: expect.stringContaining('UnauthorizedOperation') },
    ]);
    expect(cleaned.instancesTerminated).toEqual(['i-04c1e8a2f6b9d3705', 'i-09a5d2f7e1c4b6308']);
    expect(shared.simulation.aws.state.instances.get('i-07e3b9d1c5a2f8406')?.state).toBe('stopped');
    expect(cleaned).toMatchObject({ launchTemplatesDeleted: [], instanceProfilesDeleted: [] });
    expect(result.stderr).toContain(
      'warning: cleanup not complete: 1 error(s), not started: launch-templates, instance-profiles; run the same command again to carry on\n',
    );
  });

  it('DescribeInstances denied: terminates nothing, deletes no launch template or profile, says both were not started and why, exit 1', async () => {
    const shared = sharedSimulation((simulation) =>
      simulation.aws.faults.fail('DescribeInstances', {
        error: { code: 'UnauthorizedOperation', message: 'You are not authorized to perform this operation.' },
        times: 'always',
      }),
    );

    const json = await cleanup(['--simulate', EXAMPLE, '--apply', '-o', 'json'], shared.services);
    const table = await cleanup(['--simulate', EXAMPLE, '--apply'], shared.services);

    expect(json.code).toBe(1);
    const cleaned = resultOf(json.stdout);
    expect(cleaned).toMatchObject({
      complete: false,
      instancesTerminated: [],
      launchTemplatesDeleted: [],
      instanceProfilesDeleted: [],
    });
    expect(cleaned.stepsNotStarted?.map((s) => s.step)).toEqual(['launch-templates', 'instance-profiles']);
    expect(cleaned.stepsNotStarted?.[0]?.reason).toMatch(
      /^instances not all known terminated: DescribeInstances .*UnauthorizedOperation/,
    );
    expect(shared.simulation.aws.calls.filter((c) => AWS_WRITE_OPERATIONS.includes(c.operation))).toEqual([]);
    expect(table.stdout).toMatch(/\nLaunch templates: not started — instances not all known terminated: DescribeInstances /);
    expect(table.stdout).toMatch(/\nInstance profiles: not started — instances not all known terminated: /);
    expect(json.stderr).toContain('not started: launch-templates, instance-profiles');
  });

  it('a NodePool delete denied by the API server: its instances stay, and so do the templates and profiles, exit 1', async () => {
    const shared = sharedSimulation((simulation) => {
      simulation.kubeApi.faults.add({ method: 'DELETE', path: '/apis/karpenter.sh/v1/nodepools/spot-pool', status: 403 });
    });

    const result = await cleanup(['--simulate', EXAMPLE, '--apply', '-o', 'json'], shared.services);

    expect(result.code).toBe(1);
    const cleaned = resultOf(result.stdout);
    expect(cleaned.complete).toBe(false);
    expect(cleaned.errors).toEqual([{ step: 'nodepools', resource: 'spot-pool', message: expect.stringContaining('403') }]);
    expect(cleaned.stepsNotStarted).toEqual([
      { step: 'instances', nodePools: ['spot-pool'], reason: expect.stringContaining('NodePool spot-pool could not be deleted') },
      {
        step: 'launch-templates',
        reason: 'instances not all known terminated: 1 instance of NodePools not deleted left running',
      },
      {
        step: 'instance-profiles',
        reason: 'instances not all known terminated: 1 instance of NodePools not deleted left running',
      },
    ]);
    // spot-pool's one running instance stays; ondemand-pool's two are terminated.
    expect(cleaned.instancesTerminated).toEqual(['i-07e3b9d1c5a2f8406', 'i-09a5d2f7e1c4b6308']);
    expect(shared.simulation.aws.state.instances.get('i-04c1e8a2f6b9d3705')?.state).toBe('running');
    expect(shared.simulation.aws.callsTo('DeleteLaunchTemplate')).toEqual([]);
  });

  it('says in the table which resource failed and to fix it and run again', async () => {
    const shared = sharedSimulation((simulation) =>
      simulation.aws.faults.fail('DeleteLaunchTemplate', { error: { code: 'UnauthorizedOperation' } }),
    );

    const result = await cleanup(['--simulate', EXAMPLE, '--apply'], shared.services);

    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/\n1 ERROR:\n {2}launch-templates lt-0\w+: .*UnauthorizedOperation/);
    expect(lastLine(result.stdout)).toBe(
      `1 error above: fix it, then run again, nothing is done twice: karpenter-sentinel cleanup --simulate ${EXAMPLE} --apply`,
    );
  });

  it('stops when the time is up, exit 1, and the next run carries on to the end', async () => {
    const shared = sharedSimulation(undefined, slowController);

    // The controller drains slower than the 5-minute NodeClaim wait, which outlasts a 1-minute run.
    const cut = await cleanup(['--simulate', EXAMPLE, '--apply', '--timeout', '1m'], shared.services);
    const statesAfterCut = instanceStates(shared.simulation);
    const resumed = await cleanup(['--simulate', EXAMPLE, '--apply', '-o', 'json'], shared.services);

    expect(cut.code).toBe(1);
    expect(cut.stdout).toMatch(/· APPLIED · NOT COMPLETE\n/);
    expect(cut.stdout).toContain('NodePools: 2 deleted — stopped here (time ran out)\n');
    expect(cut.stdout).toContain('Instances: not reached (time ran out)\n');
    expect(lastLine(cut.stdout)).toBe(
      `Time ran out: run again, nothing is done twice: karpenter-sentinel cleanup --simulate ${EXAMPLE} --apply --timeout 1m (it carries on from nodepools)`,
    );
    expect(statesAfterCut).toContain('i-04c1e8a2f6b9d3705 running');
    expect(resumed.code).toBe(0);
    expect(resultOf(resumed.stdout)).toMatchObject({
      complete: true,
      instancesTerminated: EXPECTED.instancesTerminated,
      launchTemplatesDeleted: EXPECTED.launchTemplatesDeleted,
      errors: [],
    });
    expect(shared.timer.sleeps.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(5 * 60_000);
  });

  it('gives up waiting for NodeClaims after --nodeclaim-wait', async () => {
    const shared = sharedSimulation(undefined, slowController);

    const result = await cleanup(['--simulate', EXAMPLE, '--apply', '--nodeclaim-wait', '30s', '-o', 'json'], shared.services);

    expect(result.code).toBe(0);
    expect(shared.timer.sleeps.reduce((a, b) => a + b, 0)).toBe(30_000);
  });

  it('with --nodepool, touches only that NodePool and its instances and leaves launch templates and profiles', async () => {
    const result = await cleanup(['--simulate', EXAMPLE, '--nodepool', 'spot-pool']);

    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/· only NodePools spot-pool · DRY RUN/);
    expect(result.stdout).toContain('NodePools: 1 would be deleted\n  spot-pool\n');
    expect(result.stdout).toContain('Instances: 1 would be terminated\n  i-04c1e8a2f6b9d3705\n');
    expect(result.stdout).toContain('Launch templates: left alone (--nodepool given: they serve the whole cluster)\n');
    expect(result.stdout).toContain('Instance profiles: left alone (--nodepool given: they serve the whole cluster)\n');
  });

  it('with --keep-nodepools, leaves the NodePools and goes straight to the instances', async () => {
    const shared = sharedSimulation();

    const result = await cleanup(['--simulate', EXAMPLE, '--keep-nodepools', '--apply', '-o', 'json'], shared.services);

    expect(resultOf(result.stdout)).toMatchObject({ nodePoolsDeleted: [], instancesTerminated: EXPECTED.instancesTerminated });
    expect(shared.simulation.kubeApi.store.list('nodepools').map((p) => p.name)).toEqual(['ondemand-pool', 'spot-pool']);
    expect(shared.timer.sleeps).toEqual([]);
  });
});

describe('cleanup progress', () => {
  it('in a log: a plain line per step and per change in what it waits for, no escape codes', async () => {
    const result = await cleanup(['--simulate', EXAMPLE, '--apply', '-o', 'json'], { startSimulation: slowController });

    const lines = result.stderr.split('\n').filter((l) => l !== '');
    expect(lines.every((l) => /^\[[1-4]\/4\] [a-z-]+: /.test(l))).toBe(true);
    expect(lines.map((l) => l.slice(0, l.indexOf(':')))).toEqual([
      '[1/4] nodepools',
      '[1/4] nodepools',
      '[1/4] nodepools',
      '[2/4] instances',
      '[2/4] instances',
      '[3/4] launch-templates',
      '[4/4] instance-profiles',
    ]);
    // 30 looks at the same 2 NodeClaims over 5 minutes: one line.
    expect(lines.filter((l) => l.startsWith('[1/4] nodepools: waiting for'))).toEqual([
      '[1/4] nodepools: waiting for 2 NodeClaims to go (0s of 5m)',
    ]);
    expect(result.stderr).not.toMatch(ANSI);
  });

  it('on a terminal: steps stay as lines, the wait is one line rewritten in place, erased before the result', async () => {
    const result = await cleanup(
      ['--simulate', EXAMPLE, '--apply'],
      { startSimulation: slowController },
      { isTTY: true, terminal: { noColor: true } },
    );

    expect(result.stderr).toContain('\r\u001b[2K[1/4] nodepools: waiting for 2 NodeClaims to go (1m of 5m)');
    expect(result.stderr).toContain(
      'after 5m: their instances are terminated next\n[2/4] instances: leaving 1 instance not proven launched by Karpenter: i-0f00d5ba5e0b1e7a2\n[2/4] instances: terminating 3 instances',
    );
    // Every lasting line is a step or a note; no status line is left behind among them.
    const lasting = result.stderr
      .split('\n')
      .slice(0, -1)
      .map((line) => line.split(ERASE_LINE).at(-1) ?? '');
    expect(lasting.every((line) => /^\[\d\/4\] [a-z-]+: /.test(line) && !/: waiting for .*\)$/.test(line))).toBe(true);
    // The last step ended the status line: nothing is left on it when the result prints.
    expect(result.stderr.endsWith('\n')).toBe(true);
    expect(result.stdout).toMatch(/^cleanup of cluster platform-eks-dev/);
  });

  it('without a Karpenter controller: says nothing will drain the NodeClaims and does not wait for them', async () => {
    const timer = steppingClock(START);

    const result = await cleanup(['--simulate', EXAMPLE, '--apply', '-o', 'json'], { timer });

    const lines = result.stderr.split('\n').filter((l) => l !== '');
    expect(lines.filter((l) => l.startsWith('[1/4] nodepools'))).toEqual([
      '[1/4] nodepools: deleting 2 NodePools: ondemand-pool, spot-pool',
      '[1/4] nodepools: no Karpenter controller is running (no Ready pod labelled app.kubernetes.io/name=karpenter): nothing will drain the 2 NodeClaims; their instances are terminated next',
      `[1/4] nodepools: the 2 NodeClaims stay held by the karpenter.sh/termination finalizer; once their instances are terminated, run: kubectl patch nodeclaim ondemand-pool-q8w3z --type merge -p '{"metadata":{"finalizers":null}}'; kubectl patch nodeclaim spot-pool-x7k2p --type merge -p '{"metadata":{"finalizers":null}}'`,
    ]);
    expect(result.code).toBe(0);
    expect(resultOf(result.stdout)).toMatchObject({ complete: true, instancesTerminated: EXPECTED.instancesTerminated });
    expect(timer.sleeps.reduce((a, b) => a + b, 0)).toBeLessThan(5 * 60_000);
  });
});

describe('cleanup --cluster', () => {
  const folders: string[] = [];
  afterEach(async () => {
    await Promise.all(folders.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });

  /** A kubeconfig whose current context is `admin@dev`, a renamed context for CLUSTER (get-token args). */
  async function devKubeconfig(): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'sentinel-cleanup-kubeconfig-'));
    folders.push(dir);
    const path = join(dir, 'config');
    await writeFile(
      path,
      [
        'apiVersion: v1',
        'kind: Config',
        'current-context: admin@dev',
        'clusters: [{name: dev, cluster: {server: "https://127.0.0.1:6443"}}]',
        `users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: aws, args: [eks, get-token, --cluster-name, ${CLUSTER}, --region, eu-central-1]}}}]`,
        'contexts: [{name: admin@dev, context: {cluster: dev, user: u}}]',
      ].join('\n'),
      { mode: 0o600 },
    );
    return path;
  }

  async function cleanedTargets(argv: string[]) {
    const shared = sharedSimulation();
    const targets: unknown[] = [];
    const { snapshot } = await DEFAULT_SERVICES.loadSnapshot([EXAMPLE]);
    const simulation = await shared.services.startSimulation(snapshot, { clock: shared.timer });
    const connectLive: CliServices['connectLive'] = async (target) => {
      targets.push(target);
      return simulation.connection;
    };
    const result = await cleanup(argv, { connectLive, timer: shared.timer });
    return { result, targets };
  }

  it('cleans through the live connection with the region and context given', async () => {
    const kubeconfig = await devKubeconfig();
    const { result, targets } = await cleanedTargets([
      ...['--cluster', CLUSTER, '--region', 'eu-central-1', '--context', 'admin@dev'],
      ...['--kubeconfig', kubeconfig, '--profile', 'dev-admin', '--apply', '-o', 'json'],
    ]);

    expect(targets).toEqual([
      { clusterName: CLUSTER, region: 'eu-central-1', context: 'admin@dev', kubeconfig, profile: 'dev-admin' },
    ]);
    expect(result.code).toBe(0);
    expect(resultOf(result.stdout)).toEqual({ cluster: CLUSTER, dryRun: false, complete: true, ...EXPECTED, errors: [] });
  });

  it('--kubeconfig without --context means its current context, as for scan (never dropped)', async () => {
    const kubeconfig = await devKubeconfig();
    const { result, targets } = await cleanedTargets(['--cluster', CLUSTER, '--kubeconfig', kubeconfig, '-o', 'json']);

    expect(targets).toEqual([{ clusterName: CLUSTER, region: 'eu-central-1', context: 'admin@dev', kubeconfig }]);
    expect(result.stderr).toContain(`cleaning up context "admin@dev": EKS cluster ${CLUSTER} in eu-central-1`);
  });

  it("an empty --profile is one line, as for scan, not the ambient profile's credentials", async () => {
    const { result, targets } = await cleanedTargets(['--cluster', CLUSTER, '--region', 'eu-central-1', '--profile', '']);

    expect(targets).toEqual([]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('karpenter-sentinel: --profile needs a value\n');
  });
});

describe('cleanup usage errors', () => {
  it.each([
    [
      [],
      'cleanup needs --cluster NAME (never taken from the kubectl context: cleanup deletes) or --simulate PATH... (see karpenter-sentinel help cleanup)',
    ],
    [['--simulate', 'cap', '--profile', 'p'], '--profile applies to a live cleanup only (--cluster without --simulate)'],
    [['--simulate', 'cap', '--region', 'us-east-1'], '--region applies to a live cleanup only (--cluster without --simulate)'],
    [['--simulate', 'cap', '--context', 'admin'], '--context applies to a live cleanup only (--cluster without --simulate)'],
    [['--cluster', 'a', '--cluster', 'b'], "--cluster given more than once for 'cleanup'"],
    [['--cluster', 'dev', '--timeout', 'soon'], "--timeout must be a duration such as 90s, 5m or 1h30m (got 'soon')"],
    [['--cluster', 'dev', '--timeout', '0'], "--timeout must be longer than 0 (got '0')"],
    [
      ['--cluster', 'dev', '--nodeclaim-wait', '5 min'],
      "--nodeclaim-wait must be a duration such as 90s, 5m or 1h30m (got '5 min')",
    ],
    [['--cluster', 'dev', '--output', 'markdown'], "--output must be one of table, json (got 'markdown')"],
    [['--cluster', ''], '--cluster needs a name'],
    [['--cluster', 'dev', '--nodepool', ' '], '--nodepool needs a name'],
    [
      ['--cluster', 'my cluster'],
      '--cluster "my cluster" is not an EKS cluster name (letters, digits, - and _, a letter or digit first, at most 100)',
    ],
    [
      ['--cluster', 'dev', '--nodepool', 'Spot_Pool'],
      '--nodepool "Spot_Pool" is not a NodePool name (lowercase letters, digits, - and .)',
    ],
    [['--cluster', 'dev', 'extra'], "unexpected argument 'extra' for 'cleanup'; paths go after --simulate"],
    [
      ['--simulate', 'cap', '--max-file-size', '1.5'],
      "--max-file-size must be a size such as 512MiB, 2GiB or a number of bytes (got '1.5')",
    ],
    [['--cluster', 'dev', '--max-file-size', '1GiB'], '--max-file-size applies to captured files only (--simulate)'],
  ])('%j is one line, exit 2, nothing touched', async (flags, message) => {
    const touched: string[] = [];
    const services: Partial<CliServices> = {
      connectLive: async () => {
        touched.push('connectLive');
        throw new Error('not reached');
      },
      loadSnapshot: async () => {
        touched.push('loadSnapshot');
        throw new Error('not reached');
      },
    };

    const result = await cleanup(flags, services);

    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`karpenter-sentinel: ${message}\n`);
    expect(touched).toEqual([]);
  });

  it('shows its options with --help', async () => {
    const result = await run(['help', 'cleanup']);

    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      '--nodeclaim-wait DUR         how long to wait for the NodeClaims of deleted NodePools (default 5m)',
    );
    expect(result.stdout).toContain('(default 30m)');
    expect(result.stdout).not.toContain('not available yet');
  });
});
