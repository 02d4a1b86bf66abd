import { readdir, readFile } from 'node:fs/promises';
import { isAbsolute, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ParseArgsOptionsConfig } from 'node:util';
import { InputError } from '../../domain/errors.ts';
import { CLI_ACTIONS, DEFAULT_DETECTION } from '../../domain/settings.ts';
import { instantOf, parseFlags, stringOf } from '../args.ts';
import { outputWidth, writeLines } from '../io.ts';
import { actionsFor, scanSimulation } from '../cluster-scan.ts';
import { cleanupSimulation } from '../cleanup-run.ts';
import { cleanupProgressDisplay } from '../render/cleanup-progress.ts';
import { renderCleanupResult } from '../render/cleanup-result.ts';
import { DEFAULT_NODECLAIM_WAIT_MS } from '../../usecases/cleanup.ts';
import type { CliContext } from '../io.ts';
import type { Style } from '../render/style.ts';
import { DemoTally, narrate } from '../render/narrate.ts';
import { renderTable } from '../render/table.ts';
import { ANSI_STYLE, colourEnabled, PLAIN_STYLE } from '../render/style.ts';
import { oneLine } from '../errors.ts';
import { DEFAULT_CLEANUP_TIMEOUT_MS } from './cleanup.ts';
import type { Command } from './command.ts';
import { visibleLine } from '../../domain/visible.ts';
import { wrapLine } from '../render/wrap.ts';

/**
 * The bundled captures are frozen in time: every timestamp in examples/ is set relative to this
 * instant, so the demo judges ages against it unless --now says otherwise.
 */
export const EXAMPLES_NOW = '2026-01-01T01:00:00Z';

/**
 * The demo's first act, the failure karpenter-sentinel exists for: the Karpenter controller stuck
 * Pending on Fargate (nothing can start nodes, so nothing can run it), found and fixed by a restart.
 */
export const HEADLINE_EXAMPLE = 'fargate-bootstrap-deadlock';

/** The example the demo also cleans up after, as `cleanup --simulate ... --apply` would before a VPC's deletion. */
const CLEANUP_DEMO_EXAMPLE = 'cleanup-partial-destroy';

const OPTIONS = {
  now: { type: 'string' },
} as const satisfies ParseArgsOptionsConfig;

const USAGE = `Usage:
  karpenter-sentinel demo [--now ISO-8601]

Serves each bundled example under examples/ (captured kubectl / aws CLI output of a real failure)
as a simulated cluster (a Kubernetes API on 127.0.0.1 and in-memory AWS), scans it with --apply
and tells what was found, why, and what was fixed, starting with ${HEADLINE_EXAMPLE} (the
controller deadlocked on Fargate, fixed by a restart). No cloud account needed; only the
simulation changes. Prose fits the terminal (COLUMNS, else its width, else 80 columns); commands
are never wrapped. Each example can be rerun on its own with:
  karpenter-sentinel scan --simulate examples/NAME --apply     (or offline: scan --from examples/NAME)

  --now ISO-8601               the time to judge ages against (default: ${EXAMPLES_NOW}, when the examples were captured)

Then it cleans up after the partial terraform destroy of examples/${CLEANUP_DEMO_EXAMPLE}, as
  karpenter-sentinel cleanup --simulate examples/${CLEANUP_DEMO_EXAMPLE} --apply
would: NodePools, instances, launch templates and instance profiles Karpenter left behind.

Exit codes: 0 every example was read (findings are expected), 2 an example could not be read or
cleaned up.`;

export const demoCommand: Command = {
  name: 'demo',
  summary: 'run the bundled example failures, no cloud account needed',
  usage: USAGE,
  async run(args, ctx) {
    const { values } = parseFlags('demo', args, OPTIONS);
    // The examples' own instant, never the wall clock: their ages are frozen relative to it.
    const now = instantOf('now', values.now, () => new Date(EXAMPLES_NOW));
    const shownNow = stringOf(values.now) ?? EXAMPLES_NOW;
    const root = ctx.services.examplesRoot;
    const examples = await listExamples(root);
    const style = colourEnabled(ctx.io.stdout, ctx.io.terminal) ? ANSI_STYLE : PLAIN_STYLE;
    const width = outputWidth(ctx.io.stdout, ctx.io.terminal);
    let failed = 0;
    const tally = new DemoTally();
    for (const [i, name] of examples.entries()) {
      const folder = new URL(`${encodeURIComponent(name)}/`, root);
      const readme = await readText(new URL('README.md', folder));
      const description = firstLine(readme);
      const lines = [`${i > 0 ? '\n' : ''}${style.bold(`=== example ${i + 1}/${examples.length}: ${name} ===`)}`];
      if (description) lines.push(...wrapLine(description, width, ''));
      // The command is never wrapped: it is there to be pasted.
      lines.push(style.dim(`$ karpenter-sentinel scan --simulate examples/${name} --apply --now ${shownNow}`));
      writeLines(ctx.io.stdout, `${lines.join('\n')}\n\n`);
      try {
        const report = await scanSimulation(
          [asTyped(fileURLToPath(folder))],
          { detection: DEFAULT_DETECTION, actions: actionsFor(true, CLI_ACTIONS.maxTerminationsPerRun), now },
          ctx,
        );
        writeLines(ctx.io.stdout, renderTable(report, { style, width }));
        writeLines(ctx.io.stdout, narrate(report, style, width));
        tally.add(report);
      } catch (err) {
        failed += 1;
        writeLines(ctx.io.stderr, `karpenter-sentinel: example ${name}: ${visibleLine(oneLine(err))}`);
      }
    }
    const cleaned = examples.includes(CLEANUP_DEMO_EXAMPLE) ? await demoCleanup(root, style, width, ctx) : undefined;
    const summary = tally.lines(examples.length - failed, width);
    if (cleaned) summary.push(...wrapLine(cleaned, width, '  '));
    writeLines(ctx.io.stdout, `\n${style.bold('=== summary ===')}\n${summary.join('\n')}`);
    return failed > 0 || cleaned === false ? 2 : 0;
  },
};

/** The cleanup act of the demo: its summary line, or false when it could not run (said on stderr). */
async function demoCleanup(root: URL, style: Style, width: number, ctx: CliContext): Promise<string | false> {
  const command = `karpenter-sentinel cleanup --simulate examples/${CLEANUP_DEMO_EXAMPLE} --apply`;
  writeLines(
    ctx.io.stdout,
    `\n${style.bold(`=== destroy-time cleanup: ${CLEANUP_DEMO_EXAMPLE} ===`)}\n${style.dim(`$ ${command}`)}\n`,
  );
  const progress = cleanupProgressDisplay(ctx.io.stdout, { inPlace: false, style, width });
  try {
    const folder = asTyped(fileURLToPath(new URL(`${CLEANUP_DEMO_EXAMPLE}/`, root)));
    const { result, region } = await cleanupSimulation(
      [folder],
      {},
      {
        request: { dryRun: false, deleteNodePools: true },
        deadline: new Date(ctx.services.timer.now().getTime() + DEFAULT_CLEANUP_TIMEOUT_MS),
        nodeClaimWaitMs: DEFAULT_NODECLAIM_WAIT_MS,
        onProgress: (event) => progress.show(event),
      },
      ctx,
    );
    writeLines(
      ctx.io.stdout,
      `\n${renderCleanupResult(result, { style, region, deleteNodePools: true, again: command, apply: command, width })}`,
    );
    const removed = [
      `${result.nodePoolsDeleted.length} NodePool(s)`,
      `${result.instancesTerminated.length} instance(s)`,
      `${result.launchTemplatesDeleted.length} launch template(s)`,
      `${result.instanceProfilesDeleted.length} instance profile(s)`,
    ];
    return `Cleaned up after a partial destroy: ${removed.join(', ')}${result.complete ? '.' : ' (not complete).'}`;
  } catch (err) {
    writeLines(ctx.io.stderr, `karpenter-sentinel: cleanup of example ${CLEANUP_DEMO_EXAMPLE}: ${visibleLine(oneLine(err))}`);
    return false;
  }
}

async function listExamples(root: URL): Promise<string[]> {
  try {
    const entries = await readdir(root, { withFileTypes: true });
    const names = entries.filter((e) => e.isDirectory() && !e.name.startsWith('.')).map((e) => e.name);
    // The headline case first, so the first screen shows a failure found and fixed; then by name.
    if (names.length > 0)
      return names.sort((a, b) => Number(b === HEADLINE_EXAMPLE) - Number(a === HEADLINE_EXAMPLE) || compare(a, b));
  } catch {
    // reported below: a missing folder and an empty one mean the same to the user
  }
  throw new InputError(fileURLToPath(root), 'no bundled examples found (is this a complete install?)');
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

async function readText(file: URL): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    return '';
  }
}

/** The README's first non-empty line without its heading marks. */
function firstLine(readme: string): string {
  const line = readme.split(/\r?\n/).find((l) => l.trim() !== '') ?? '';
  return line.replace(/^#+\s*/, '').trim();
}

/** The folder as a user would type it from here, so evidence reads `examples/x/karpenter.log:9`. */
function asTyped(path: string): string {
  const fromHere = relative(process.cwd(), path);
  return fromHere && !fromHere.startsWith('..') && !isAbsolute(fromHere) ? fromHere : path;
}
