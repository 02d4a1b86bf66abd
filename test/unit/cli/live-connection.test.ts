/**
 * A live command reads its kubeconfig and its environment once, when it resolves the target
 * (resolveLiveTarget); connectLive connects from that, reading neither again. The cluster is the
 * simulated one, reached over HTTPS through the kubeconfig as a live scan reaches EKS.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { connectLive } from '../../../src/cli/live-connection.ts';
import { resolveLiveTarget } from '../../../src/cli/live-target.ts';
import { simulateSnapshot } from '../../../src/simulator/simulation.ts';
import { snapshotOf } from '../../factories/aws.ts';
import { node } from '../../factories/kube.ts';
import { closedAfterEachTest } from '../../support/simulation.ts';

const CONTEXT = 'arn:aws:eks:eu-central-1:123456789012:cluster/prod';
const simulations = closedAfterEachTest();
let home: string;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'sentinel-live-connection-'));
  for (const name of ['KUBECONFIG', 'KUBE_READ_LIMITS', 'AWS_REGION', 'AWS_DEFAULT_REGION', 'AWS_PROFILE']) vi.stubEnv(name, '');
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await rm(home, { recursive: true, force: true });
});

/** Two nodes served as a cluster, and a kubeconfig whose current context is an EKS cluster's ARN. */
async function servedCluster(): Promise<string> {
  const simulation = await simulateSnapshot(snapshotOf({ nodes: [node({ name: 'n1' }), node({ name: 'n2' })] }, 'prod'));
  simulations.push(simulation);
  const kubeconfig = join(home, 'config');
  await writeFile(kubeconfig, simulation.kubeApi.kubeconfig({ name: CONTEXT }));
  return kubeconfig;
}

const NO_ENVIRONMENT = { region: undefined, kubeconfig: undefined };

describe('connectLive after resolveLiveTarget', () => {
  it('connects on the kubeconfig read to resolve the target: the file is not read a second time', async () => {
    const kubeconfig = await servedCluster();
    const { target, loadedKubeconfig } = await resolveLiveTarget({ kubeconfig }, NO_ENVIRONMENT);
    // Read again, this would be refused as "not a usable kubeconfig".
    await writeFile(kubeconfig, 'clusters: [this is not a kubeconfig');

    const connection = await connectLive(target, loadedKubeconfig);
    const kube = await connection.connectKube(undefined);

    expect(target).toMatchObject({ clusterName: 'prod', region: 'eu-central-1', context: CONTEXT, kubeconfig });
    expect((await kube.list({ resource: 'nodes' })).map((n) => (n.metadata as { name: string }).name)).toEqual(['n1', 'n2']);
  });

  it('takes KUBECONFIG and KUBE_READ_LIMITS as they were when the target was resolved, not as they are later', async () => {
    const kubeconfig = await servedCluster();
    const { target, loadedKubeconfig } = await resolveLiveTarget(
      {},
      { ...NO_ENVIRONMENT, kubeconfig, kubeReadLimits: 'list-items=1' },
    );
    vi.stubEnv('KUBECONFIG', join(home, 'no-such-config'));
    vi.stubEnv('KUBE_READ_LIMITS', 'list-items=100');

    const kube = await (await connectLive(target, loadedKubeconfig)).connectKube(undefined);

    expect(target).toMatchObject({ kubeconfig, readLimits: { listItems: 1 } });
    await expect(kube.list({ resource: 'nodes' })).rejects.toThrow(/more than 1 items? \(the list-items limit/);
  });

  it('refuses a bad KUBE_READ_LIMITS where it reads it, naming the variable, before the kubeconfig is read', async () => {
    const resolving = resolveLiveTarget(
      {},
      { ...NO_ENVIRONMENT, kubeconfig: join(home, 'no-such-config'), kubeReadLimits: 'lots' },
    );

    await expect(resolving).rejects.toThrow(/^KUBE_READ_LIMITS: /);
  });
});
