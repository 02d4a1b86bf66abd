import { describe, expect, it } from 'vitest';
import { collectSnapshot } from '../../../src/collect/collect.ts';
import type { ClusterConnection } from '../../../src/ports/cluster.ts';
import { SourceError } from '../../../src/ports/errors.ts';
import type { KubeListQuery } from '../../../src/ports/kubernetes.ts';
import { pod } from '../../factories/kube.ts';
import { closedAfterEachTest, simulatedDemo } from '../../support/simulation.ts';

const simulations = closedAfterEachTest();

/** Lists of these resources fail; each answers after the delay `delayOf` gives it. */
const FAILING = ['nodes', 'nodeclaims', 'deployments', 'services', 'events'];

async function gapsWhenListsFail(delayOf: (resource: string) => number): Promise<string[]> {
  const simulation = await simulatedDemo(simulations, { pods: [pod({ name: 'web', namespace: 'shop' })] });
  const connection: ClusterConnection = {
    aws: simulation.connection.aws,
    connectKube: async (info) => {
      const kube = await simulation.connection.connectKube(info);
      return {
        ...kube,
        list: async (query: KubeListQuery) => {
          if (!FAILING.includes(query.resource)) return kube.list(query);
          await new Promise((resolve) => setTimeout(resolve, delayOf(query.resource)));
          throw new SourceError(`${query.resource} is forbidden`);
        },
      };
    },
  };
  const { snapshot } = await collectSnapshot(connection, { clusterName: 'demo' });
  return snapshot.gaps.map((g) => g.source);
}

describe('collectSnapshot: the order of gaps', () => {
  it('lists the gaps in the order of the source names however the failed reads happened to end', async () => {
    const firstToLast = await gapsWhenListsFail((resource) => FAILING.indexOf(resource) * 15);
    const lastToFirst = await gapsWhenListsFail((resource) => (FAILING.length - FAILING.indexOf(resource)) * 15);

    // The interruption queue last of all: its setting is in a Deployment, which could not be read.
    expect(firstToLast).toEqual(['deployments', 'nodes', 'events', 'services', 'crds', 'nodeclaims', 'interruptionqueue']);
    expect(lastToFirst).toEqual(firstToLast);
  });
});
