import { readdir, readFile } from 'node:fs/promises';
import { isAbsolute, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ParseArgsOptionsConfig } from 'node:util';
import { InputError } from '../../domain/errors.ts';
import { CLI_ACTIONS, DEFAULT_DETECTION } from '../../domain/settings.ts';
import { instantOf, parseFlags, stringOf } from '../args.ts';
import { writeLines } from '../io.ts';
import { actionsFor, scanSimulation } from '../cluster-scan.ts';
import { DemoTally, narrate } from '../render/narrate.ts';
import { renderTable } from '../render/table.ts';
import { ANSI_STYLE, colourEnabled, PLAIN_STYLE } from '../render/style.ts';
import { oneLine } from '../errors.ts';
import type { Command } from './command.ts';

/**
 * The bundled captures are frozen in time: every timestamp in examples/ is set relative to this
 * instant, so the demo judges ages against it unless --now says otherwise.
 */
export const EXAMPLES_NOW = '2026-01-01T01:00:00Z';

const OPTIONS = {
  now: { type: 'string' },
} as const satisfies ParseArgsOptionsConfig;

const USAGE = `Usage:
  karpenter-sentinel demo [--now ISO-8601]

Serves each bundled example under examples/ (captured kubectl / aws CLI output of a real failure)
as a simulated cluster (a Kubernetes API on 127.0.0.1 and in-memory AWS), scans it with --apply
and tells what was found, why, and what was fixed. No cloud account needed; only the simulation
changes. Each example can be rerun on its own with:
  karpenter-sentinel scan --simulate examples/NAME --apply     (or offline: scan --from examples/NAME)

  --now ISO-8601               the time to judge ages against (default: ${EXAMPLES_NOW}, when the examples were captured)

Exit codes: 0 every example was read (findings are expected), 2 an example could not be read.`;

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
    let failed = 0;
    const tally = new DemoTally();
    for (const [i, name] of examples.entries()) {
      const folder = new URL(`${encodeURIComponent(name)}/`, root);
      const readme = await readText(new URL('README.md', folder));
      const description = firstLine(readme);
      const lines = [`${i > 0 ? '\n' : ''}${style.bold(`=== example ${i + 1}/${examples.length}: ${name} ===`)}`];
      if (description) lines.push(description);
      lines.push(style.dim(`$ karpenter-sentinel scan --simulate examples/${name} --apply --now ${shownNow}`));
      writeLines(ctx.io.stdout, `${lines.join('\n')}\n\n`);
      try {
        const report = await scanSimulation(
          [asTyped(fileURLToPath(folder))],
          { detection: DEFAULT_DETECTION, actions: actionsFor(true, CLI_ACTIONS.maxTerminationsPerRun), now },
          ctx,
        );
        writeLines(ctx.io.stdout, renderTable(report, { style }));
        writeLines(ctx.io.stdout, narrate(report, style));
        tally.add(report);
      } catch (err) {
        failed += 1;
        writeLines(ctx.io.stderr, `karpenter-sentinel: example ${name}: ${oneLine(err)}`);
      }
    }
    writeLines(ctx.io.stdout, `\n${style.bold('=== summary ===')}\n${tally.lines(examples.length - failed).join('\n')}`);
    return failed > 0 ? 2 : 0;
  },
};

async function listExamples(root: URL): Promise<string[]> {
  try {
    const entries = await readdir(root, { withFileTypes: true });
    const names = entries.filter((e) => e.isDirectory() && !e.name.startsWith('.')).map((e) => e.name);
    if (names.length > 0) return names.sort();
  } catch {
    // reported below: a missing folder and an empty one mean the same to the user
  }
  throw new InputError(fileURLToPath(root), 'no bundled examples found (is this a complete install?)');
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
