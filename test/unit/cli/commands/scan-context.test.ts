/**
 * A live scan as a kubectl plugin runs it: no source flag, the kubeconfig's current context names
 * the EKS cluster and region. The Kubernetes API is read over real HTTPS through the kubeconfig
 * (client-node, as the CLI does) from the simulated cluster; only AWS is the simulation's in-memory one.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { connectWithKubeconfig } from '../../../../src/adapters/kubernetes/connect.ts';
import { EXAMPLES_NOW } from '../../../../src/cli/commands/demo.ts';
import type { CliServices } from '../../../../src/cli/io.ts';
import { connectLive as liveConnection } from '../../../../src/cli/live-connection.ts';
import type { LiveTarget } from '../../../../src/cli/live-target.ts';
import { runCli } from '../../../../src/cli/main.ts';
import type { Report } from '../../../../src/domain/report.ts';
import { SOURCE_NAMES } from '../../../../src/domain/snapshot.ts';
import { simulateSnapshot } from '../../../../src/simulator/simulation.ts';
import { loadSnapshot } from '../../../../src/snapshot/load.ts';
import { closedAfterEachTest } from '../../../support/simulation.ts';
import { run } from '../cli-harness.ts';

const HEALTHY = fileURLToPath(new URL('../../../../examples/healthy', import.meta.url));
/** What `aws eks update-kubeconfig` names the context, cluster and user of examples/healthy's cluster. */
const ARN = 'arn:aws:eks:us-east-1:069057294951:cluster/aws-2026-eks';
const simulations = closedAfterEachTest();
let home: string;

// Nothing of the machine running the tests: no ~/.kube/config, KUBECONFIG, AWS region or profile.
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'sentinel-home-'));
  vi.stubEnv('HOME', home);
  for (const name of ['KUBECONFIG', 'AWS_REGION', 'AWS_DEFAULT_REGION', 'AWS_PROFILE']) vi.stubEnv(name, '');
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await rm(home, { recursive: true, force: true });
});

/**
 * examples/healthy served as a cluster, a kubeconfig for it whose context is `contextName`, and a
 * connectLive that reaches its API through that kubeconfig as the CLI's own does.
 */
async function servedCluster(contextName: string) {
  const { snapshot } = await loadSnapshot([HEALTHY]);
  for (const source of SOURCE_NAMES) snapshot.captured.add(source);
  const simulation = await simulateSnapshot(snapshot);
  simulations.push(simulation);
  const kubeconfig = join(home, 'config');
  await writeFile(kubeconfig, simulation.kubeApi.kubeconfig({ name: contextName }));
  const targets: LiveTarget[] = [];
  const connectLive = async (target: LiveTarget) => {
    targets.push(target);
    const kube = connectWithKubeconfig({ kubeconfigPath: target.kubeconfig ?? process.env.KUBECONFIG, context: target.context });
    return { aws: simulation.connection.aws, connectKube: async () => kube };
  };
  return { simulation, kubeconfig, targets, services: { connectLive } };
}

const codes = (stdout: string) => (JSON.parse(stdout) as Report).findings.map((f) => f.code);

describe('scan with no source flag: the kubeconfig context', () => {
  it('scans the cluster the current context names, says which first, and reads it through the context', async () => {
    const { kubeconfig, targets, services } = await servedCluster(ARN);

    const result = await run(['scan', '--kubeconfig', kubeconfig, '--now', EXAMPLES_NOW, '-o=json'], { services });

    expect(result.stderr).toBe(`scanning context "${ARN}": EKS cluster aws-2026-eks (from its EKS cluster ARN) in us-east-1\n`);
    expect(targets).toEqual([{ clusterName: 'aws-2026-eks', region: 'us-east-1', context: ARN, kubeconfig }]);
    expect(result.code).toBe(0);
    expect((JSON.parse(result.stdout) as Report).complete).toBe(true);
    expect(codes(result.stdout)).toEqual([]);
  });

  it('`kubectl sentinel` with no arguments scans the current context of KUBECONFIG', async () => {
    const { kubeconfig, targets, services } = await servedCluster(ARN);
    vi.stubEnv('KUBECONFIG', kubeconfig);
    const out: string[] = [];
    const err: string[] = [];
    const io = {
      stdout: { write: (s: string) => out.push(s), isTTY: false },
      stderr: { write: (s: string) => err.push(s), isTTY: false },
      terminal: { noColor: true, forceColor: false, columns: 1000 },
    };

    const code = await runCli([], io, { ...services, clock: () => new Date(EXAMPLES_NOW) }, { program: 'kubectl sentinel' });

    expect(err.join('')).toBe(`scanning context "${ARN}": EKS cluster aws-2026-eks (from its EKS cluster ARN) in us-east-1\n`);
    expect(targets.map((t) => [t.clusterName, t.context])).toEqual([['aws-2026-eks', ARN]]);
    expect(out.join('')).toContain('aws-2026-eks');
    expect(code).toBe(0);
  });

  it('a context that names no EKS cluster is one line saying what to pass; with --cluster and --region it scans', async () => {
    const { kubeconfig, services, targets, simulation } = await servedCluster('kind-dev');

    const refused = await run(['scan', '--kubeconfig', kubeconfig], { services });
    const given = await run(
      ['scan', '--kubeconfig', kubeconfig, '--cluster', 'aws-2026-eks', '--region', 'us-east-1', '--now', EXAMPLES_NOW],
      { services },
    );

    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      `karpenter-sentinel: cannot tell which EKS cluster context "kind-dev" (server ${simulation.kubeApi.url}) is for: pass --cluster NAME (and --region REGION)\n`,
    );
    expect(given.code).toBe(0);
    expect(given.stderr).toBe('scanning context "kind-dev": EKS cluster aws-2026-eks in us-east-1\n');
    expect(targets).toEqual([{ clusterName: 'aws-2026-eks', region: 'us-east-1', context: 'kind-dev', kubeconfig }]);
  });

  it('--context picks another context of the file, and an unknown one is named with those there are', async () => {
    const { kubeconfig, services, targets } = await servedCluster(ARN);

    const chosen = await run(['scan', '--kubeconfig', kubeconfig, '--context', ARN, '--now', EXAMPLES_NOW], { services });
    const unknown = await run(['scan', '--kubeconfig', kubeconfig, '--context', 'prod'], { services });

    expect(chosen.code).toBe(0);
    expect(targets.map((t) => t.context)).toEqual([ARN]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe(`karpenter-sentinel: context "prod" not found in ${kubeconfig} (available: ${ARN})\n`);
  });

  it('--profile goes to the AWS clients and is said', async () => {
    const { kubeconfig, services, targets } = await servedCluster(ARN);

    const result = await run(['scan', '--kubeconfig', kubeconfig, '--profile', 'sso-admin', '--now', EXAMPLES_NOW], {
      services,
    });

    expect(targets[0]?.profile).toBe('sso-admin');
    expect(result.stderr).toContain('in us-east-1, AWS profile sso-admin\n');
  });

  it('without any kubeconfig, one line says what else to pass', async () => {
    const result = await run(['scan']);

    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `karpenter-sentinel: ${join(home, '.kube', 'config')}: kubeconfig not found: pass --kubeconfig PATH, or --cluster NAME (and --region REGION), or --from PATH... for captured files\n`,
    );
  });

  it('snapshot takes the context the same way, and without a kubeconfig says what to pass', async () => {
    const { kubeconfig, services, targets } = await servedCluster(ARN);
    const out = join(home, 'capture');

    const written = await run(['snapshot', '--kubeconfig', kubeconfig, '--out', out], { services });
    const refused = await run(['snapshot', '--out', join(home, 'other')]);

    expect(written.code).toBe(0);
    expect(written.stderr).toContain(`capturing context "${ARN}": EKS cluster aws-2026-eks`);
    expect(targets.map((t) => t.clusterName)).toEqual(['aws-2026-eks']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      `karpenter-sentinel: ${join(home, '.kube', 'config')}: kubeconfig not found: pass --kubeconfig PATH, or --cluster NAME (and --region REGION)\n`,
    );
  });
});

describe('a live command reads its kubeconfig once', () => {
  /**
   * The CLI's own connectLive, handed what the command resolved, after the kubeconfig file is
   * spoiled: read a second time, it would be refused as not a usable kubeconfig.
   */
  async function spoiledAfterResolving(contextName: string) {
    const { simulation, kubeconfig } = await servedCluster(contextName);
    const connectLive: CliServices['connectLive'] = async (target, loaded) => {
      await writeFile(kubeconfig, 'clusters: [this is not a kubeconfig');
      const live = await liveConnection(target, loaded);
      return { aws: simulation.connection.aws, connectKube: live.connectKube };
    };
    return { kubeconfig, services: { connectLive } };
  }

  it('scan reads the cluster through the kubeconfig it resolved the context from', async () => {
    const { kubeconfig, services } = await spoiledAfterResolving(ARN);

    const result = await run(['scan', '--kubeconfig', kubeconfig, '--now', EXAMPLES_NOW, '-o=json'], { services });

    expect(result.code).toBe(0);
    expect((JSON.parse(result.stdout) as Report).complete).toBe(true);
  });

  it('snapshot captures the nodes through the kubeconfig it resolved the context from', async () => {
    const { kubeconfig, services } = await spoiledAfterResolving(ARN);

    const result = await run(['snapshot', '--kubeconfig', kubeconfig, '--out', join(home, 'capture')], { services });

    expect(result.code).toBe(0);
    expect(result.stdout).toContain('nodes');
    expect(result.stderr).not.toContain('could not read');
  });

  it('cleanup reads the cluster through the kubeconfig it resolved the context from', async () => {
    const { kubeconfig, services } = await spoiledAfterResolving(ARN);

    const result = await run(['cleanup', '--cluster', 'aws-2026-eks', '--kubeconfig', kubeconfig, '-o', 'json'], {
      services,
    });

    expect(result.code).toBe(0);
    expect((JSON.parse(result.stdout) as { complete: boolean; errors: unknown[] }).errors).toEqual([]);
  });
});

describe('kubectl habits on the command line', () => {
  it.each([['-o=json'], ['-ojson'], ['--output=json'], ['-o', 'json']])('%j gives the JSON report', async (...flags) => {
    const result = await run(['scan', '--from', HEALTHY, '--now', EXAMPLES_NOW, ...flags]);

    expect(result.code).toBe(0);
    expect(codes(result.stdout)).toEqual([]);
  });

  it.each([
    [
      ['scna'],
      "unknown command 'scna'; did you mean scan? (commands: scan, snapshot, capture-script, cleanup, demo, sandbox, help)",
    ],
    [['scan', '--form', 'x'], "unknown option --form for 'scan'; did you mean --from? (see karpenter-sentinel help scan)"],
    [
      ['scan', '--kubeconfg', 'x'],
      "unknown option --kubeconfg for 'scan'; did you mean --kubeconfig? (see karpenter-sentinel help scan)",
    ],
    [['scan', '--bogus'], "unknown option --bogus for 'scan' (see karpenter-sentinel help scan)"],
    [
      ['scan', '-n', 'karpenter'],
      "-n does not apply to 'scan': every namespace is read (the Karpenter controller is found by its label app.kubernetes.io/name=karpenter wherever it runs)",
    ],
    [['scan', '--from', HEALTHY, '--profile', 'p'], '--profile applies to a live scan only (not with --from)'],
    [['scan', '--from', HEALTHY, '--kubeconfig', 'k'], '--kubeconfig applies to a live scan only (not with --from)'],
  ])('%j is one line', async (argv, message) => {
    const result = await run(argv);

    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`karpenter-sentinel: ${message}\n`);
  });
});
