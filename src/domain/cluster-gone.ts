import { ClusterNotFoundError, clusterNotFoundText } from './errors.ts';
import type { Report } from './report.ts';
import type { ClusterSnapshot } from './snapshot.ts';

/**
 * The one "cluster is gone" rule of every CLI mode (`scan --from`, `--simulate`, live): when EKS
 * answered DescribeCluster with ResourceNotFoundException there is nothing to monitor, so a scan
 * that found nothing is an error (exit 2, one line), never "no findings". Instances still tagged
 * for the cluster (a deleted cluster's orphans) are worth their report: it comes with one note
 * that the cluster itself does not exist, returned here for stderr. `region` only where it is
 * known (the live connection's), never guessed.
 */
export function goneClusterNote(
  snapshot: Pick<ClusterSnapshot, 'cluster' | 'clusterName'>,
  report: Pick<Report, 'findings'>,
  region?: string,
): string | undefined {
  if (snapshot.cluster?.gone !== true) return undefined;
  const name = snapshot.cluster.name || snapshot.clusterName;
  if (report.findings.length === 0) throw new ClusterNotFoundError(name, region);
  return clusterNotFoundText(name, region);
}
