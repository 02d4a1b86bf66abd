import type { Detector } from '../detector.ts';

type Code = 'INTERRUPTION_HANDLING_OFF';

/**
 * INTERRUPTION_HANDLING_OFF: Karpenter's interruption handling cannot work — its queue setting and
 * what exists in the account disagree (docs/findings.md#interruption_handling_off). Skeleton: the
 * causes follow.
 */
export const interruptionHandlingOff: Detector<Code> = {
  code: 'INTERRUPTION_HANDLING_OFF',
  requires: ['deployments'],
  refinedBy: ['configmaps', 'nodeclaims', 'nodes', 'nodepools', 'interruptionqueue', 'queuerules', 'queueage', 'logs'],
  detect() {
    return [];
  },
};
