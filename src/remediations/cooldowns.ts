import type { Finding } from '../domain/finding.ts';
import { toIsoSeconds } from '../domain/kube-helpers.ts';
import type { Report } from '../domain/report.ts';
import type { RemediationCooldown } from '../ports/state.ts';
import { skipped } from './plan-context.ts';

/**
 * The service's cooldown on top of the planners' own guardrails: after an applied or failed
 * remediation, the same action on the same finding waits (state table), so a restart that did not
 * help, or a termination that keeps failing, is not retried on every one-minute scan. Pure: only
 * `planned` remediations change, to `skipped` with the reason.
 */
export function holdBackCoolingDown(report: Report, cooldowns: readonly RemediationCooldown[]): Report {
  if (cooldowns.length === 0) return report;
  const byKey = new Map(cooldowns.map((c) => [cooldownKey(c.findingId, c.action), c]));
  let changed = false;
  const findings = report.findings.map((finding): Finding => {
    const r = finding.remediation;
    if (!r || r.status !== 'planned') return finding;
    const cooldown = byKey.get(cooldownKey(finding.id, r.action));
    if (!cooldown) return finding;
    changed = true;
    return {
      ...finding,
      remediation: skipped(r, `cooling down until ${cooldown.until} after the last attempt (${cooldown.lastOutcome})`),
    };
  });
  return changed ? { ...report, findings } : report;
}

/** The cooldowns a finished scan starts: one per remediation it applied or that failed. */
export function cooldownsAfter(report: Report, at: Date, cooldownMs: number): RemediationCooldown[] {
  const until = toIsoSeconds(new Date(at.getTime() + cooldownMs));
  return report.findings.flatMap((finding) => {
    const r = finding.remediation;
    if (!r || (r.status !== 'applied' && r.status !== 'failed')) return [];
    const outcome = r.status === 'applied' ? `applied at ${toIsoSeconds(at)}` : `failed at ${toIsoSeconds(at)}: ${r.reason}`;
    return [{ cluster: report.cluster, findingId: finding.id, action: r.action, until, lastOutcome: outcome }];
  });
}

function cooldownKey(findingId: string, action: string): string {
  return `${findingId}\u0000${action}`;
}
