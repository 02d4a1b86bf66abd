import { basename } from 'node:path';

/**
 * The name a user typed, for usage and hints: kubectl runs `kubectl-sentinel` (the npm bin, or the
 * single executable, `.exe` on Windows) for `kubectl sentinel`; every other name is
 * `karpenter-sentinel`. Used by bin/karpenter-sentinel.js and src/cli/binary.ts alike.
 */
export function programName(executable: string): string {
  const name = basename(executable)
    .replace(/\.exe$/i, '')
    .replace(/\.(c|m)?js$/, '');
  return name.startsWith('kubectl-') ? `kubectl ${name.slice('kubectl-'.length).replaceAll('_', '-')}` : 'karpenter-sentinel';
}
