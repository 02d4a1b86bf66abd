import type { ParseArgsOptionsConfig } from 'node:util';
import { UsageError } from '../../domain/errors.ts';
import { parseFlags } from '../args.ts';
import type { Command } from './command.ts';

const OPTIONS = {
  cluster: { type: 'string' },
  simulate: { type: 'string', multiple: true },
  region: { type: 'string' },
  context: { type: 'string' },
  apply: { type: 'boolean' },
  output: { type: 'string', short: 'o' },
  now: { type: 'string' },
} as const satisfies ParseArgsOptionsConfig;

const USAGE = `Usage:
  karpenter-sentinel cleanup --cluster NAME | --simulate PATH... [--apply] [--output table|json]

Destroy-time cleanup: deletes NodePools, then terminates the cluster's Karpenter instances and
deletes its launch templates and instance profiles. A dry run unless --apply is given.
Not available yet. Until then, 'scan --cluster NAME --apply' terminates the cluster's orphaned
Karpenter instances (ORPHANED_INSTANCE, also once the cluster itself is gone: CLUSTER_GONE), within
the termination guardrails; launch templates and instance profiles are left.`;

export const cleanupCommand: Command = {
  name: 'cleanup',
  summary: 'destroy-time cleanup of Karpenter instances, launch templates, profiles (not available yet)',
  usage: USAGE,
  async run(args) {
    parseFlags('cleanup', args, OPTIONS, ['simulate']);
    throw new UsageError(
      'cleanup is not available yet; to terminate leftover Karpenter instances now, run: scan --cluster NAME --apply (ORPHANED_INSTANCE, also after the cluster is gone)',
    );
  },
};
