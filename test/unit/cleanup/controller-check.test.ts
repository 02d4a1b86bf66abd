import { describe, expect, it } from 'vitest';
import { whyNothingDrains } from '../../../src/cleanup/controller-check.ts';
import { SourceError } from '../../../src/ports/errors.ts';
import { cluster } from '../../factories/aws.ts';
import { karpenterPod, pod } from '../../factories/kube.ts';
import { FakeKarpenterKube } from '../../factories/ports.ts';

const NOBODY = 'no Karpenter controller is running (no Ready pod labelled app.kubernetes.io/name=karpenter)';

describe('whyNothingDrains', () => {
  it('a Ready controller pod drains: nothing to say', async () => {
    const kube = new FakeKarpenterKube({
      pods: [
        karpenterPod({ name: 'karpenter-a', nodeName: 'n1', ready: false }),
        karpenterPod({ name: 'karpenter-b', nodeName: 'n2' }),
      ],
    });

    expect(await whyNothingDrains(kube, cluster())).toBeUndefined();
    expect(kube.podLists).toEqual([{ resource: 'pods', labelSelector: 'app.kubernetes.io/name=karpenter' }]);
  });

  it.each([
    ['no pod', []],
    ['a Running controller pod that is not Ready', [karpenterPod({ name: 'karpenter-a', nodeName: 'n1', ready: false })]],
    ['a Pending controller pod', [karpenterPod({ name: 'karpenter-a' })]],
    [
      'a Ready pod of something else',
      [pod({ name: 'coredns-1', nodeName: 'n1', labels: { 'app.kubernetes.io/name': 'coredns' } })],
    ],
  ])('%s: says why nothing drains', async (_what, pods) => {
    const kube = new FakeKarpenterKube({ pods });

    expect(await whyNothingDrains(kube, cluster())).toBe(NOBODY);
  });

  it('EKS Auto Mode: Karpenter runs outside the cluster, so no pod is asked for', async () => {
    const kube = new FakeKarpenterKube();

    expect(await whyNothingDrains(kube, cluster({ autoMode: true }))).toBeUndefined();
    expect(kube.podLists).toEqual([]);
  });

  it('a pod list that fails tells nothing: no reason, nothing thrown', async () => {
    const kube = new FakeKarpenterKube();
    kube.podListError = new SourceError('403 Forbidden: pods is forbidden: User "karpenter-sentinel-cleanup" cannot list', {
      code: '403',
    });

    expect(await whyNothingDrains(kube, cluster())).toBeUndefined();
  });
});
