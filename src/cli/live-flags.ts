import { UsageError } from '../domain/errors.ts';
import { readLimitsOf, stringOf, type ParsedFlags } from './args.ts';
import type { LiveFlags } from './live-target.ts';

/** The flags of a live command (scan, snapshot) as resolveLiveTarget takes them; empty values are errors. */
export function liveFlagsOf(values: ParsedFlags['values']): LiveFlags {
  const flags: LiveFlags = {};
  for (const name of ['cluster', 'region', 'context', 'kubeconfig', 'profile'] as const) {
    const value = stringOf(values[name])?.trim();
    if (value === '') throw new UsageError(`--${name} needs a value`);
    if (value !== undefined) flags[name] = value;
  }
  const readLimits = readLimitsOf('kube-read-limits', values['kube-read-limits']);
  return readLimits ? { ...flags, readLimits } : flags;
}
