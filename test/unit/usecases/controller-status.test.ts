import { describe, expect, it } from 'vitest';
import { controllerStatusOf } from '../../../src/usecases/controller-status.ts';
import { cluster, snapshotOf } from '../../factories/aws.ts';
import { karpenterDeployment, karpenterPod, pod } from '../../factories/kube.ts';

const AT = new Date('2026-01-01T01:00:05.250Z');

describe('controllerStatusOf', () => {
  it('available with the Deployment ready and desired replicas', () => {
    const snapshot = snapshotOf({ deployments: [karpenterDeployment({ replicas: 2, readyReplicas: 1 })] }, 'shop-prod');

    expect(controllerStatusOf(snapshot, AT)).toEqual({
      cluster: 'shop-prod',
      observedAt: '2026-01-01T01:00:05Z',
      controller: 'available',
      readyReplicas: 1,
      desiredReplicas: 2,
    });
  });

  it('unavailable when no replica is ready', () => {
    const snapshot = snapshotOf({ deployments: [karpenterDeployment({ replicas: 2, readyReplicas: 0 })], pods: [] });
    expect(controllerStatusOf(snapshot, AT)).toMatchObject({ controller: 'unavailable', readyReplicas: 0, desiredReplicas: 2 });
  });

  it('not-found when the Deployments were read and none is Karpenter', () => {
    const snapshot = snapshotOf({ deployments: [], pods: [pod({ name: 'coredns-6d8f9', namespace: 'kube-system' })] });
    expect(controllerStatusOf(snapshot, AT).controller).toBe('not-found');
  });

  it('unknown when the Deployments could not be read, whatever the pods say', () => {
    const notCaptured = snapshotOf({ pods: [] });
    const denied = snapshotOf({ deployments: [] });
    denied.captured.delete('deployments');
    denied.gaps.push({ source: 'deployments', error: '403 Forbidden: deployments.apps is forbidden' });

    expect(controllerStatusOf(notCaptured, AT)).toMatchObject({ controller: 'unknown', readyReplicas: 0, desiredReplicas: 0 });
    expect(controllerStatusOf(denied, AT).controller).toBe('unknown');
  });

  it('managed on EKS Auto Mode: AWS runs Karpenter outside the cluster', () => {
    const snapshot = snapshotOf({ cluster: cluster({ name: 'auto-eks', autoMode: true }), deployments: [] }, 'auto-eks');
    expect(controllerStatusOf(snapshot, AT).controller).toBe('managed');
  });

  it('counts controller pods when their Deployment is not among those read', () => {
    const ready = karpenterPod({ name: 'karpenter-5697769d6c-abcde', nodeName: 'ip-10-0-1-20.eu-west-1.compute.internal' });
    const pending = karpenterPod({ name: 'karpenter-5697769d6c-fghij' });
    const snapshot = snapshotOf({ deployments: [], pods: [ready, pending] });

    expect(controllerStatusOf(snapshot, AT)).toMatchObject({ controller: 'available', readyReplicas: 1, desiredReplicas: 2 });
  });
});
