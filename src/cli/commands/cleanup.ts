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
Not available yet. Until then, 'scan --from DIR' with 'aws ec2 describe-instances' output and the
NodeClaims captured reports every leftover instance as ORPHANED_INSTANCE with its exact commands.`;

export const cleanupCommand: Command = {
  name: 'cleanup',
  summary: 'destroy-time cleanup of Karpenter instances, launch templates, profiles (not available yet)',
  usage: USAGE,
  async run(args) {
    parseFlags('cleanup', args, OPTIONS, ['simulate']);
    throw new UsageError(
      "cleanup is not available yet; to list leftover instances, capture 'aws ec2 describe-instances' and NodeClaims and run: scan --from DIR (ORPHANED_INSTANCE findings carry the commands)",
    );
  },
};
