/**
 * One JSON object per line on stdout, as CloudWatch Logs Insights reads best. Fields are values the
 * service chose to log; nothing secret (the webhook URL, tokens) is ever passed here.
 */
type LogLevel = 'info' | 'warn' | 'error';

export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  /** A logger adding `fields` to every line (e.g. the cluster or the request id). */
  with(fields: Record<string, unknown>): Logger;
}

export type LogWriter = (line: string) => void;

export function jsonLogger(
  base: Record<string, unknown> = {},
  write: LogWriter = (line) => process.stdout.write(`${line}\n`),
): Logger {
  const emit = (level: LogLevel, message: string, fields?: Record<string, unknown>) =>
    write(JSON.stringify({ level, message, ...base, ...fields }));
  return {
    info: (message, fields) => emit('info', message, fields),
    warn: (message, fields) => emit('warn', message, fields),
    error: (message, fields) => emit('error', message, fields),
    with: (fields) => jsonLogger({ ...base, ...fields }, write),
  };
}

/** The error as one log field: name and message, and its cause's, never a stack. */
export function errorFields(error: unknown): Record<string, string> {
  if (!(error instanceof Error)) return { error: String(error) };
  const fields: Record<string, string> = { error: `${error.name}: ${error.message}` };
  if (error.cause !== undefined)
    fields.cause = error.cause instanceof Error ? `${error.cause.name}: ${error.cause.message}` : String(error.cause);
  return fields;
}
