import { describe, expect, it } from 'vitest';
import { pricedClaim } from '../../../../src/detectors/karpenter/priced-instances.ts';
import { emptySnapshot } from '../../../../src/domain/snapshot.ts';
import { SnapshotIndex } from '../../../../src/domain/snapshot-index.ts';
import { spotTypesInPlay } from '../../../../src/domain/spot-types.ts';
import { nodeClaim } from '../../../factories/karpenter.ts';
import { node } from '../../../factories/kube.ts';

const index = new SnapshotIndex(emptySnapshot('prod'));

describe('pricedClaim', () => {
  it('leaves out a NodeClaim whose instance Karpenter is terminating when the instance was not captured', () => {
    const bare = nodeClaim({ name: 'default-a', nodeName: 'node-a' });
    const labels = { 'node.kubernetes.io/instance-type': 'm5.large', 'karpenter.sh/capacity-type': 'on-demand' };
    const claim = { ...bare, metadata: { ...bare.metadata, labels } };
    const terminating = {
      ...claim,
      status: { ...claim.status, conditions: [{ type: 'InstanceTerminating', status: 'True' }] },
    };

    expect(pricedClaim(index, claim, undefined)?.instanceType).toBe('m5.large');
    expect(pricedClaim(index, terminating, undefined)).toBeUndefined();
  });
});

describe('spotTypesInPlay', () => {
  it('reads the instance type of a Spot node that has only the beta label, as the cost does', () => {
    const beta = node({
      name: 'old',
      labels: { 'karpenter.sh/capacity-type': 'spot', 'beta.kubernetes.io/instance-type': 'c5.large' },
    });

    expect(spotTypesInPlay({ nodes: [beta], nodeClaims: [], instances: [] })).toEqual(['c5.large']);
    expect(pricedClaim(index, undefined, beta)?.instanceType).toBe('c5.large');
  });
});
