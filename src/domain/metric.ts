/** CloudWatch units the service uses. */
export type MetricUnit = 'Count' | 'Seconds' | 'Milliseconds' | 'None';

/** One value of one metric; the adapter sends a whole invocation's datums in as few calls as it can. */
export interface MetricDatum {
  name: string;
  unit: MetricUnit;
  value: number;
  /** `Cluster` always for per-cluster metrics; `NodePool`, `Kind`, `Action`, `Outcome` where they apply. */
  dimensions: Record<string, string>;
}

/**
 * Metric names: the dashboard and alarms in infra/ name them too (docs/service.md, "Metrics"). The
 * metric that counts one finding code's findings is in its row of src/domain/finding-catalogue.ts.
 */
export const METRIC = {
  pendingPods: 'PendingPods',
  oldestPendingPodAge: 'OldestPendingPodAgeSeconds',
  controllerReadyReplicas: 'ControllerReadyReplicas',
  controllerRestarts: 'ControllerRestarts',
  subnetFreeAddresses: 'SubnetFreeAddresses',
  findings: 'Findings',
  remediations: 'Remediations',
  interruptionEvents: 'InterruptionEvents',
  scanDuration: 'ScanDurationMs',
  scanGaps: 'ScanGaps',
  clustersScanned: 'ClustersScanned',
  scanFailures: 'ScanFailures',
  /** A cluster EKS says does not exist (ResourceNotFoundException): scan-dispatch's CLUSTERS check and the scan. */
  clustersNotFound: 'ClustersNotFound',
  /** The report's total cost of its findings, US dollars a day (docs/cost.md); unit None: CloudWatch has no currency. */
  estimatedWaste: 'EstimatedWasteUsdPerDay',
} as const;
