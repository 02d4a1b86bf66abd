import type { Severity } from '../../domain/codes.ts';
import type { Remediation, ResourceRef } from '../../domain/finding.ts';

/** `Deployment karpenter/karpenter`, `Instance i-0abc`, `NodeClaim default-x2k4p`. */
export function describeResource(resource: ResourceRef): string {
  const name = resource.namespace && resource.name ? `${resource.namespace}/${resource.name}` : (resource.name ?? '');
  const id = resource.id ? (name ? ` (${resource.id})` : resource.id) : '';
  return `${resource.kind} ${name}${id}`.trimEnd();
}

/** `ROLLOUT_RESTART planned`, `manual`, `TERMINATE_INSTANCE skipped: <reason>`. */
export function describeRemediation(remediation: Remediation | null): string {
  if (!remediation) return 'none proposed';
  if (remediation.status === 'manual' || remediation.action === 'MANUAL') return 'manual';
  const head = `${remediation.action} ${remediation.status}`;
  if (remediation.status === 'planned') return `${head} (dry run: nothing was changed)`;
  return remediation.reason ? `${head}: ${remediation.reason}` : head;
}

export function summaryLine(summary: Record<Severity, number>): string {
  return `${summary.critical} critical, ${summary.warning} warning, ${summary.info} info`;
}
