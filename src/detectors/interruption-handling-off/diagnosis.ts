import type { CauseCodeOf } from '../../domain/codes.ts';

/** What the checks of INTERRUPTION_HANDLING_OFF concluded: the finding's cause, words and steps. */
export interface Diagnosis {
  cause: CauseCodeOf<'INTERRUPTION_HANDLING_OFF'>;
  title: string;
  detail: string;
  evidence: string[];
  steps: string[];
  since?: string;
}
