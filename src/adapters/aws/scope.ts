/**
 * What the EC2 queries select, as predicates: the adapter puts these into filters, the simulator's
 * in-memory AWS applies them, so both answer a query alike. No SDK here.
 */
import { CLUSTER_TAG, LAUNCH_TEMPLATE_CLUSTER_TAGS, legacyClusterTag } from '../../domain/tags.ts';

/** Kubernetes marks a resource `owned` by one cluster or `shared` between several. */
export const LEGACY_CLUSTER_TAG_VALUES = ['owned', 'shared'] as const;

/** An instance DescribeInstances returns for `clusterName`: either cluster tag (detectors judge the rest). */
export function instanceInClusterScope(tags: Readonly<Record<string, string>>, clusterName: string): boolean {
  const legacy = tags[legacyClusterTag(clusterName)];
  return tags[CLUSTER_TAG] === clusterName || (LEGACY_CLUSTER_TAG_VALUES as readonly string[]).includes(legacy ?? '');
}

/** A launch template DescribeLaunchTemplates returns for `clusterName`. */
export function launchTemplateOfCluster(tags: Readonly<Record<string, string>>, clusterName: string): boolean {
  return LAUNCH_TEMPLATE_CLUSTER_TAGS.some((key) => tags[key] === clusterName);
}
