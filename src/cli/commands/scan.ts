import type { ParseArgsOptionsConfig } from 'node:util';
import { formatByteSize } from '../../domain/byte-size.ts';
import { UsageError } from '../../domain/errors.ts';
import { THRESHOLDS, type Threshold } from '../../domain/finding-catalogue.ts';
import { CLI_ACTIONS, formatDuration, minimumText, thresholdText, type DetectionSettings } from '../../domain/settings.ts';
import {
  FAIL_ON_CHOICES,
  OUTPUT_FORMATS,
  byteSizeOf,
  choiceOf,
  countOf,
  durationOf,
  instantOf,
  parseFlags,
  stringOf,
  stringsOf,
  usdOf,
  type ParsedFlags,
} from '../args.ts';
import { outputWidth, writeLines, writeNote } from '../io.ts';
import { exitCodeFor, scanCapture } from '../offline-scan.ts';
import { actionsFor, scanLiveCluster, scanSimulation } from '../cluster-scan.ts';
import type { CliContext } from '../io.ts';
import { liveFlagsOf } from '../live-flags.ts';
import { resolveLiveTarget, type ResolvedTarget } from '../live-target.ts';
import { renderReport } from '../render/index.ts';
import { incompleteWarning } from '../render/format.ts';
import { colourEnabled } from '../render/style.ts';
import { DEFAULT_MAX_FILE_BYTES } from '../../snapshot/size-limit.ts';
import type { Command } from './command.ts';
import { docReference } from '../doc-path.ts';
import { withBundledExamples } from '../bundled-examples.ts';

/** One string flag per threshold of the finding catalogue. */
const THRESHOLD_OPTIONS: Record<string, { type: 'string' }> = Object.fromEntries(
  THRESHOLDS.map((t) => [t.flag, { type: 'string' }]),
);

const OPTIONS = {
  from: { type: 'string', multiple: true },
  simulate: { type: 'string', multiple: true },
  cluster: { type: 'string' },
  region: { type: 'string' },
  context: { type: 'string' },
  kubeconfig: { type: 'string' },
  profile: { type: 'string' },
  'kube-read-limits': { type: 'string' },
  apply: { type: 'boolean' },
  now: { type: 'string' },
  output: { type: 'string', short: 'o' },
  'fail-on': { type: 'string' },
  ...THRESHOLD_OPTIONS,
  'max-terminations': { type: 'string' },
  'max-file-size': { type: 'string' },
} as const satisfies ParseArgsOptionsConfig;

/** `  --orphan-grace DUR           an unmatched instance … (default 10m, at least 5m)`: one usage line per threshold. */
function thresholdUsage(t: Threshold): string {
  const least = minimumText(t);
  const flag = `--${t.flag} ${t.unit === 'count' ? 'N' : t.unit === 'usd' ? 'USD' : 'DUR'}`;
  return `  ${flag.padEnd(27)}  ${t.help} (default ${thresholdText(t, t.default)}${least ? `, ${least}` : ''})`;
}

const USAGE = `Usage:
  karpenter-sentinel scan [--context CTX] [--apply]     live scan of the kubectl context's EKS cluster
  karpenter-sentinel scan --cluster NAME [--apply]      live scan of an EKS cluster
  karpenter-sentinel scan --from PATH... [options]      analyse captured kubectl / aws CLI output
  karpenter-sentinel scan --simulate PATH... [--apply]  the live scan against a simulated cluster seeded from captured files

Input:
  --from PATH...               files or directories (read recursively); repeat the flag or list several paths
  --cluster NAME               live: the EKS cluster to scan (default: the one the kubeconfig context names);
                               --from/--simulate: its name when no describe-cluster output is given
  --region REGION              live: AWS region (default: the context's, else AWS_REGION, then AWS_DEFAULT_REGION)
  --context NAME               live: the kubeconfig context to reach the Kubernetes API through (default: the
                               current context; with --cluster alone, an EKS token for the AWS credentials)
  --kubeconfig PATH            live: the kubeconfig file (default: KUBECONFIG, else ~/.kube/config)
  --profile NAME               live: the AWS profile for the AWS calls and the EKS token (default: the
                               context's AWS_PROFILE, else the AWS SDK's default credentials)
  --kube-read-limits LIMITS    live: raise how much one Kubernetes list or log may read, e.g. list-items=500000
                               (also KUBE_READ_LIMITS; names and defaults in ${docReference('usage.md')})
  --simulate PATH...           serve captured files as a cluster (fake Kubernetes API on 127.0.0.1, in-memory AWS)
  --apply                      carry out the planned remediations (live and simulated scans; default: dry run)
  --now ISO-8601               the time to judge ages against, e.g. 2026-01-01T00:00:00Z (default: --from and
                               --simulate: the capture's own time, see ${docReference('capture.md')}; live: now)
  --max-file-size SIZE         --from/--simulate: refuse a capture file holding more than this, unpacked (default ${formatByteSize(DEFAULT_MAX_FILE_BYTES).replace(' ', '')}; 512MiB, 2GiB, bytes)

Thresholds (durations: 90s, 5m, 1h30m, or seconds; USD: 50, 12.5):
${THRESHOLDS.map(thresholdUsage).join('\n')}
  --max-terminations N         at most N instance terminations per run (default ${CLI_ACTIONS.maxTerminationsPerRun})

Output:
  -o, --output FORMAT          table (default), json or markdown (also -ojson, -o=json, --output=json); the
                               table's prose wraps to COLUMNS, else the terminal's width, else 80 (its
                               commands never wrap)
  --fail-on SEVERITY           exit 1 when a finding is at or above: critical, warning (default), info, never

Nothing is changed without --apply. With it: the Karpenter controller is restarted (ROLLOUT_RESTART, 15m
cooldown, at most ${CLI_ACTIONS.maxRestartsPerHour} per hour) and orphaned instances tagged for the cluster and a NodePool are terminated
(TERMINATE_INSTANCE, only on complete data, re-checked just before). --apply on a simulation changes only the simulation.
Files that cannot be read (empty, a saved kubectl or aws error, over --max-file-size, not an output) are
left out with a note naming each and a gap; the scan goes on and says the data is incomplete.
A live scan says first, on stderr, which context, cluster and region it scans. -n/--namespace is not
taken: every namespace is read. As a kubectl plugin, 'kubectl sentinel' alone is 'scan'.
Exit codes: 0 nothing at or above --fail-on, 1 something is, 2 usage error or no capture file could be read.`;

/** A threshold's flag, else its default; a duration no shorter than its minimum (`--orphan-grace`, docs/guardrails.md). */
function thresholdOf(t: Threshold, value: ParsedFlags['values'][string]): number {
  if (t.unit === 'count') return countOf(t.flag, value, t.default);
  if (t.unit === 'usd') return usdOf(t.flag, value, t.default, t.range);
  const ms = durationOf(t.flag, value, t.default);
  if (t.min && ms < t.min.ms) {
    throw new UsageError(`--${t.flag} must be at least ${formatDuration(t.min.ms)}: ${t.min.why} (got '${String(value)}')`);
  }
  return ms;
}

export const scanCommand: Command = {
  name: 'scan',
  summary: 'find, explain and plan fixes for Karpenter failures',
  usage: USAGE,
  async run(args, ctx) {
    const { values } = parseFlags('scan', args, OPTIONS, { pathOptions: ['from', 'simulate'] });
    const output = choiceOf('output', values.output, OUTPUT_FORMATS, 'table');
    const failOn = choiceOf('fail-on', values['fail-on'], FAIL_ON_CHOICES, 'warning');
    // Undefined without --now: a capture, read or simulated, is judged at its own time (capture-time.ts), a live cluster at the clock's.
    const nowOption = values.now === undefined ? undefined : instantOf('now', values.now, ctx.services.clock);
    const detection = Object.fromEntries(THRESHOLDS.map((t) => [t.setting, thresholdOf(t, values[t.flag])])) as DetectionSettings;
    const maxTerminationsPerRun = countOf('max-terminations', values['max-terminations'], CLI_ACTIONS.maxTerminationsPerRun);
    const from = withBundledExamples(stringsOf(values.from), ctx);
    const simulate = withBundledExamples(stringsOf(values.simulate), ctx);
    const clusterName = stringOf(values.cluster);
    if (clusterName?.trim() === '') throw new UsageError('--cluster needs a name');
    const maxFileBytes = byteSizeOf('max-file-size', values['max-file-size']);
    checkModeFlags(from, simulate, values);
    const settings = { detection, actions: actionsFor(values.apply === true, maxTerminationsPerRun) };
    const capture = { ...(clusterName ? { clusterName } : {}), ...(maxFileBytes ? { maxFileBytes } : {}) };
    const given = nowOption ? { now: nowOption } : {};

    const report =
      from.length > 0
        ? await scanCapture(from, { ...settings, ...capture, ...given }, ctx)
        : simulate.length > 0
          ? await scanSimulation(simulate, { ...settings, ...capture, ...given }, ctx)
          : await scanLiveCluster(await liveTarget(values, ctx), { ...settings, now: nowOption ?? ctx.services.clock() }, ctx);
    const outcome = { code: exitCodeFor(report, failOn), failOn };
    const colour = colourEnabled(ctx.io.stdout, ctx.io.terminal);
    writeLines(
      ctx.io.stdout,
      renderReport(report, output, { colour, outcome, width: outputWidth(ctx.io.stdout, ctx.io.terminal) }),
    );
    // The table and Markdown say it in the report; JSON is often piped on, so say it where a human looks.
    if (output === 'json' && !report.complete) {
      writeNote(ctx, incompleteWarning(report));
    }
    return outcome.code;
  },
};

const LIVE_ONLY_FLAGS = ['region', 'context', 'kubeconfig', 'profile', 'kube-read-limits'] as const;

/** One of --from, --simulate, or live (--cluster, else the kubeconfig context); flags that make no sense for the mode chosen are errors, not ignored. */
function checkModeFlags(from: string[], simulate: string[], values: ParsedFlags['values']): void {
  if (from.length > 0 && simulate.length > 0) {
    throw new UsageError('--from and --simulate cannot be combined: --from analyses files, --simulate serves them as a cluster');
  }
  if (from.length > 0 || simulate.length > 0) {
    const mode = from.length > 0 ? '--from' : '--simulate';
    if (from.length > 0 && values.apply)
      throw new UsageError('offline captures cannot be changed; --apply needs --cluster or --simulate');
    for (const flag of LIVE_ONLY_FLAGS) {
      if (values[flag] !== undefined) throw new UsageError(`--${flag} applies to a live scan only (not with ${mode})`);
    }
    return;
  }
  if (values['max-file-size'] !== undefined)
    throw new UsageError('--max-file-size applies to captured files only (--from or --simulate)');
}

/** The live target (the kubeconfig context unless --cluster alone), announced on stderr before anything is read. */
async function liveTarget(values: ParsedFlags['values'], ctx: CliContext): Promise<ResolvedTarget> {
  const flags = { ...liveFlagsOf(values), otherwise: '--from PATH... for captured files' };
  const resolved = await resolveLiveTarget(flags);
  if (resolved.announcement) writeNote(ctx, resolved.announcement);
  return resolved;
}
