import type { Finding, Remediation } from '../../domain/finding.ts';
import { heldReason, remediationOutcome, type RemediationOutcome } from '../../domain/remediation-outcome.ts';
import { describeResource, NOT_RUN_NOTE } from './format.ts';
import type { Style } from './style.ts';
import { NO_WRAP, wrapLine } from './wrap.ts';
import { wrapStep } from './wrap-step.ts';
import { findingCostText } from '../../domain/cost-text.ts';

/** Past this many facts a finding shows the first ones and how many more the JSON report holds. */
export const MAX_EVIDENCE_SHOWN = 8;

/**
 * One finding in full: heading, title, since, cause, evidence, then the remediation and its steps.
 * Prose wraps to `width`, each item hanging under its own indent; so do a step's prose and `# why`
 * comments, never its commands (wrap-step.ts).
 */
export function findingBlock(finding: Finding, style: Style, width: number = NO_WRAP): string[] {
  const prose = (line: string, hang: string) => wrapLine(line, width, hang);
  const lines = [
    ...prose(
      `${style.severity(finding.severity, finding.severity.toUpperCase())} ${finding.code} ${describeResource(finding.resource)}`,
      ' '.repeat(finding.severity.length + 1), // under the code
    ),
    ...prose(`  ${finding.title}`, '    '),
  ];
  if (finding.since) lines.push(`  since: ${finding.since}`);
  if (finding.cost) lines.push(...prose(`  cost: ${findingCostText(finding.cost, finding.remediation?.status)}`, '    '));
  lines.push(
    ...prose(`  cause: ${finding.cause ? `${finding.cause.code} — ${finding.cause.detail}` : 'not determined'}`, '    '),
  );
  if (finding.evidence.length > 0) {
    lines.push('  evidence:');
    // Evidence is one line a fact (visibleReport): wrapped, then dimmed line by line.
    for (const fact of shownEvidence(finding.evidence)) lines.push(...prose(`    - ${fact}`, '      ').map((l) => style.dim(l)));
  }
  lines.push(...remediationLines(finding.remediation, style, width));
  return lines;
}

/** The overview column: `manual`, `ROLLOUT_RESTART planned`, `TERMINATE_INSTANCE SKIPPED`. */
export function remediationBrief(remediation: Remediation | null, style: Style): string {
  if (!remediation) return 'none proposed';
  const outcome = remediationOutcome(remediation);
  return outcome.kind === 'manual' ? 'manual' : `${outcome.action} ${statusWord(outcome, style)}`;
}

function shownEvidence(evidence: readonly string[]): string[] {
  if (evidence.length <= MAX_EVIDENCE_SHOWN) return [...evidence];
  const shown = evidence.slice(0, MAX_EVIDENCE_SHOWN - 1);
  return [...shown, `… and ${evidence.length - shown.length} more (--output json lists them all)`];
}

/**
 * Says first whether anything ran. A skipped or failed action leads with its reason, because
 * its steps are what a guardrail held back (say, a managed node group's instance).
 */
function remediationLines(remediation: Remediation | null, style: Style, width: number): string[] {
  if (!remediation) return ['  remediation: none proposed'];
  const prose = (line: string) => wrapLine(line, width, '    ');
  const steps = remediation.steps.flatMap((step, i) => {
    const number = `    ${i + 1}. `;
    return wrapStep(step, number, ' '.repeat(number.length), width);
  });
  const stepsFollow = steps.length > 0;
  const outcome = remediationOutcome(remediation);
  if (outcome.kind === 'manual') return [`  remediation: manual${stepsFollow ? ' (do these by hand):' : ''}`, ...steps];
  const head = `  remediation: ${outcome.action} ${statusWord(outcome, style)}`;
  switch (outcome.kind) {
    case 'planned':
      return [...prose(`${head} (dry run: nothing was changed)${stepsFollow ? '; it would run:' : ''}`), ...steps];
    case 'applied':
      return [...prose(`${head}${stepsFollow ? '; it ran:' : ''}`), ...steps];
    case 'held':
      return [
        ...prose(`${head}: ${style.bold(heldReason(outcome))}`),
        ...(stepsFollow ? [...wrapLine(`    ${NOT_RUN_NOTE}:`, width, '      '), ...steps] : []),
      ];
  }
}

/** Skipped and failed in capitals and colour: the two outcomes that need a human's eye. */
function statusWord(outcome: Exclude<RemediationOutcome, { kind: 'manual' }>, style: Style): string {
  if (outcome.kind !== 'held') return outcome.kind;
  return outcome.status === 'skipped' ? style.warn('SKIPPED') : style.severity('critical', 'FAILED');
}
