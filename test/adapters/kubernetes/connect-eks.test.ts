import { afterEach, describe, expect, it, vi } from 'vitest';
import { connectToEks } from '../../../src/adapters/kubernetes/connect-eks.ts';
import { presignEksToken } from '../../../src/adapters/kubernetes/eks-token.ts';
import type { KubernetesApi } from '../../../src/adapters/kubernetes/kubernetes-api.ts';
import { KubeUnreachableError } from '../../../src/ports/errors.ts';
import { startKubeApiServer } from '../../../src/simulator/kube-api-server.ts';
import type { SimulatedKubeApi } from '../../../src/simulator/kube-api-server.ts';
import { storeFromSnapshot } from '../../../src/simulator/seed.ts';
import { snapshotOf } from '../../factories/aws.ts';
import { nodePool } from '../../factories/karpenter.ts';
import { T0 } from '../../factories/kube.ts';

const CREDENTIALS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };

describe('connectToEks', () => {
  let sim: SimulatedKubeApi | undefined;
  let api: KubernetesApi | undefined;
  afterEach(async () => {
    api?.close();
    await sim?.close();
  });

  async function serverAcceptingTokenOf(clusterName: string): Promise<SimulatedKubeApi> {
    const token = await presignEksToken({
      clusterName,
      region: 'eu-west-1',
      credentials: CREDENTIALS,
      signingDate: new Date(T0),
    });
    return startKubeApiServer(storeFromSnapshot(snapshotOf({ nodePools: [nodePool({ name: 'default' })] })), { token });
  }

  function connect(server: SimulatedKubeApi, clusterName: string): KubernetesApi {
    const credentials = vi.fn(async () => CREDENTIALS);
    return connectToEks(
      {
        cluster: { name: clusterName, endpoint: server.url, certificateAuthority: Buffer.from(server.caPem).toString('base64') },
        region: 'eu-west-1',
        token: { credentials },
      },
      { clock: { now: () => new Date(T0), sleep: async () => {} } },
    );
  }

  it('reads the cluster with the DescribeCluster CA and a signed EKS token', async () => {
    sim = await serverAcceptingTokenOf('prod');
    api = connect(sim, 'prod');

    const pools = await api.list({ resource: 'nodepools' });

    expect(pools.map((p) => (p.metadata as { name: string }).name)).toEqual(['default']);
  });

  it('a token for another cluster is refused: KubeUnreachableError', async () => {
    sim = await serverAcceptingTokenOf('prod');
    api = connect(sim, 'staging');

    await expect(api.list({ resource: 'nodepools' })).rejects.toBeInstanceOf(KubeUnreachableError);
  });
});
