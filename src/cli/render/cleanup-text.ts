import { CLEANUP_STEPS, type CleanupStep } from '../../domain/cleanup.ts';

// C0/C1 controls except tab and newline (as format.ts): AWS and Kubernetes error messages reach the
// terminal, and only escapes we chose may (a stray `\r` would also break the in-place status line).
const CONTROL = new RegExp(String.raw`[\x00-\x08\x0b-\x1f\x7f-\x9f]`, 'g');

/** Text from AWS or Kubernetes on one line, control characters shown as `\xNN`. */
export function visible(text: string): string {
  return text.replace(/\r?\n/g, ' ').replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** `[2/4] instances`: where the run is among the four steps, always counted out of all four. */
export function stepLabel(step: CleanupStep): string {
  return `[${CLEANUP_STEPS.indexOf(step) + 1}/${CLEANUP_STEPS.length}] ${step}`;
}
