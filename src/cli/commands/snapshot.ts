import type { ParseArgsOptionsConfig } from 'node:util';
import { UsageError } from '../../domain/errors.ts';
import { parseFlags } from '../args.ts';
import type { Command } from './command.ts';

const OPTIONS = {
  cluster: { type: 'string' },
  out: { type: 'string' },
  region: { type: 'string' },
  context: { type: 'string' },
} as const satisfies ParseArgsOptionsConfig;

const USAGE = `Usage:
  karpenter-sentinel snapshot --cluster NAME --out DIR [--region R] [--context CTX]

Writes a capture of the cluster (never Secrets) in the format 'scan --from' reads.
Not available yet: live collection is not built. Until then save the kubectl / aws CLI output
listed under "What to capture" in the README into a folder and run:
  karpenter-sentinel scan --from DIR --cluster NAME`;

export const snapshotCommand: Command = {
  name: 'snapshot',
  summary: 'capture a cluster for offline analysis (not available yet)',
  usage: USAGE,
  async run(args) {
    parseFlags('snapshot', args, OPTIONS);
    throw new UsageError(
      'snapshot is not available yet (live collection is not built); capture with kubectl get ... -o json and aws ... > files, then run: scan --from DIR (see karpenter-sentinel help snapshot)',
    );
  },
};
