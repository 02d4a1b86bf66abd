import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ParseArgsOptionsConfig } from 'node:util';
import { ClusterUnreadableError, InputError, UsageError } from '../../domain/errors.ts';
import { collectSnapshot, readNothingOfTheCluster } from '../../collect/collect.ts';
import { captureFiles } from '../../snapshot/write/capture-files.ts';
import { parseFlags, stringOf } from '../args.ts';
import { liveFlagsOf } from '../live-flags.ts';
import { resolveLiveTarget } from '../live-target.ts';
import { printNotices, writeLines, writeNote } from '../io.ts';
import type { Command } from './command.ts';
import { visibleLine } from '../../domain/visible.ts';
import { isSetAsideGap, type Gap } from '../../domain/snapshot.ts';
import { docReference } from '../doc-path.ts';

const OPTIONS = {
  cluster: { type: 'string' },
  out: { type: 'string' },
  region: { type: 'string' },
  context: { type: 'string' },
  kubeconfig: { type: 'string' },
  profile: { type: 'string' },
  'kube-read-limits': { type: 'string' },
} as const satisfies ParseArgsOptionsConfig;

const USAGE = `Usage:
  karpenter-sentinel snapshot --out DIR [--context CTX | --cluster NAME] [--region R]

Reads the cluster as a live scan does (read-only) and writes what it read into DIR in the format
'scan --from' reads: kubectl Lists (pods.json, nodeclaims.json, ...), AWS CLI outputs
(describe-instances.json, ...), the controller's log (karpenter.log), and SNAPSHOT.md saying what
could not be read or was set aside as malformed (gaps.json records that for 'scan --from').
Secrets are never read; env values, last-applied copies and ConfigMaps other than
kube-system/aws-auth and karpenter-global-settings are left out (SNAPSHOT.md says so). Attach DIR to a bug report, or analyse
it offline:
  karpenter-sentinel scan --from DIR

  --out DIR                    a new or empty folder (existing files are never overwritten)
  --cluster NAME               the EKS cluster (default: the one the kubeconfig context names)
  --region REGION              AWS region (default: the context's, else AWS_REGION, then AWS_DEFAULT_REGION)
  --context NAME               the kubeconfig context to reach the Kubernetes API through (default: the
                               current context; with --cluster alone, an EKS token for the AWS credentials)
  --kubeconfig PATH            the kubeconfig file (default: KUBECONFIG, else ~/.kube/config)
  --profile NAME               the AWS profile for the AWS calls and the EKS token (default: the context's
                               AWS_PROFILE, else the AWS SDK's default credentials)
  --kube-read-limits LIMITS    raise how much one Kubernetes list or log may read, e.g. list-items=500000
                               (also KUBE_READ_LIMITS; names and defaults in ${docReference('usage.md')})

Exit codes: 0 written (even with sources that could not be read: see SNAPSHOT.md), 2 usage error.`;

export const snapshotCommand: Command = {
  name: 'snapshot',
  summary: 'capture a cluster for offline analysis or a bug report',
  usage: USAGE,
  async run(args, ctx) {
    const { values } = parseFlags('snapshot', args, OPTIONS);
    const out = stringOf(values.out);
    if (!out?.trim()) throw new UsageError('snapshot needs --out DIR');
    const { target, loadedKubeconfig, announcement } = await resolveLiveTarget({ ...liveFlagsOf(values), verb: 'capturing' });
    await ensureEmptyFolder(out);
    if (announcement) writeNote(ctx, announcement);
    const { clusterName } = target;
    const connection = await ctx.services.connectLive(target, loadedKubeconfig);
    const { snapshot, notices, setAside, unreadable } = await collectSnapshot(connection, {
      clusterName,
      now: ctx.services.clock(),
    });
    printNotices(notices, ctx);
    // What AWS says is still worth a bug report when the API is out of reach; nothing at all is not.
    if (readNothingOfTheCluster(snapshot) && unreadable) throw new ClusterUnreadableError(clusterName, unreadable);
    const files = captureFiles(snapshot, ctx.services.clock(), setAside);
    for (const file of files) await writeFile(join(out, file.name), file.text, { flag: 'wx' });
    writeLines(ctx.io.stdout, `wrote ${files.length} files to ${visibleLine(out)} (${[...snapshot.captured].sort().join(', ')})`);
    const listed = (gaps: readonly Gap[]) => visibleLine(gaps.map((g) => `${g.source} (${g.error})`).join('; '));
    const unread = snapshot.gaps.filter((g) => !isSetAsideGap(g));
    const malformed = snapshot.gaps.filter(isSetAsideGap);
    if (unread.length > 0) writeNote(ctx, `warning: could not read ${listed(unread)}`);
    if (malformed.length > 0) writeNote(ctx, `warning: left out, set aside as malformed: ${listed(malformed)}`);
    return 0;
  },
};

async function ensureEmptyFolder(path: string): Promise<void> {
  try {
    await mkdir(path, { recursive: true });
    const entries = await readdir(path);
    if (entries.length > 0)
      throw new UsageError(`--out ${path} is not empty: give a new or empty folder (nothing is overwritten)`);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new InputError(path, `cannot be used as --out (${error instanceof Error ? error.message : String(error)})`, {
      cause: error,
    });
  }
}
