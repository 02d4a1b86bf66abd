import { toIsoSeconds } from '../domain/kube-helpers.ts';
import type { ClusterSnapshot } from '../domain/snapshot.ts';
import type { ClusterStatus } from '../ports/state.ts';
import { controllersOf } from '../domain/snapshot-index.ts';

/**
 * What a scan saw of the Karpenter controller, saved for the interruptions function (which never
 * reads Kubernetes): will anyone drain the node an interruption notice is about?
 */
export function controllerStatusOf(snapshot: ClusterSnapshot, observedAt: Date): ClusterStatus {
  const base = { cluster: snapshot.clusterName, observedAt: toIsoSeconds(observedAt) };
  // AWS runs Auto Mode's Karpenter outside the cluster: nothing to see in it, and AWS drains.
  if (snapshot.cluster?.autoMode === true) return { ...base, controller: 'managed', readyReplicas: 0, desiredReplicas: 0 };
  // Without the Deployments, "no controller" and "controller down" cannot be told apart.
  if (!snapshot.captured.has('deployments') || snapshot.gaps.some((g) => g.source === 'deployments')) {
    return { ...base, controller: 'unknown', readyReplicas: 0, desiredReplicas: 0 };
  }
  const controllers = controllersOf(snapshot);
  if (controllers.length === 0) return { ...base, controller: 'not-found', readyReplicas: 0, desiredReplicas: 0 };
  let ready = 0;
  let desired = 0;
  for (const c of controllers) {
    if (c.deployment) {
      ready += c.deployment.status?.readyReplicas ?? 0;
      desired += c.deployment.spec?.replicas ?? 1;
    } else {
      // Pods without their Deployment (a bare ReplicaSet, or a Deployment outside the capture).
      ready += c.readyPods;
      desired += c.pods.length;
    }
  }
  return { ...base, controller: ready > 0 ? 'available' : 'unavailable', readyReplicas: ready, desiredReplicas: desired };
}
