import type { KubeObject } from '../../domain/kube.ts';
import type { ClusterSnapshot } from '../../domain/snapshot.ts';
import type { SnapshotIndex } from '../../domain/snapshot-index.ts';

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
  return snapshot.pods.some(inKubeSystem) || snapshot.deployments.some(inKubeSystem);
}
