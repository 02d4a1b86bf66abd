/**
 * What a finding's remediation came to, read once for both renderings of a finding: the report
 * (src/cli/render: terminal and Markdown) and the alerts (src/notify: SNS and Slack). Each says it
 * in its own words; which words is decided here (the statuses: docs/report-json.md).
 */
import type { ActionKind } from './codes.ts';
import type { Remediation } from './finding.ts';

export type RemediationOutcome =
  /** Only a human can act (a MANUAL action, or an action the sentinel may never take here). */
  | { kind: 'manual' }
  /** Dry run: the action would have run, nothing was changed. */
  | { kind: 'planned'; action: ActionKind }
  | { kind: 'applied'; action: ActionKind; reason: string }
  /** A guardrail (skipped) or an error (failed) stopped it: its steps were not run. */
  | { kind: 'held'; action: ActionKind; status: 'skipped' | 'failed'; reason: string };

export function remediationOutcome(r: Remediation): RemediationOutcome {
  if (r.action === 'MANUAL' || r.status === 'manual') return { kind: 'manual' };
  if (r.status === 'planned') return { kind: 'planned', action: r.action };
  if (r.status === 'applied') return { kind: 'applied', action: r.action, reason: r.reason };
  return { kind: 'held', action: r.action, status: r.status, reason: r.reason };
}

/** A held action's reason as both renderings print it: never blank. */
export function heldReason(outcome: Extract<RemediationOutcome, { kind: 'held' }>): string {
  return outcome.reason || 'no reason given';
}
