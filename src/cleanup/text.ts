/** The cleanup's one-line messages: errors naming the call and the resource, progress counting things. */
import { failureText } from '../ports/failure-text.ts';
import { counted } from '../domain/words.ts';
import { oneLine } from '../domain/shape.ts';

/**
 * `DeleteLaunchTemplate lt-0abc (karpenter.k8s.aws/123) failed: UnauthorizedOperation: ...`. The
 * adapters already start their summaries with `<Operation> failed:`; that is not said twice.
 */
export function failedCall(operation: string, resource: string | undefined, error: unknown): string {
  const text = failureText(error);
  const prefix = `${operation} failed: `;
  const why = text.startsWith(prefix) ? text.slice(prefix.length) : text;
  return oneLine(`${operation}${resource === undefined ? '' : ` ${resource}`} failed: ${why}`, 400);
}

/** `a, b, c`, or the first few and how many more: progress lines stay short. */
export function namesOf(names: readonly string[], max = 5): string {
  const shown = names.slice(0, max).join(', ');
  return names.length > max ? `${shown} and ${names.length - max} more` : shown;
}

/** `deleting 2 NodePools: a, b` (apply) or `would delete ...` (dry run); `no NodePools to delete` for none. */
export function plannedLine(dryRun: boolean, verb: 'delete' | 'terminate', noun: string, names: readonly string[]): string {
  if (names.length === 0) return `no ${noun}s to ${verb}`;
  const doing = dryRun ? `would ${verb}` : `${verb.slice(0, -1)}ing`;
  return `${doing} ${counted(names.length, noun)}: ${namesOf(names)}`;
}
