import type { ClusterSnapshot, SourceName } from '../domain/snapshot.ts';

/** The Kubernetes sources the orphan detector needs to call an instance orphaned. */
const KUBERNETES_SOURCES_OF_A_DELETED_CLUSTER: readonly SourceName[] = ['nodeclaims', 'pods', 'nodepools'];

/**
 * A cluster AWS says does not exist has no NodeClaims, pods or NodePools: nothing could be listed
 * because there is nothing. Recording them as captured (and empty, unless a capture says
 * otherwise) is what lets the orphan detector report the instances a deleted cluster left behind.
 */
export function treatDeletedClusterAsHavingNoKubernetesObjects(snapshot: ClusterSnapshot): void {
  if (snapshot.cluster?.gone !== true) return;
  for (const source of KUBERNETES_SOURCES_OF_A_DELETED_CLUSTER) snapshot.captured.add(source);
}
