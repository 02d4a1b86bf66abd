import { describe, expect, it } from 'vitest';
import {
  isFargateNode,
  profilesSelecting,
  selectorMatchesPod,
  whyNotSelected,
} from '../../../../src/detectors/scheduling/fargate.ts';
import { fargateProfile } from '../../../factories/aws.ts';
import { karpenterPod, node } from '../../../factories/kube.ts';

const controller = karpenterPod({ name: 'karpenter-5697769d6c-7lglp' });

describe('Fargate profile selection (EKS rules)', () => {
  it('matches on namespace alone', () => {
    expect(selectorMatchesPod({ namespace: 'karpenter' }, 'karpenter', {})).toBe(true);
    expect(selectorMatchesPod({ namespace: 'kube-system' }, 'karpenter', {})).toBe(false);
  });

  it('needs every selector label on the pod with the same value', () => {
    const labels = { 'app.kubernetes.io/name': 'karpenter', 'app.kubernetes.io/instance': 'karpenter' };
    expect(
      selectorMatchesPod({ namespace: 'karpenter', labels: { 'app.kubernetes.io/name': 'karpenter' } }, 'karpenter', labels),
    ).toBe(true);
    expect(
      selectorMatchesPod({ namespace: 'karpenter', labels: { 'app.kubernetes.io/name': 'other' } }, 'karpenter', labels),
    ).toBe(false);
    expect(selectorMatchesPod({ namespace: 'karpenter', labels: { team: 'infra' } }, 'karpenter', labels)).toBe(false);
  });

  it('honours the * and ? wildcards', () => {
    expect(selectorMatchesPod({ namespace: 'karp*' }, 'karpenter', {})).toBe(true);
    expect(selectorMatchesPod({ namespace: 'karpente?' }, 'karpenter', {})).toBe(true);
    expect(selectorMatchesPod({ namespace: 'kube-*' }, 'karpenter', {})).toBe(false);
  });

  it('finds profiles of any status and respects the fargate-profile pin label', () => {
    const profiles = [
      fargateProfile({ name: 'karpenter', selectors: [{ namespace: 'karpenter' }] }),
      fargateProfile({ name: 'creating', status: 'CREATING', selectors: [{ namespace: 'karpenter' }] }),
      fargateProfile({ name: 'coredns', selectors: [{ namespace: 'kube-system' }] }),
    ];
    expect(profilesSelecting(controller, profiles).map((p) => p.name)).toEqual(['karpenter', 'creating']);
    const pinned = {
      ...controller,
      metadata: {
        ...controller.metadata,
        labels: { ...controller.metadata?.labels, 'eks.amazonaws.com/fargate-profile': 'creating' },
      },
    };
    expect(profilesSelecting(pinned, profiles).map((p) => p.name)).toEqual(['creating']);
  });

  it('explains a miss selector by selector (seed: kube-system + label while Karpenter runs in karpenter)', () => {
    const qovery = fargateProfile({
      name: 'karpenter-profile',
      selectors: [{ namespace: 'kube-system', labels: { 'app.kubernetes.io/name': 'karpenter' } }],
    });
    expect(whyNotSelected(qovery, 'karpenter', controller.metadata?.labels ?? {})).toBe(
      '[namespace=kube-system, labels={app.kubernetes.io/name=karpenter}]: namespace is not karpenter',
    );
    const labelled = fargateProfile({ name: 'x', selectors: [{ namespace: 'karpenter', labels: { team: 'infra' } }] });
    expect(whyNotSelected(labelled, 'karpenter', {})).toBe('[namespace=karpenter, labels={team=infra}]: pod lacks team=infra');
  });

  it('recognises Fargate nodes', () => {
    expect(
      isFargateNode(
        node({
          name: 'fargate-ip-10-0-1-100.us-west-2.compute.internal',
          labels: { 'eks.amazonaws.com/compute-type': 'fargate' },
        }),
      ),
    ).toBe(true);
    expect(isFargateNode(node({ name: 'ip-10-0-3-50.us-west-2.compute.internal' }))).toBe(false);
  });
});
