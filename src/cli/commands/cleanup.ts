import type { ParseArgsOptionsConfig } from 'node:util';
import type { CleanupRequest, CleanupResult } from '../../domain/cleanup.ts';
import { isEksClusterName } from '../../domain/aws.ts';
import { UsageError } from '../../domain/errors.ts';
import { isKubeObjectName } from '../../domain/kube-helpers.ts';
import { formatByteSize } from '../../domain/byte-size.ts';
import { formatDuration } from '../../domain/settings.ts';
import { DEFAULT_MAX_FILE_BYTES } from '../../snapshot/size-limit.ts';
import { DEFAULT_NODECLAIM_WAIT_MS } from '../../usecases/cleanup.ts';
import { byteSizeOf, choiceOf, durationOf, parseFlags, type ParsedFlags, stringOf, stringsOf } from '../args.ts';
import { cleanupLiveCluster, cleanupSimulation, type CleanupRunOptions } from '../cleanup-run.ts';
import { resolveLiveTarget, type ResolvedTarget } from '../live-target.ts';
import { liveFlagsOf } from '../live-flags.ts';
import type { CliContext } from '../io.ts';
import { outputWidth, writeLines, writeNote } from '../io.ts';
import { cleanupProgressDisplay } from '../render/cleanup-progress.ts';
import { renderCleanupResult } from '../render/cleanup-result.ts';
import { ANSI_STYLE, colourEnabled, PLAIN_STYLE } from '../render/style.ts';
import type { Command } from './command.ts';
import { visibleLine } from '../../domain/visible.ts';
import { visibleJson } from '../render/json.ts';
import { docReference } from '../doc-path.ts';
import { withBundledExamples } from '../bundled-examples.ts';

const OPTIONS = {
  cluster: { type: 'string' },
  simulate: { type: 'string', multiple: true },
  region: { type: 'string' },
  context: { type: 'string' },
  kubeconfig: { type: 'string' },
  profile: { type: 'string' },
  apply: { type: 'boolean' },
  nodepool: { type: 'string', multiple: true },
  'keep-nodepools': { type: 'boolean' },
  'nodeclaim-wait': { type: 'string' },
  timeout: { type: 'string' },
  output: { type: 'string', short: 'o' },
  'max-file-size': { type: 'string' },
} as const satisfies ParseArgsOptionsConfig;

const CLEANUP_OUTPUTS = ['table', 'json'] as const;
/** The whole run's deadline unless --timeout says otherwise (the demo's cleanup uses it too). */
export const DEFAULT_CLEANUP_TIMEOUT_MS = 30 * 60_000;

const USAGE = `Usage:
  karpenter-sentinel cleanup --cluster NAME [--region R] [--context CTX] [--apply] [options]
  karpenter-sentinel cleanup --simulate PATH... [--cluster NAME] [--apply] [options]

Destroy-time cleanup: what Karpenter leaves behind when its controller goes before its nodes
(terraform destroy). In this order, each step idempotent:
  1. nodepools          delete the NodePools while the controller may still run, and wait (bounded)
                        for their NodeClaims to go (not when no controller is Ready to drain them);
                        skipped when the cluster is gone, an error when its API cannot be reached
  2. instances          terminate every instance tagged for the cluster and a NodePool (any age, any
                        state but terminated; never a managed node group's), then wait until terminated
  3. launch-templates   delete Karpenter's launch templates for the cluster (eks:eks-cluster-name or
                        the pre-1.1 karpenter.k8s.aws/cluster tag)
  4. instance-profiles  delete Karpenter's instance profiles for the cluster, removing their roles first

Input:
  --cluster NAME               live: the EKS cluster; --simulate: its name when no describe-cluster output is given
  --region REGION              live: AWS region (default: AWS_REGION, then AWS_DEFAULT_REGION)
  --context NAME               live: reach the Kubernetes API through this kubeconfig context instead of an EKS token
  --kubeconfig PATH            live: the kubeconfig file for --context (default: KUBECONFIG, else ~/.kube/config)
  --profile NAME               live: the AWS profile for the AWS calls and the EKS token
  --simulate PATH...           clean a simulated cluster seeded from captured files (fake Kubernetes API, in-memory AWS)
  --apply                      do it (default: dry run, lists what would be done and changes nothing)
  --max-file-size SIZE         --simulate: refuse a capture file holding more than this, unpacked (default ${formatByteSize(DEFAULT_MAX_FILE_BYTES).replace(' ', '')})

Options:
  --nodepool NAME              only this NodePool and its instances (repeat for several); launch templates and
                               instance profiles are then left alone, as they serve the whole cluster
  --keep-nodepools             do not delete NodePools; go straight to terminating instances
  --nodeclaim-wait DUR         how long to wait for the NodeClaims of deleted NodePools (default ${formatDuration(DEFAULT_NODECLAIM_WAIT_MS)})
  --timeout DUR                the whole run's deadline (default ${formatDuration(DEFAULT_CLEANUP_TIMEOUT_MS)}); when it passes, no new step
                               starts and running the command again carries on where it stopped
  -o, --output FORMAT          table (default) or json (the result object of ${docReference('cleanup.md')})

Progress goes to stderr: a line per step and note, and on a terminal the wait on one line rewritten in place.
--apply on a simulation changes only the simulation.
Exit codes: 0 complete without errors (dry run: the listing worked), 1 errors or time ran out (run again),
2 usage or input error.`;

export const cleanupCommand: Command = {
  name: 'cleanup',
  summary: 'destroy-time cleanup: NodePools, instances, launch templates, instance profiles',
  usage: USAGE,
  async run(args, ctx) {
    const { values } = parseFlags('cleanup', args, OPTIONS, { pathOptions: ['simulate'] });
    const output = choiceOf('output', values.output, CLEANUP_OUTPUTS, 'table');
    const nodeClaimWaitMs = durationOf('nodeclaim-wait', values['nodeclaim-wait'], DEFAULT_NODECLAIM_WAIT_MS);
    const timeoutMs = durationOf('timeout', values.timeout, DEFAULT_CLEANUP_TIMEOUT_MS);
    if (timeoutMs <= 0) throw new UsageError(`--timeout must be longer than 0 (got '${stringOf(values.timeout)}')`);
    const simulate = withBundledExamples(stringsOf(values.simulate), ctx);
    const clusterName = stringOf(values.cluster);
    if (clusterName?.trim() === '') throw new UsageError('--cluster needs a name');
    if (clusterName !== undefined && !isEksClusterName(clusterName)) {
      throw new UsageError(
        `--cluster ${JSON.stringify(clusterName)} is not an EKS cluster name (letters, digits, - and _, a letter or digit first, at most 100)`,
      );
    }
    const maxFileBytes = byteSizeOf('max-file-size', values['max-file-size']);
    checkModeFlags(simulate, values);
    const request = requestOf(values);

    const colour = colourEnabled(ctx.io.stderr, ctx.io.terminal);
    const progress = cleanupProgressDisplay(ctx.io.stderr, {
      inPlace: ctx.io.stderr.isTTY === true,
      style: colour ? ANSI_STYLE : PLAIN_STYLE,
      width: outputWidth(ctx.io.stderr, ctx.io.terminal),
    });
    const options: CleanupRunOptions = {
      request,
      deadline: new Date(ctx.services.timer.now().getTime() + timeoutMs),
      nodeClaimWaitMs,
      onProgress: (event) => progress.show(event),
    };
    const { result, region } = await (async () => {
      try {
        return simulate.length > 0
          ? await cleanupSimulation(
              simulate,
              { ...(clusterName ? { clusterName } : {}), ...(maxFileBytes ? { maxFileBytes } : {}) },
              options,
              ctx,
            )
          : await cleanupLiveCluster(await liveTarget(values, ctx), options, ctx);
      } finally {
        progress.clear();
      }
    })();

    if (output === 'json') {
      writeLines(ctx.io.stdout, visibleJson(result));
      for (const note of result.notes ?? []) writeNote(ctx, `note: ${visibleLine(note)}`);
      // JSON is often piped on: say where a human looks what the result means.
      const problem = problemOf(result);
      if (problem) writeNote(ctx, `warning: cleanup not complete: ${visibleLine(problem)}`);
    } else {
      writeLines(
        ctx.io.stdout,
        renderCleanupResult(result, {
          style: colourEnabled(ctx.io.stdout, ctx.io.terminal) ? ANSI_STYLE : PLAIN_STYLE,
          region,
          ...(request.nodePools ? { nodePools: request.nodePools } : {}),
          deleteNodePools: request.deleteNodePools,
          again: commandLine(args),
          apply: commandLine(withApply(args)),
          width: outputWidth(ctx.io.stdout, ctx.io.terminal),
        }),
      );
    }
    return result.complete ? 0 : 1;
  },
};

/** Only --cluster or --simulate (with --cluster naming the simulated cluster); live-only flags with --simulate are errors. */
function checkModeFlags(simulate: string[], values: ParsedFlags['values']): void {
  if (simulate.length > 0) {
    for (const flag of ['region', 'context', 'kubeconfig', 'profile'] as const) {
      if (values[flag] !== undefined)
        throw new UsageError(`--${flag} applies to a live cleanup only (--cluster without --simulate)`);
    }
    return;
  }
  if (values.cluster === undefined) {
    // Never the kubectl context's: cleanup deletes, so the cluster is named, not inferred (docs/usage.md).
    throw new UsageError(
      'cleanup needs --cluster NAME (never taken from the kubectl context: cleanup deletes) or --simulate PATH... (see karpenter-sentinel help cleanup)',
    );
  }
  if (values['max-file-size'] !== undefined) throw new UsageError('--max-file-size applies to captured files only (--simulate)');
}

function requestOf(values: ParsedFlags['values']): Omit<CleanupRequest, 'clusterName'> {
  const named = stringsOf(values.nodepool).map((name) => name.trim());
  if (named.some((name) => name === '')) throw new UsageError('--nodepool needs a name');
  const bad = named.find((name) => !isKubeObjectName(name));
  if (bad !== undefined) {
    throw new UsageError(`--nodepool ${JSON.stringify(bad)} is not a NodePool name (lowercase letters, digits, - and .)`);
  }
  const nodePools = [...new Set(named)].sort();
  return {
    dryRun: values.apply !== true,
    deleteNodePools: values['keep-nodepools'] !== true,
    ...(nodePools.length > 0 ? { nodePools } : {}),
  };
}

/**
 * The live target as scan resolves it (liveFlagsOf, resolveLiveTarget): --kubeconfig, --context and
 * --profile mean the same in both. The cluster is always --cluster (checkModeFlags), never inferred.
 */
async function liveTarget(values: ParsedFlags['values'], ctx: CliContext): Promise<ResolvedTarget> {
  const resolved = await resolveLiveTarget({ ...liveFlagsOf(values), verb: 'cleaning up' });
  if (resolved.announcement) writeNote(ctx, resolved.announcement);
  return resolved;
}

/** One line for a log: what is left to do, or undefined when nothing is. */
function problemOf(result: CleanupResult): string | undefined {
  const parts: string[] = [];
  if (result.stoppedAt) parts.push(`time ran out at ${result.stoppedAt}`);
  if (result.errors.length > 0) parts.push(`${result.errors.length} error(s)`);
  const notStarted = [...new Set((result.stepsNotStarted ?? []).map((s) => s.step))];
  if (notStarted.length > 0) parts.push(`not started: ${notStarted.join(', ')}`);
  if (parts.length === 0 && !result.complete) parts.push('not every step ran');
  return parts.length > 0 ? `${parts.join(', ')}; run the same command again to carry on` : undefined;
}

/** The arguments with --apply, before a `--` so it stays an option. */
function withApply(args: readonly string[]): string[] {
  const end = args.indexOf('--');
  return end === -1 ? [...args, '--apply'] : [...args.slice(0, end), '--apply', ...args.slice(end)];
}

/** The command as a user pastes it back into a POSIX shell. */
function commandLine(args: readonly string[]): string {
  return ['karpenter-sentinel', 'cleanup', ...args.map(shellWord)].join(' ');
}

function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
