import type { KubeReadLimits } from '../domain/kube-read-limits.ts';

/** A live cluster the CLI scans. */
export interface LiveTarget {
  clusterName: string;
  region?: string;
  /** kubeconfig context; without it, an EKS token for the ambient AWS credentials. */
  context?: string;
  /** `--kube-read-limits`: over KUBE_READ_LIMITS, over the defaults. */
  readLimits?: Partial<KubeReadLimits>;
}
