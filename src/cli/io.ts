import { readTerminalEnvironment, type TerminalEnvironment } from '../config.ts';
import type { Detector } from '../detectors/detector.ts';
import type { LoadOptions, LoadResult } from '../snapshot/load.ts';
import type { Simulation, SimulationOptions } from '../simulator/simulation.ts';
import type { ClusterSnapshot } from '../domain/snapshot.ts';
import type { ClusterConnection } from '../ports/cluster.ts';
import { SYSTEM_CLOCK, type Clock } from '../ports/clock.ts';
import type { KubeConfig } from '@kubernetes/client-node';
import type { LiveTarget } from './live-target.ts';
import { visibleLine } from '../domain/visible.ts';
import { wrapLine } from './render/wrap.ts';

export interface OutputStream {
  write(s: string): unknown;
  isTTY?: boolean;
  /** A terminal's width, so a status line rewritten in place never wraps. */
  columns?: number;
}

export interface CliIO {
  stdout: OutputStream;
  stderr: OutputStream;
  terminal: TerminalEnvironment;
}

/**
 * What the commands reach outside themselves for. Tests replace parts of it; users cannot
 * (no flag exposes it), so the command line stays the public surface.
 */
export interface CliServices {
  loadSnapshot(paths: readonly string[], options?: LoadOptions): Promise<LoadResult>;
  /** Detectors to run instead of the registry. */
  detectors?: readonly Detector[];
  /** Folder holding one sub-folder per bundled example. */
  examplesRoot: URL;
  clock(): Date;
  /** Waits and deadlines of long runs (cleanup); tests pass one whose sleep takes no time. */
  timer: Clock;
  /** Real adapters for a live cluster (AWS SDK, client-node). */
  /** `kubeconfig`: the one resolveLiveTarget loaded for the target's context, not read again. */
  connectLive(target: LiveTarget, kubeconfig?: KubeConfig): Promise<ClusterConnection>;
  /** A simulated cluster seeded from a loaded capture (fake Kubernetes API on 127.0.0.1, in-memory AWS). */
  startSimulation(seed: ClusterSnapshot, options?: SimulationOptions): Promise<Simulation>;
}

export interface CliContext {
  io: CliIO;
  services: CliServices;
}

export const DEFAULT_SERVICES: CliServices = {
  // Loaded on first use, so `--help` and `--version` do not pay for the parsers.
  loadSnapshot: async (paths, options) => (await import('../snapshot/load.ts')).loadSnapshot(paths, options),
  examplesRoot: new URL('../../examples/', import.meta.url),
  clock: () => new Date(),
  timer: SYSTEM_CLOCK,
  // Loaded on first use too: the SDK and client-node are most of the start-up time.
  connectLive: async (target, kubeconfig) => (await import('./live-connection.ts')).connectLive(target, kubeconfig),
  startSimulation: async (seed, options) => (await import('../simulator/simulation.ts')).simulateSnapshot(seed, options),
};

let pipeGuardInstalled = false;

/** process.stdout/stderr; a closed pipe (`| head`) ends output quietly instead of with a stack trace. */
export function processIO(): CliIO {
  if (!pipeGuardInstalled) {
    pipeGuardInstalled = true;
    for (const stream of [process.stdout, process.stderr]) {
      stream.on('error', (err: NodeJS.ErrnoException) => {
        if (err.code !== 'EPIPE') throw err;
      });
    }
  }
  return { stdout: process.stdout, stderr: process.stderr, terminal: readTerminalEnvironment() };
}

/** What a loader or collector noticed, one `note:` line each on stderr, shown as visible text. */
export function printNotices(notices: readonly string[], ctx: CliContext): void {
  for (const notice of notices) writeNote(ctx, `note: ${visibleLine(notice)}`);
}

/**
 * What help and prose are wrapped to when neither COLUMNS nor a terminal gives a width (a pipe, a
 * file, a CI log): one default for both, kubectl's and a pager's usual 80 (docs/usage.md "Help and width").
 */
export const DEFAULT_WIDTH = 80;

/**
 * The width a stream's help and prose are wrapped to: COLUMNS (when a positive integer), else the
 * terminal's own width, else DEFAULT_WIDTH (a pipe or a file has no width).
 */
export function outputWidth(stream: OutputStream, terminal: TerminalEnvironment): number {
  if (terminal.columns !== undefined) return terminal.columns;
  const columns = stream.columns;
  if (stream.isTTY === true && columns !== undefined && Number.isInteger(columns) && columns > 0) return columns;
  return DEFAULT_WIDTH;
}

/**
 * A `note:` or `warning:` line on stderr, wrapped to its width under a two-space indent. The label
 * stays on the line of the first word after it, even when that word (a long capture path) fills the
 * line: `note:` alone on a line reads as an empty note followed by unlabelled text.
 */
export function writeNote(ctx: CliContext, text: string): void {
  const label = /^[a-z]+: (?=\S)/.exec(text)?.[0] ?? '';
  const lines = wrapLine(
    label ? `${label.trimEnd()}${GLUE}${text.slice(label.length)}` : text,
    outputWidth(ctx.io.stderr, ctx.io.terminal),
    '  ',
  );
  writeLines(ctx.io.stderr, lines.map((line, i) => (i === 0 && label ? line.replace(GLUE, ' ') : line)).join('\n'));
}

/** Holds a label and its first word together through wrapLine, which breaks only at spaces (one column wide, like the space it stands for). */
const GLUE = '\u00a0';

export function writeLines(stream: OutputStream, text: string): void {
  stream.write(text.endsWith('\n') ? text : `${text}\n`);
}
