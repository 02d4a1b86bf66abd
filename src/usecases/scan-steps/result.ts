/**
 * The scan's one log line and its metrics: what it came to. A cluster EKS does not know or one the
 * scan could not read measures nothing (its empty snapshot would read as "0 pending pods").
 */
import { clusterNotFoundText } from '../../domain/errors.ts';
import { METRIC, type MetricDatum } from '../../domain/metric.ts';
import { notFoundMetrics, scanMetrics } from '../../notify/scan-metrics.ts';
import type { ClusterScan, RecordResult } from './context.ts';
import type { CollectedScan } from './collect-and-act.ts';

export function scanResult(
  { cluster, now, log }: ClusterScan,
  { scan, durationMs, notFound }: CollectedScan,
  sent: { alerts: number; announced: number },
): RecordResult {
  const { report, snapshot, unreadable } = scan;
  const outcomes = report.findings.flatMap((f) => (f.remediation && f.remediation.action !== 'MANUAL' ? [f.remediation] : []));
  const fields = {
    complete: report.complete,
    findings: report.findings.length,
    applied: outcomes.filter((r) => r.status === 'applied').length,
    failedRemediations: outcomes.filter((r) => r.status === 'failed').length,
    alerts: sent.alerts,
    announced: sent.announced,
    durationMs,
  };
  // WARN, not INFO: a blind scan must show under POWERTOOLS_LOG_LEVEL=WARN and in the query of docs/service.md.
  if (notFound) {
    log.warn('cluster not found', {
      notFound: clusterNotFoundText(cluster, notFound.region),
      region: notFound.region,
      ...fields,
    });
    // Its "0 pending pods" would be no reading at all: no Kubernetes gauge, and not a cluster scanned.
    return { outcome: 'not-found', datums: notFoundMetrics({ cluster, snapshot, report }) };
  }
  if (unreadable !== undefined) {
    log.warn('cluster unreadable', { unreadable, ...fields });
    // An unreadable cluster's empty snapshot would read as "0 pending pods": only the failure counts.
    return { outcome: 'unreadable', datums: scanFailure(cluster) };
  }
  log.info('cluster scanned', fields);
  return { outcome: 'scanned', datums: scanMetrics({ cluster, snapshot, report, durationMs, now }) };
}

/** Per cluster for the dashboard, and account-wide for the alarm (alarms cannot SEARCH across clusters). */
export function scanFailure(cluster: string): MetricDatum[] {
  return [
    { name: METRIC.scanFailures, unit: 'Count', value: 1, dimensions: { Cluster: cluster } },
    { name: METRIC.scanFailures, unit: 'Count', value: 1, dimensions: {} },
  ];
}
