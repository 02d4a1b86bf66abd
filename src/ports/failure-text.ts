/**
 * A failed port call as one line, beside the errors it reads: collect (a report's gap) and cleanup
 * (a result's error) both say it this way, and neither imports the other (docs/architecture.md).
 */
import { SourceError } from './errors.ts';
import { oneLine } from '../domain/shape.ts';

/** A failed call as the report's gap shows it: one line, the API's own words. */
export function failureText(error: unknown): string {
  if (error instanceof SourceError) return oneLine(error.summary, 300);
  if (error instanceof Error) return oneLine(`${error.name}: ${error.message}`, 300);
  return oneLine(String(error), 300);
}
