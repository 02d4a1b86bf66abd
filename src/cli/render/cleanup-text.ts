import { CLEANUP_STEPS, type CleanupStep } from '../../domain/cleanup.ts';

/**
 * Text from AWS or Kubernetes on one line, control characters written out: only escapes we chose
 * may reach the terminal (a stray `\r` would also break the in-place status line).
 */

/** `[2/4] instances`: where the run is among the four steps, always counted out of all four. */
export function stepLabel(step: CleanupStep): string {
  return `[${CLEANUP_STEPS.indexOf(step) + 1}/${CLEANUP_STEPS.length}] ${step}`;
}
