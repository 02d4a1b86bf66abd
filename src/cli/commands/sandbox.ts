import { existsSync } from 'node:fs';
import { isAbsolute, relative } from 'node:path';
import type { ParseArgsOptionsConfig } from 'node:util';
import { UsageError } from '../../domain/errors.ts';
import { toIsoSeconds } from '../../domain/kube-helpers.ts';
import { shellQuote, shellWords } from '../../domain/shell.ts';
import { visibleLine } from '../../domain/visible.ts';
import { instantOf, parseFlags } from '../args.ts';
import { bundledExampleFor } from '../bundled-examples.ts';
import { printNotices, writeLines } from '../io.ts';
import type { CliContext } from '../io.ts';
import { describeTimeSource } from '../render/format.ts';
import type { LoadResult } from '../../snapshot/load.ts';
import { judgeCaptureTime } from '../../snapshot/capture-time.ts';
import type { Command } from './command.ts';
import { EXAMPLES_NOW } from './demo.ts';
import { docReference } from '../doc-path.ts';

const OPTIONS = {
  now: { type: 'string' },
} as const satisfies ParseArgsOptionsConfig;

const USAGE = `Usage:
  karpenter-sentinel sandbox PATH... [--now ISO-8601]
  karpenter-sentinel sandbox EXAMPLE [--now ISO-8601]

Serves captured files (the scan --from format), or a bundled example named as in
examples/ (e.g. fargate-bootstrap-deadlock), as a Kubernetes API server on 127.0.0.1 for
kubectl, until Ctrl-C. It writes a kubeconfig of its own in a private temporary folder (your
~/.kube/config is not touched) and prints the lines to use it. kubectl get (with the columns
a cluster prints), -w, describe, logs, patch, annotate, label, delete and rollout restart work;
changes stay in the sandbox and are gone when it stops.

  --now ISO-8601               the capture's time: the sandbox clock starts there and runs on, so ages
                               read as when captured (default: ${EXAMPLES_NOW} for a bundled example,
                               else the capture's own time as scan finds it, see ${docReference('capture.md')})

Exit codes: 0 stopped with Ctrl-C (SIGINT) or SIGTERM, 2 usage error or nothing could be read.`;

export const sandboxCommand: Command = {
  name: 'sandbox',
  summary: 'serve a capture or an example as a cluster for kubectl (rehearse without a cluster)',
  usage: USAGE,
  async run(args, ctx) {
    const { values, operands } = parseFlags('sandbox', args, OPTIONS, { operands: true });
    if (operands.length === 0)
      throw new UsageError('sandbox needs a capture folder or a bundled example name (see karpenter-sentinel help sandbox)');
    const inputs = operands.map((typed) => resolveInput(typed, ctx));
    const nowOption = values.now === undefined ? undefined : instantOf('now', values.now, ctx.services.clock);
    const loaded = await ctx.services.loadSnapshot(inputs.map((i) => i.path));
    const start = startTime(nowOption, inputs, loaded, ctx);
    printNotices([...loaded.notices, ...start.notes], ctx);
    const { startSandbox } = await import('../../simulator/sandbox.ts');
    const sandbox = await startSandbox(loaded.snapshot, { capturedAt: start.time });
    try {
      const typed = inputs.map((i) => i.shown);
      writeLines(ctx.io.stdout, instructions({ ...sandbox, ...start, url: sandbox.kubeApi.url, typed }));
      await untilStopped();
    } finally {
      await sandbox.close();
    }
    writeLines(ctx.io.stderr, `karpenter-sentinel: sandbox stopped; ${sandbox.kubeconfigPath} removed`);
    return 0;
  },
};

interface StartTime {
  time: Date;
  /** Where it came from, in words. */
  source: string;
  /** The `--now` the printed scan line needs to judge at the same time; none when the scan finds it itself. */
  now: string | undefined;
  notes: string[];
}

/**
 * The sandbox clock's start: --now, else the examples' capture time for bundled examples (their
 * files hold only timestamps, up to 40 minutes before it: the demo and their expected findings
 * are at ${EXAMPLES_NOW}), else the capture's time as `scan --from` and `scan --simulate` find it.
 */
function startTime(nowOption: Date | undefined, inputs: readonly Input[], loaded: LoadResult, ctx: CliContext): StartTime {
  if (!nowOption && inputs.every((i) => i.example)) {
    return { time: new Date(EXAMPLES_NOW), source: 'when the bundled examples were captured', now: EXAMPLES_NOW, notes: [] };
  }
  const { time, timeSource } = judgeCaptureTime({
    ...(nowOption ? { nowOption } : {}),
    recorded: loaded.recordedTimes ?? [],
    snapshot: loaded.snapshot,
    wallClock: ctx.services.clock(),
  });
  // The scan finds a recorded time or timestamp itself; the wall clock will have moved on by then.
  const exact = time.toISOString().replace('.000Z', 'Z');
  const now = timeSource.source === 'now-option' || timeSource.source === 'wall-clock' ? exact : undefined;
  return { time, source: describeTimeSource(timeSource), now, notes: timeSource.notes };
}

interface Input {
  path: string;
  example: boolean;
  /** As a scan command line should name it: what was typed, or the example's folder. */
  shown: string;
}

/** A path that exists, else a bundled example of that name (as `scan --from` reads them). */
function resolveInput(typed: string, ctx: CliContext): Input {
  if (existsSync(typed)) return { path: typed, example: false, shown: typed };
  const example = bundledExampleFor(typed, ctx.services.examplesRoot);
  if (example !== undefined) return { path: example, example: true, shown: asTyped(example) };
  throw new UsageError(
    `sandbox: no file or folder '${visibleLine(typed)}', and no bundled example of that name (the names are the folders of examples/)`,
  );
}

/** A folder as a user would type it from here: relative when under the current folder. */
function asTyped(path: string): string {
  const fromHere = relative(process.cwd(), path);
  return fromHere && !fromHere.startsWith('..') && !isAbsolute(fromHere) ? fromHere : path;
}

interface Shown {
  url: string;
  kubeconfigPath: string;
  context: string;
  clusterName: string;
  typed: readonly string[];
  time: Date;
  source: string;
  now: string | undefined;
}

/** What to paste: every value that reaches the shell is quoted. */
function instructions(s: Shown): string {
  const kubeconfig = shellQuote(s.kubeconfigPath);
  const scan = shellWords(['karpenter-sentinel', 'scan', '--simulate', ...s.typed, ...(s.now ? ['--now', s.now] : [])]);
  return `Sandbox: ${visibleLine(s.typed.join(' '))} (cluster ${visibleLine(s.clusterName)}) served at ${s.url}
Context: ${s.context}
Time: ${toIsoSeconds(s.time)}, ${s.source}; the sandbox clock starts there and runs on
Kubeconfig: ${kubeconfig} (removed when the sandbox stops; ~/.kube/config is not touched)

Use it in this shell:
  export KUBECONFIG=${kubeconfig}
  kubectl get pods -A
or per command:
  kubectl --kubeconfig ${kubeconfig} get pods -A

Scan the same capture (the live code path, in a simulation of its own; changes made here are not in it):
  ${scan}

Stop with Ctrl-C.`;
}

/** Resolves at the first SIGINT or SIGTERM; the sandbox then closes its server and removes its files. */
function untilStopped(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
