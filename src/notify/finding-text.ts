/**
 * The words of a finding alert: what is wrong, why we believe it, since when, what it costs a day
 * (docs/cost.md), and what the sentinel did about it. Markdown as the chat clients render it (`**bold**`, `` `code` ``).
 */
import type { ActionKind } from '../domain/codes.ts';
import type { Finding, Remediation, ResourceRef } from '../domain/finding.ts';
import { ageMs } from '../domain/kube-helpers.ts';
import { formatDuration } from '../domain/settings.ts';
import { shellQuote } from '../domain/shell.ts';
import { markdownText } from '../domain/markdown.ts';
import { heldReason, remediationOutcome } from '../domain/remediation-outcome.ts';
import { findingCostText } from '../domain/cost-text.ts';

/** Evidence lines quoted in an alert; the full list is in the report. */
const MAX_EVIDENCE_LINES = 5;

const ACTION_WORD: Record<ActionKind, string> = { ROLLOUT_RESTART: 'restart', TERMINATE_INSTANCE: 'termination' };

/** The variable that turns the action from a plan into a fix (src/config.ts). */
const MODE_VARIABLE: Record<ActionKind, string> = {
  ROLLOUT_RESTART: 'ROLLOUT_RESTART_MODE',
  TERMINATE_INSTANCE: 'TERMINATE_INSTANCE_MODE',
};

export function actionWord(action: ActionKind): string {
  return ACTION_WORD[action];
}

function resourceText(r: ResourceRef): string {
  if (r.id) return `${r.kind} ${r.id}`;
  return `${r.kind} ${r.namespace ? `${r.namespace}/` : ''}${r.name ?? '?'}`;
}

/** `2026-01-01T00:00:00Z (23m ago)`. */
export function sinceText(iso: string, now: Date): string {
  const age = ageMs(iso, now);
  return age === undefined || age < 0 ? iso : `${iso} (${formatDuration(age)} ago)`;
}

/** What the sentinel did, or would do, about the finding: one line. */
function remediationText(r: Remediation): string {
  const outcome = remediationOutcome(r);
  switch (outcome.kind) {
    case 'manual':
      // A MANUAL action without steps says nothing; an action the sentinel may not take points to its steps.
      return r.action === 'MANUAL' && r.steps.length === 0 ? '' : 'only a human can fix this: the next steps say how';
    case 'applied':
      return `${ACTION_WORD[outcome.action]} applied${outcome.reason ? `: ${outcome.reason}` : ''}`;
    case 'held':
      return `${ACTION_WORD[outcome.action]} ${outcome.status}: ${heldReason(outcome)}`;
    case 'planned':
      return `${ACTION_WORD[outcome.action]} planned, not applied (dry-run: set ${MODE_VARIABLE[outcome.action]}=apply to let the sentinel do it)`;
  }
}

/** Cause, resource, since, a few evidence lines and the action, one fact per line. */
export function findingFacts(f: Finding, cluster: string, now: Date): string[] {
  const lines: string[] = [];
  if (f.cause) lines.push(`**Cause:** \`${f.cause.code}\`: ${markdownText(f.cause.detail)}`);
  lines.push(`**Resource:** ${markdownText(resourceText(f.resource))}`);
  if (f.since) lines.push(`**Since:** ${markdownText(sinceText(f.since, now))}`);
  if (f.cost) lines.push(`**Cost:** ${markdownText(findingCostText(f.cost, f.remediation?.status))}`);
  if (f.evidence.length > 0) {
    lines.push('**Evidence:**');
    for (const e of f.evidence.slice(0, MAX_EVIDENCE_LINES)) lines.push(`- ${markdownText(e)}`);
    const more = f.evidence.length - MAX_EVIDENCE_LINES;
    if (more > 0)
      lines.push(`- ... and ${more} more (\`karpenter-sentinel scan --cluster ${shellQuote(cluster)}\` lists them all)`);
  }
  const action = f.remediation ? remediationText(f.remediation) : '';
  if (action) lines.push(`**Action:** ${markdownText(action)}`);
  return lines;
}

/**
 * The steps a human should run. After an applied action they are what the sentinel already did
 * (e.g. the very `kubectl rollout restart`), so none are offered: running them again would repeat it.
 */
export function stepsFor(f: Finding): string[] {
  const r = f.remediation;
  if (!r || r.status === 'applied') return [];
  return [...r.steps];
}
