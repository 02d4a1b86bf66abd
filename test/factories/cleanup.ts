import { emptyCleanupResult, type CleanupResult } from '../../src/domain/cleanup.ts';

/** A finished apply run that found nothing to do; override what a test is about. */
export function cleanupResult(overrides: Partial<CleanupResult> = {}): CleanupResult {
  return { ...emptyCleanupResult({ clusterName: 'demo', dryRun: false }), complete: true, ...overrides };
}
