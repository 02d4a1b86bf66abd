/**
 * The command line of `npm run invoke`, and the event file checked against the shape its function
 * reads, so a wrong file fails here with one line rather than deep in a handler.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { UsageError } from '../../src/domain/errors.ts';
import { isLambdaFunction, LAMBDA_FUNCTIONS, type LambdaFunctionName } from '../functions.ts';

export const USAGE = `usage: npm run invoke -- <function> <event-file> [--simulate <capture-dir>]... [--clusters a,b] [--now ISO-8601]
  function        ${LAMBDA_FUNCTIONS.join(' | ')}
  --simulate      capture files or directories standing in for the account and cluster
                  (default: examples/healthy; for cleanup examples/cleanup-partial-destroy)
  --clusters      scan-dispatch only: the CLUSTERS setting (scan exactly these)
  --now           the clock (default: 5 s after the event was sent, so the sample events are fresh)`;

export interface InvokeRequest {
  fn: LambdaFunctionName;
  event: unknown;
  simulate: string[] | undefined;
  clusters: string | undefined;
  now: Date;
}

export function parseRequest(argv: readonly string[], defaultNow: () => Date): InvokeRequest {
  const { values, positionals } = parseFlags(argv);
  const [fn, eventFile, ...extra] = positionals;
  if (fn === undefined) throw new UsageError(`no function given: one of ${LAMBDA_FUNCTIONS.join(', ')}`);
  if (!isLambdaFunction(fn))
    throw new UsageError(`unknown function ${JSON.stringify(fn)}: one of ${LAMBDA_FUNCTIONS.join(', ')}`);
  if (eventFile === undefined) throw new UsageError(`no event file given (e.g. events/${fn}.*.json)`);
  if (extra.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(extra[0])}`);
  if (values.clusters !== undefined && fn !== 'scan-dispatch') throw new UsageError('--clusters applies to scan-dispatch only');
  if (values.simulate !== undefined && fn === 'slack-notify') throw new UsageError('--simulate does not apply to slack-notify');
  const event = readEvent(eventFile, fn);
  return {
    fn,
    event,
    simulate: values.simulate,
    clusters: values.clusters,
    now: values.now !== undefined ? instant(values.now) : defaultNowOf(event, defaultNow),
  };
}

function parseFlags(argv: readonly string[]) {
  try {
    return parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: { simulate: { type: 'string', multiple: true }, clusters: { type: 'string' }, now: { type: 'string' } },
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

function instant(text: string): Date {
  const ms = Date.parse(text);
  if (!/(Z|[+-]\d{2}:?\d{2})$/i.test(text) || Number.isNaN(ms))
    throw new UsageError(`--now must be an ISO-8601 time with a zone, e.g. 2026-01-01T01:00:05Z (got '${text}')`);
  return new Date(ms);
}

function readEvent(file: string, fn: LambdaFunctionName): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new UsageError(`event file ${file} cannot be read (${code})`);
  }
  let event: unknown;
  try {
    event = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`event file ${file} is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  const problem = shapeProblem(event, fn);
  if (problem) throw new UsageError(`event file ${file} is not a ${fn} event: ${problem}`);
  return event;
}

type Fields = Record<string, unknown>;
const isObject = (value: unknown): value is Fields => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * What the handlers read: SQS records (scan, interruptions), SNS records (slack-notify), an EventBridge
 * event, a cleanup request (only its presence: the handler itself validates the fields and says what is wrong).
 */
function shapeProblem(event: unknown, fn: LambdaFunctionName): string | undefined {
  if (!isObject(event)) return 'not a JSON object';
  if (fn === 'cleanup')
    return 'clusterName' in event ? undefined : 'no "clusterName" (a cleanup request {"clusterName", "dryRun"})';
  if (fn === 'scan-dispatch')
    return typeof event['detail-type'] === 'string' ? undefined : 'no "detail-type" (EventBridge event)';
  const records = event.Records;
  if (!Array.isArray(records) || records.length === 0) return 'no "Records" array';
  for (const [i, record] of records.entries()) {
    if (!isObject(record)) return `Records[${i}] is not an object`;
    if (fn === 'slack-notify') {
      if (!isObject(record.Sns) || typeof record.Sns.Message !== 'string') return `Records[${i}].Sns.Message is not a string`;
    } else if (typeof record.messageId !== 'string' || typeof record.body !== 'string' || !isObject(record.attributes)) {
      return `Records[${i}] is not an SQS record (messageId, body, attributes)`;
    }
  }
  return undefined;
}

/** The latest send time the event carries (SQS SentTimestamp, SNS Timestamp, EventBridge time), plus 5 s. */
function defaultNowOf(event: unknown, fallback: () => Date): Date {
  const root = event as Fields;
  const records = Array.isArray(root.Records) ? (root.Records as Fields[]) : [];
  const sent = [
    Date.parse(String(root.time)),
    ...records.map((r) => Number((r.attributes as Fields | undefined)?.SentTimestamp)),
    ...records.map((r) => Date.parse(String((r.Sns as Fields | undefined)?.Timestamp))),
  ].filter((ms) => Number.isFinite(ms));
  return sent.length > 0 ? new Date(Math.max(...sent) + 5_000) : fallback();
}
