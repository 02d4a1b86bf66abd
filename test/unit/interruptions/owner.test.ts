import { describe, expect, it } from 'vitest';
import { karpenterOwner, resolveEvent } from '../../../src/interruptions/owner.ts';
import { instance } from '../../factories/aws.ts';

describe('karpenterOwner', () => {
  it('reads the cluster from eks:eks-cluster-name and the NodePool from karpenter.sh/nodepool', () => {
    expect(karpenterOwner(instance({ id: 'i-0c5e8f1a2b3d4e5f6', cluster: 'prod-eu', nodePool: 'spot-general' }))).toEqual({
      cluster: 'prod-eu',
      nodePool: 'spot-general',
    });
  });

  it('reads the pre-1.0 kubernetes.io/cluster/<name>=owned tag', () => {
    const legacy = instance({ id: 'i-05a7c9e1b3d5f7092', cluster: null, tags: { 'kubernetes.io/cluster/staging': 'owned' } });

    expect(karpenterOwner(legacy)).toEqual({ cluster: 'staging', nodePool: 'default' });
  });

  it('prefers eks:eks-cluster-name over a legacy tag naming another cluster', () => {
    const both = instance({ id: 'i-05a7c9e1b3d5f7092', cluster: 'prod-eu', tags: { 'kubernetes.io/cluster/old': 'owned' } });

    expect(karpenterOwner(both)?.cluster).toBe('prod-eu');
  });

  it.each([
    ['not found', undefined],
    ['a shared legacy tag', instance({ id: 'i-1', cluster: null, tags: { 'kubernetes.io/cluster/staging': 'shared' } })],
    ['no NodePool tag', instance({ id: 'i-1', cluster: 'prod-eu', nodePool: null })],
    ['no cluster tag', instance({ id: 'i-1', cluster: null })],
    ['a managed node group', instance({ id: 'i-1', cluster: 'prod-eu', nodeGroup: 'system' })],
    [
      'an Auto Scaling group',
      instance({ id: 'i-1', cluster: 'prod-eu', tags: { 'aws:autoscaling:groupName': 'legacy-workers' } }),
    ],
  ])('is nobody for an instance with %s', (_, subject) => {
    expect(karpenterOwner(subject)).toBeUndefined();
  });
});

describe('resolveEvent', () => {
  const event = {
    kind: 'SpotInterruption' as const,
    eventId: 'e1',
    instanceId: 'i-0c5e8f1a2b3d4e5f6',
    time: '2027-06-01T12:00:03Z',
    region: 'eu-west-1',
  };

  it('counts an instance DescribeInstances did not return under none/none, not Karpenter', () => {
    expect(resolveEvent(event, new Map())).toEqual({ ...event, cluster: 'none', nodePool: 'none', karpenter: false });
  });

  it('carries the instance and its owner', () => {
    const found = instance({ id: 'i-0c5e8f1a2b3d4e5f6', cluster: 'prod-eu', nodePool: 'spot-general' });

    expect(resolveEvent(event, new Map([[found.id, found]]))).toEqual({
      ...event,
      cluster: 'prod-eu',
      nodePool: 'spot-general',
      karpenter: true,
      instance: found,
    });
  });
});
