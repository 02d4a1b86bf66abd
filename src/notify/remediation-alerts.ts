/**
 * The alert of one automated action, rendered from its outbox entry (src/ports/state.ts): recorded
 * before the action, completed with its outcome after, delivered once. Whatever the finding's
 * severity, every restart or termination the service carried out or tried is announced.
 */
import type { Alert } from '../domain/alert.ts';
import { toIsoSeconds } from '../domain/kube-helpers.ts';
import type { OutboxEntry } from '../ports/state.ts';
import { capitalised } from '../domain/words.ts';
import { actionWord, findingFacts, stepsFor } from './finding-text.ts';

/** What an entry without an outcome says: the scan stopped (crashed, timed out) between acting and recording. */
export const OUTCOME_UNKNOWN = 'outcome unknown — the scan stopped before it finished';

export function remediationAlert(entry: OutboxEntry): Alert {
  const { finding, outcome, cluster } = entry;
  const at = new Date(entry.recordedAt);
  const action = finding.remediation?.action;
  const word = action && action !== 'MANUAL' ? actionWord(action) : 'action';
  const base = { severity: finding.severity, cluster, code: finding.code, threadId: finding.id };
  if (!outcome) {
    return {
      ...base,
      event: 'remediation-unknown',
      title: `${capitalised(word)}, ${OUTCOME_UNKNOWN}: ${finding.title}`,
      description: [
        ...findingFacts({ ...finding, remediation: null }, cluster, at),
        `**Action:** ${word}, ${OUTCOME_UNKNOWN}`,
        '',
        `The scan of ${toIsoSeconds(at)} stopped after deciding to act and before recording whether it went through. The next scans see the result: the finding resolves, or it stays and the guardrails decide again. The next steps do it by hand.`,
      ].join('\n'),
      nextSteps: stepsFor(finding),
    };
  }
  const done = { ...finding, remediation: outcome };
  const applied = outcome.status === 'applied';
  const follow = !applied
    ? 'It did not go through; the next steps do it by hand.'
    : action === 'TERMINATE_INSTANCE'
      ? 'The finding resolves once EC2 reports the instance shutting down or terminated.'
      : 'The next scans tell whether it helped: the finding resolves, or the restart guardrails stop and say a human must look.';
  return {
    ...base,
    event: applied ? 'remediation-applied' : 'remediation-failed',
    title: `${capitalised(word)} ${applied ? 'applied' : 'failed'}: ${finding.title}`,
    description: [...findingFacts(done, cluster, at), '', follow].join('\n'),
    nextSteps: stepsFor(done),
  };
}
