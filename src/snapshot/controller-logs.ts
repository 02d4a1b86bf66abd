import { Buffer } from 'node:buffer';
import type { LogLine } from '../domain/aws.ts';
import type { ByteReader } from './capture-content.ts';
import { isRecord, type JsonRecord } from '../domain/shape.ts';
import { ANSI_ESCAPE, KUBECTL_PREFIX, KUBECTL_TIMESTAMP, RecordJoiner, type LogRecord } from './log-records.ts';

/**
 * `kubectl logs` of the Karpenter controller → one LogLine per record: a line, or an entry that
 * spans several (a stack trace, a pretty-printed JSON object; log-records.ts). Karpenter logs
 * JSON through zap (`level`/`time`/`message`, or zap's defaults `msg`/`ts`); older versions and
 * some installs print zap's console format (tab-separated, JSON fields last). Anything else is
 * kept as free text: logs refine causes, they never make a capture unreadable.
 */
export function readControllerLog(text: string, file: string): LogLine[] {
  const joiner = new RecordJoiner();
  let lineNumber = 0;
  let start = 0;
  while (start <= text.length) {
    const end = text.indexOf('\n', start);
    joiner.push(text.slice(start, end < 0 ? text.length : end), ++lineNumber);
    start = end < 0 ? text.length + 1 : end + 1;
  }
  return joiner.finish().map((record) => recordLine(record, file));
}

/**
 * The previous container's log (`kubectl logs --previous`): a `.log` file whose name ends in
 * `previous` (`karpenter-previous.log`, `previous.log`, `karpenter_previous.log.gz`). Its lines say
 * why the controller last stopped; every other `.log` file is the current log.
 */
export function isPreviousControllerLog(fileName: string): boolean {
  const base = fileName.replace(/^.*[\\/]/, '');
  return /(?:^|[-_.])previous\.log(?:\.gz|\.gzip)?$/i.test(base);
}

/** The same lines, marked as the previous container's (LogLine.previous). */
export function asPreviousLog(lines: readonly LogLine[]): LogLine[] {
  return lines.map((line) => ({ ...line, previous: true }));
}

/**
 * Karpenter's lines are a few kB (an error quoting a whole object, a few MB); a longer one keeps
 * its first 64 MiB. Past that it is no log line anyone wrote, and one line must not take all memory.
 */
const MAX_LINE_BYTES = 64 * 1024 * 1024;

/**
 * How much of a log file is kept: its last lines, as many as fit both bounds. A live scan reads
 * the last 500 lines per container; this is hours of a busy controller's log, and what one file
 * can make the scan hold (a gzip of one line repeated is millions of lines).
 */
const MAX_KEPT_LINES = 200_000;
const MAX_KEPT_TEXT = 128 * 1024 * 1024;

export interface ControllerLog {
  lines: LogLine[];
  /** Lines before the kept ones, left out (not blank ones). */
  dropped: number;
}

/**
 * The same, read from `reader` a piece at a time: a log file never has to fit one string, and a
 * line is decoded only once it is whole (a character cut in two between pieces stays whole). Only
 * the last lines are kept and parsed (MAX_KEPT_LINES, MAX_KEPT_TEXT).
 */
export function readControllerLogFrom(reader: ByteReader, file: string): ControllerLog {
  const kept: ({ text: string; lineNumber: number } | undefined)[] = [];
  let first = 0;
  let keptText = 0;
  let dropped = 0;
  let lineNumber = 0;
  const keep = (text: string) => {
    lineNumber++;
    if (text.trim() === '') return;
    kept.push({ text, lineNumber });
    keptText += text.length;
    while (kept.length - first > MAX_KEPT_LINES || (keptText > MAX_KEPT_TEXT && kept.length - first > 1)) {
      keptText -= kept[first]?.text.length ?? 0;
      kept[first++] = undefined;
      dropped++;
    }
    if (first > 65_536 && first * 2 > kept.length) {
      kept.splice(0, first);
      first = 0;
    }
  };
  let partial: Buffer[] = [];
  let partialBytes = 0;
  const take = (bytes: Buffer) => {
    const room = MAX_LINE_BYTES - partialBytes;
    if (room <= 0) return;
    const part = bytes.length > room ? bytes.subarray(0, room) : bytes;
    // A copy: the rest of a line must not keep the whole piece it came in alive.
    partial.push(Buffer.from(part));
    partialBytes += part.length;
  };
  const endLine = () => {
    keep((partial.length === 1 ? (partial[0] as Buffer) : Buffer.concat(partial, partialBytes)).toString('utf8'));
    partial = [];
    partialBytes = 0;
  };
  try {
    for (let piece = reader.next(); piece !== undefined; piece = reader.next()) {
      let start = 0;
      for (let end = piece.indexOf(0x0a); end >= 0; end = piece.indexOf(0x0a, start)) {
        if (partialBytes === 0) keep(piece.toString('utf8', start, Math.min(end, start + MAX_LINE_BYTES)));
        else {
          take(piece.subarray(start, end));
          endLine();
        }
        start = end + 1;
      }
      if (start < piece.length) take(piece.subarray(start));
    }
    if (partialBytes > 0) endLine();
  } finally {
    reader.close();
  }
  const joiner = new RecordJoiner();
  for (let i = first; i < kept.length; i++) {
    const line = kept[i];
    if (line) joiner.push(line.text, line.lineNumber);
  }
  return { lines: joiner.finish().map((record) => recordLine(record, file)), dropped };
}

/**
 * A record as one LogLine, quoted by its first line's number: a pretty-printed JSON object parsed
 * whole; any other record parsed by its first line, the rest kept as its `continuation`.
 */
function recordLine(record: LogRecord, file: string): LogLine {
  const origin = `${file}:${record.lineNumber}`;
  if (record.rest.length === 0) return parseLogLine(record.head, origin);
  const whole = [record.head, ...record.rest].join('\n');
  if (record.json && parseJsonObject(whole.replace(KUBECTL_PREFIX, '')) !== undefined) return parseLogLine(whole, origin);
  return { ...parseLogLine(record.head, origin), continuation: record.rest.join('\n') };
}

/** `stern karpenter -n karpenter`: pod and container names before each JSON line. */
const STERN_PREFIX = /^[a-z0-9][a-z0-9.-]* [a-z0-9][a-z0-9-]* (?=\{)/;
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)$/;
const LEVELS: Readonly<Record<string, string>> = {
  DEBUG: 'DEBUG',
  INFO: 'INFO',
  WARN: 'WARN',
  WARNING: 'WARN',
  ERROR: 'ERROR',
  DPANIC: 'DPANIC',
  PANIC: 'PANIC',
  FATAL: 'FATAL',
};
const KLOG_LEVELS: Readonly<Record<string, string>> = { I: 'INFO', W: 'WARN', E: 'ERROR', F: 'FATAL' };

export function parseLogLine(line: string, origin: string): LogLine {
  const plain = line.includes('\u001b') ? line.replace(ANSI_ESCAPE, '') : line;
  let rest = plain.replace(KUBECTL_PREFIX, '').replace(STERN_PREFIX, '');
  let kubectlTime: string | undefined;
  const stamped = KUBECTL_TIMESTAMP.exec(rest);
  const afterStamp = stamped ? rest.slice(stamped[0].length) : '';
  if (
    stamped &&
    (afterStamp.startsWith('{') ||
      KUBECTL_TIMESTAMP.test(afterStamp) ||
      afterStamp.split('\t')[0]?.match(TIMESTAMP) ||
      /^(?:panic: |fatal error: )/.test(afterStamp))
  ) {
    kubectlTime = stamped[1];
    rest = afterStamp;
  }
  const json = rest.startsWith('{') ? parseJsonObject(rest) : undefined;
  const parsed = json ? fromJson(json) : fromText(rest);
  const time = parsed.time ?? kubectlTime;
  return {
    ...(time !== undefined ? { time } : {}),
    ...(parsed.level !== undefined ? { level: parsed.level } : {}),
    message: parsed.message,
    ...(parsed.error !== undefined ? { error: parsed.error } : {}),
    fields: parsed.fields,
    origin,
  };
}

type ParsedLine = Omit<LogLine, 'origin'>;

function fromJson(fields: JsonRecord): ParsedLine {
  return {
    time: timeOf(fields.time ?? fields.ts),
    level: levelOf(fields.level ?? fields.severity) ?? upperCase(fields.level),
    message: textOf(fields.message ?? fields.msg) ?? '',
    error: textOf(fields.error),
    fields,
  };
}

/** zap console (`time\tLEVEL\tlogger\tmessage\t{json}`, or without the time), `time LEVEL message`, klog, or free text. */
function fromText(line: string): ParsedLine {
  const parts = line.split('\t');
  const [first, second] = parts;
  if (parts.length >= 3 && first !== undefined && TIMESTAMP.test(first) && levelOf(second)) {
    let rest = parts.slice(2);
    const last = rest.at(-1);
    const trailing = last?.startsWith('{') ? parseJsonObject(last) : undefined;
    if (trailing) rest = rest.slice(0, -1);
    const logger = rest.length >= 2 ? rest[0] : undefined;
    const message = (rest.length >= 2 ? rest.slice(1) : rest).join('\t');
    const fields: JsonRecord = { ...(logger !== undefined ? { logger } : {}), ...trailing };
    return { time: first, level: levelOf(second), message, error: textOf(fields.error), fields };
  }
  // zap's console format with its time left out (an encoder without a time key, or a line pasted
  // without it): `FATAL\tcontroller.aws\tunable to detect the cluster endpoint, ...`.
  if (parts.length >= 2 && first !== undefined && /^[A-Z]+$/.test(first) && levelOf(first)) {
    const rest = parts.slice(1);
    const logger = rest.length >= 2 ? rest[0] : undefined;
    const message = (rest.length >= 2 ? rest.slice(1) : rest).join('\t');
    return { level: levelOf(first), message, fields: logger !== undefined ? { logger } : {} };
  }
  const spaced = /^(\S+)\s+([A-Za-z]+)\s+(.*)$/.exec(line);
  if (spaced?.[1] && TIMESTAMP.test(spaced[1]) && levelOf(spaced[2])) {
    return { time: spaced[1], level: levelOf(spaced[2]), message: spaced[3] ?? '', fields: {} };
  }
  const klog = /^([IWEF])\d{4} \d\d:\d\d:\d\d\.\d+\s+\d+ [^\]]+\] (.*)$/.exec(line);
  if (klog?.[1]) return { level: KLOG_LEVELS[klog[1]], message: klog[2] ?? '', fields: {} };
  return { message: line, fields: {} };
}

function parseJsonObject(text: string): JsonRecord | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function levelOf(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const upper = value.toUpperCase();
  return Object.hasOwn(LEVELS, upper) ? LEVELS[upper] : undefined;
}

/** zap's default `ts` is epoch seconds as a float; Karpenter configures ISO `time`. */
function timeOf(value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value !== 'number' || !Number.isFinite(value)) return undefined;
  const ms = value > 1e11 ? value : value * 1000;
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

function upperCase(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value.toUpperCase() : undefined;
}

function textOf(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}
