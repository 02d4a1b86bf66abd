import type { KubeObject, Pod } from '../../domain/kube.ts';
import type { ClusterSnapshot } from '../../domain/snapshot.ts';
import type { ControllerInfo, SnapshotIndex } from '../../domain/snapshot-index.ts';

/**
 * Can the capture say that no Karpenter controller runs? Only if it covers the cluster: every
 * EKS cluster not in Auto Mode runs pods in kube-system (CoreDNS, aws-node, kube-proxy), so pods
 * and Deployments from other namespaces only (`kubectl get pods -n shop`, not `-A`) say nothing
 * about a controller in namespace karpenter. An empty pod list is a cluster with no pods at all.
 */
export function controllerAbsenceKnown(snapshot: ClusterSnapshot, index: SnapshotIndex): boolean {
  if (index.controllers.length > 0) return true;
  if (snapshot.pods.length === 0 && snapshot.deployments.length === 0) return true;
  const inKubeSystem = (o: KubeObject) => o.metadata?.namespace === 'kube-system';
  return index.kubeSystemPods.length > 0 || snapshot.deployments.some(inKubeSystem);
}

/**
 * What the capture says of the controller's readiness, from its pods when `fromPods` (they were
 * captured and show the cluster running), else from its Deployments; undefined when it cannot say.
 * Detectors word it their own way; the facts and the order they are read in are one rule.
 */
export type ControllerReadiness =
  | { source: 'pods'; ready: boolean; pods: Pod[]; readyPods: number; scaledToZero: ControllerInfo[] }
  | { source: 'deployments'; ready: boolean; deployments: ControllerInfo[]; readyReplicas: number };

export function controllerReadiness(
  snapshot: ClusterSnapshot,
  index: SnapshotIndex,
  fromPods = snapshot.captured.has('pods'),
): ControllerReadiness | undefined {
  if (!controllerAbsenceKnown(snapshot, index)) return undefined;
  const controllers = index.controllers;
  if (fromPods) {
    const readyPods = controllers.reduce((n, c) => n + c.readyPods, 0);
    return {
      source: 'pods',
      ready: readyPods > 0,
      pods: controllers.flatMap((c) => c.pods),
      readyPods,
      scaledToZero: controllers.filter((c) => c.deployment?.spec?.replicas === 0),
    };
  }
  if (!snapshot.captured.has('deployments')) return undefined;
  const deployments = controllers.filter((c) => c.deployment);
  const readyReplicas = deployments.reduce((n, c) => n + (c.deployment?.status?.readyReplicas ?? 0), 0);
  return { source: 'deployments', ready: readyReplicas > 0, deployments, readyReplicas };
}
