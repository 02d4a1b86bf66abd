import { describe, expect, it } from 'vitest';
import { listNodeClaims, listNodePools, listPods } from '../../../src/cleanup/kube-objects.ts';
import type { JsonRecord } from '../../../src/domain/shape.ts';
import type { KubeListQuery, KubernetesReader } from '../../../src/ports/kubernetes.ts';
import { nodeClaim, nodePool } from '../../factories/karpenter.ts';
import { karpenterPod } from '../../factories/kube.ts';

/** A reader answering every list with these items, as the API sent them. */
function readerOf(items: unknown[]): KubernetesReader & { queries: KubeListQuery[] } {
  const queries: KubeListQuery[] = [];
  return {
    queries,
    list: async (query) => {
      queries.push(query);
      return structuredClone(items) as JsonRecord[];
    },
    get: async () => undefined,
    podLog: async () => '',
  };
}

describe('the cleanup’s checked lists', () => {
  it('keeps the objects of their kind’s shape, typed, in list order', async () => {
    // Prepare
    const kube = readerOf([nodePool({ name: 'a' }), nodePool({ name: 'b' })]);

    // Act
    const listed = await listNodePools(kube);

    // Assess
    expect(listed.objects.map((p) => p.metadata?.name)).toEqual(['a', 'b']);
    expect(listed.setAside).toEqual([]);
    expect(kube.queries).toEqual([{ resource: 'nodepools' }]);
  });

  it('sets aside, one line each, what is not an object, has a field of the wrong type, or has no name', async () => {
    // Prepare
    const kube = readerOf([
      null,
      'spot',
      { ...nodePool({ name: 'odd' }), spec: { limits: ['cpu'] } },
      { metadata: { name: 42 } },
      { metadata: {} },
      nodePool({ name: 'good' }),
    ]);

    // Act
    const listed = await listNodePools(kube);

    // Assess
    expect(listed.objects.map((p) => p.metadata?.name)).toEqual(['good']);
    expect(listed.setAsideNames).toEqual(['odd']);
    expect(listed.setAside).toEqual([
      'NodePool items[0] set aside: the object is null, expected an object',
      'NodePool items[1] set aside: the object is a string, expected an object',
      'NodePool odd (items[2]) set aside: spec.limits is a list, expected an object',
      'NodePool items[3] set aside: metadata.name is a number, expected a string',
      'NodePool items[4] set aside: metadata.name is missing, expected a name',
    ]);
  });

  it('a name with control characters is shown escaped, on one line', async () => {
    const listed = await listNodeClaims(readerOf([{ metadata: { name: 'a\nb' }, spec: 'x' }]));

    expect(listed.setAside).toEqual(['NodeClaim a\\nb (items[0]) set aside: spec is a string, expected an object']);
  });

  it('NodeClaims must be named; pods need not be, and are listed as asked', async () => {
    const claims = await listNodeClaims(readerOf([nodeClaim({ name: 'c1', nodePool: 'spot' }), { spec: {} }]));
    const kube = readerOf([karpenterPod({ name: 'karpenter-a', nodeName: 'n1' }), { status: { phase: 7 } }]);
    const pods = await listPods(kube, { labelSelector: 'app=karpenter' });

    expect(claims.objects).toHaveLength(1);
    expect(claims.setAside).toEqual(['NodeClaim items[1] set aside: metadata.name is missing, expected a name']);
    expect(pods.objects).toHaveLength(1);
    expect(pods.setAside).toEqual(['Pod items[1] set aside: status.phase is a number, expected a string']);
    expect(kube.queries).toEqual([{ labelSelector: 'app=karpenter', resource: 'pods' }]);
  });
});
