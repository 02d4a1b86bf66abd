/** A live cluster the CLI scans. */
export interface LiveTarget {
  clusterName: string;
  region?: string;
  /** kubeconfig context; without it, an EKS token for the ambient AWS credentials. */
  context?: string;
}
