import { readFile } from 'node:fs/promises';
import { UsageError } from '../domain/errors.ts';
import { captureScriptCommand } from './commands/capture-script.ts';
import { cleanupCommand } from './commands/cleanup.ts';
import type { Command } from './commands/command.ts';
import { demoCommand } from './commands/demo.ts';
import { sandboxCommand } from './commands/sandbox.ts';
import { scanCommand } from './commands/scan.ts';
import { snapshotCommand } from './commands/snapshot.ts';
import { reportError } from './errors.ts';
import { wrapHelp } from './render/help.ts';
import { didYouMean } from './suggest.ts';
import { DEFAULT_SERVICES, outputWidth, processIO, writeLines } from './io.ts';
import type { CliContext, CliIO, CliServices, OutputStream } from './io.ts';

export type { CliIO } from './io.ts';
// bin/karpenter-sentinel.js names the program as binary.ts does (from the sources or the bundle).
export { programName } from './program-name.ts';

const PROGRAM = 'karpenter-sentinel';

export interface CliOptions {
  /** What the user types to run it, for usage and hints: `kubectl sentinel` when it runs as a kubectl plugin. */
  program?: string;
}

const COMMANDS: readonly Command[] = [
  scanCommand,
  snapshotCommand,
  captureScriptCommand,
  cleanupCommand,
  demoCommand,
  sandboxCommand,
];

function usage(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return `karpenter-sentinel: finds, explains and fixes the Karpenter failures Karpenter cannot fix itself

Usage: karpenter-sentinel <command> [options]

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n')}
  ${'help'.padEnd(width)}  show this, or a command's options: help <command>

Quick start:
  karpenter-sentinel demo                       the bundled failures, in a simulated cluster
  karpenter-sentinel scan                       live: the current kubectl context's EKS cluster
  karpenter-sentinel scan --cluster NAME        live: an EKS cluster; --apply fixes what is safe
  karpenter-sentinel scan --from ./capture      offline analysis of kubectl / aws CLI output
  karpenter-sentinel snapshot --out ./capture   capture a cluster for later or a bug report
  karpenter-sentinel cleanup --cluster NAME     before/after terraform destroy: what Karpenter left

Global options: --help, --version, --debug (print the stack of an error)
As a kubectl plugin (kubectl-sentinel on PATH), 'kubectl sentinel' alone scans the current context.
Exit codes: 0 nothing at or above --fail-on (cleanup: complete), 1 something is (cleanup: errors or\nnot complete), 2 usage or input error.`;
}

/**
 * The command line. Never throws and never prints a stack trace unless --debug: every error is
 * one line on stderr and an exit code (docs/usage.md#exit-codes).
 */
export async function runCli(
  argv: readonly string[],
  io: CliIO = processIO(),
  services: Partial<CliServices> = {},
  options: CliOptions = {},
): Promise<number> {
  const { args, debug } = takeDebugFlag(argv);
  const program = options.program ?? PROGRAM;
  try {
    return await dispatch(args, { io, services: { ...DEFAULT_SERVICES, ...services } }, program);
  } catch (err) {
    return reportError(err, invokedAs(io.stderr, program), debug);
  }
}

/**
 * Usage and hints name the program as the user typed it. The texts say `karpenter-sentinel CMD`;
 * the product's name elsewhere (`karpenter-sentinel: ...`, `--version`) stays.
 */
function asInvoked(text: string, program: string): string {
  return program === PROGRAM ? text : text.replace(/\bkarpenter-sentinel(?= )/g, program);
}

function invokedAs(stream: OutputStream, program: string): OutputStream {
  return program === PROGRAM
    ? stream
    : { write: (s: string) => stream.write(asInvoked(s, program)), isTTY: stream.isTTY, columns: stream.columns };
}

async function dispatch(args: string[], ctx: CliContext, program: string): Promise<number> {
  const [name, ...rest] = args;
  if (name === undefined) {
    // `kubectl sentinel` alone scans the current context, as kubectl plugins do (docs/usage.md).
    if (program !== PROGRAM) return scanCommand.run([], ctx);
    writeHelp(ctx.io.stderr, usage(), ctx.io, program);
    return 2;
  }
  if (name === 'help' || name === '--help' || name === '-h') return help(rest, ctx.io, program);
  if (name === '--version') {
    writeLines(ctx.io.stdout, await version());
    return 0;
  }
  if (name.startsWith('-')) {
    // `kubectl sentinel -o json`: flags alone are the default command's, as for no arguments.
    if (program !== PROGRAM) return scanCommand.run(args, ctx);
    throw new UsageError(
      `unknown option ${name}; a command comes first, e.g. karpenter-sentinel scan --from DIR (see karpenter-sentinel --help)`,
    );
  }
  const command = findCommand(name);
  if (wantsHelp(rest)) {
    writeHelp(ctx.io.stdout, command.usage, ctx.io, program);
    return 0;
  }
  return command.run(rest, ctx);
}

function help(rest: string[], io: CliIO, program: string): number {
  const [topic, extra] = rest;
  if (extra !== undefined) throw new UsageError(`help takes at most one command (got '${rest.join(' ')}')`);
  const general = topic === undefined || topic === 'help' || topic === '--help' || topic === '-h';
  writeHelp(io.stdout, general ? usage() : findCommand(topic).usage, io, program);
  return 0;
}

/** Help as the user typed the program, wrapped to the terminal (render/help.ts). */
function writeHelp(stream: OutputStream, text: string, io: CliIO, program: string): void {
  writeLines(stream, wrapHelp(asInvoked(text, program), outputWidth(stream, io.terminal)));
}

function findCommand(name: string): Command {
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    const names = [...COMMANDS.map((c) => c.name), 'help'];
    throw new UsageError(`unknown command '${name}'${didYouMean(name, names)} (commands: ${names.join(', ')})`);
  }
  return command;
}

/** `--help`/`-h` anywhere before `--` shows the command's usage, whatever else is on the line. */
function wantsHelp(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).some((a) => a === '--help' || a === '-h');
}

/** `--debug` works with every command, so it is taken off before the command parses its flags. */
function takeDebugFlag(argv: readonly string[]): { args: string[]; debug: boolean } {
  const end = argv.indexOf('--');
  const head = end === -1 ? [...argv] : argv.slice(0, end);
  const args = head.filter((a) => a !== '--debug');
  return { args: end === -1 ? args : [...args, ...argv.slice(end)], debug: args.length !== head.length };
}

async function version(): Promise<string> {
  const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
  return `karpenter-sentinel ${String(pkg.version)}`;
}
