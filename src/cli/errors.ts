import { InputError, NothingReadableError, SentinelError } from '../domain/errors.ts';
import type { OutputStream } from './io.ts';
import { writeLines } from './io.ts';
import { visibleLine, visibleText } from '../domain/visible.ts';

const PROGRAM = 'karpenter-sentinel';

/** The first non-empty line of an error's message (parsers like to append code frames). */
export function oneLine(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return (
    message
      .split(/\r?\n/)
      .find((l) => l.trim() !== '')
      ?.trim() ?? (err instanceof Error ? err.name : 'unknown error')
  );
}

/** A filesystem error that escaped the loader is still the user's input, not our bug. */
function asInputError(err: unknown): InputError | undefined {
  const e = err as { code?: unknown; path?: unknown; syscall?: unknown };
  if (!(err instanceof Error) || typeof e.code !== 'string' || typeof e.path !== 'string') return undefined;
  const problem = e.code === 'ENOENT' ? 'no such file or directory' : e.code === 'EACCES' ? 'permission denied' : `${e.code}`;
  return new InputError(e.path, problem, { cause: err });
}

/**
 * Prints one line for the user and returns the exit code. Expected errors carry their own code;
 * anything else is our bug: still one line (the stack only with --debug), and exit 2 because
 * the scan did not happen (1 would tell CI that findings were made).
 */
export function reportError(err: unknown, stderr: OutputStream, debug: boolean): number {
  const expected = err instanceof SentinelError ? err : asInputError(err);
  const line = expected
    ? oneLine(expected)
    : `internal error: ${oneLine(err)}${debug ? '' : ' (run with --debug for the stack)'}`;
  // Messages name files and quote their content: shown as visible text, on one line.
  writeLines(stderr, `${PROGRAM}: ${visibleLine(line)}`);
  if (expected instanceof NothingReadableError) writeLines(stderr, expected.files.map((f) => `  ${visibleLine(f)}`).join('\n'));
  if (debug) writeLines(stderr, visibleText(stackOf(err)));
  return expected ? expected.exitCode : 2;
}

function stackOf(err: unknown): string {
  const parts: string[] = [];
  let e: unknown = err;
  for (let depth = 0; e !== undefined && depth < 5; depth += 1) {
    const text = e instanceof Error ? (e.stack ?? `${e.name}: ${e.message}`) : String(e);
    parts.push(depth === 0 ? text : `caused by: ${text}`);
    e = e instanceof Error ? e.cause : undefined;
  }
  return parts.join('\n');
}
