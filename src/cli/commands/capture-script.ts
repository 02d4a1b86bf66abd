import type { ParseArgsOptionsConfig } from 'node:util';
import { captureScript } from '../../snapshot/capture-script.ts';
import { parseFlags, stringOf } from '../args.ts';
import { writeLines } from '../io.ts';
import type { Command } from './command.ts';

const OPTIONS = {
  cluster: { type: 'string' },
  region: { type: 'string' },
} as const satisfies ParseArgsOptionsConfig;

const USAGE = `Usage:
  karpenter-sentinel capture-script [--cluster NAME] [--region R] > capture.sh
  sh capture.sh [CLUSTER [REGION]]

Prints a POSIX sh script that first prints the kubectl context, the EKS cluster and the AWS
region it will capture, and refuses (one line, exit 2) with no region, or when the context is
another EKS cluster. Then it runs every kubectl and aws command 'scan --from' reads, each into
its own file with its errors (> file 2>&1), going on past failures: on a broken cluster the
errors are the evidence (a failed 'kubectl get nodeclaims' may name a broken conversion webhook).
Env values and annotations that copy a whole object are left out on their way to disk, as
'snapshot' leaves them out. It writes a folder karpenter-capture-CLUSTER-TIME, packs it as a
.tgz to share, and says how to scan the folder. Read-only; needs sh, awk and tar, and runs
where kubectl and the AWS CLI reach the cluster.

  --cluster NAME               the EKS cluster (default: the script's first argument, else the
                               current kubectl context's EKS cluster)
  --region REGION              its AWS region (default: the script's second argument, else the
                               context's EKS ARN, AWS_REGION, AWS_DEFAULT_REGION, then
                               aws configure get region)

Exit codes: 0 printed, 2 usage error.`;

export const captureScriptCommand: Command = {
  name: 'capture-script',
  summary: 'print a sh script that captures a cluster for scan --from, errors and all',
  usage: USAGE,
  async run(args, ctx) {
    const { values } = parseFlags('capture-script', args, OPTIONS);
    const cluster = stringOf(values.cluster);
    const region = stringOf(values.region);
    writeLines(ctx.io.stdout, captureScript({ ...(cluster ? { cluster } : {}), ...(region ? { region } : {}) }));
    return 0;
  },
};
