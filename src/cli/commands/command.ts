import type { CliContext } from '../io.ts';

export interface Command {
  name: string;
  /** One line for the command list. */
  summary: string;
  /** Full `help <command>` text. */
  usage: string;
  /** Resolves to the exit code; throws UsageError/InputError for the entry point to print. */
  run(args: readonly string[], ctx: CliContext): Promise<number>;
}
