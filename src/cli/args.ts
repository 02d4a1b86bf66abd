import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { parseByteSize } from '../domain/byte-size.ts';
import { parseKubeReadLimits, type KubeReadLimits } from '../domain/kube-read-limits.ts';
import { SEVERITIES, type Severity } from '../domain/codes.ts';
import { UsageError } from '../domain/errors.ts';
import { parseDuration, parseUsd } from '../domain/settings.ts';
import { didYouMean } from './suggest.ts';

type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;

export interface ParsedFlags {
  values: Values;
  /** Bare arguments, in order, for a command that takes them (`operands: true`); else always empty. */
  operands: string[];
}

/** What a command's bare arguments are: the values of its `pathOptions`, or its own `operands`. */
interface FlagShape {
  pathOptions?: readonly string[];
  operands?: boolean;
}

/**
 * Strict `parseArgs` for one command. Options in `pathOptions` (multiple strings) also take the
 * bare arguments that follow them, so `--from a b c` and `--from a --from b` both work; any other
 * bare argument is an operand when the command takes `operands` (`sandbox PATH...`), else, like a
 * repeated single-valued flag, an unknown flag or a missing value, a UsageError that names it.
 */
export function parseFlags(
  command: string,
  args: readonly string[],
  options: ParseArgsOptionsConfig,
  { pathOptions = [], operands: takesOperands = false }: FlagShape = {},
): ParsedFlags {
  const parsed = (() => {
    try {
      return parseArgs({ args: kubectlStyle(args, options), options, strict: true, allowPositionals: true, tokens: true });
    } catch (err) {
      throw toUsageError(command, err, options);
    }
  })();
  const values: Values = { ...parsed.values };
  for (const name of pathOptions) delete values[name];
  const operands: string[] = [];
  const seen = new Set<string>();
  let pathOption: string | undefined;
  // Walk the tokens in order: paths keep the order they were given in.
  for (const token of parsed.tokens) {
    if (token.kind === 'option') {
      if (!options[token.name]?.multiple && seen.has(token.name)) {
        throw new UsageError(`--${token.name} given more than once for '${command}'`);
      }
      seen.add(token.name);
      pathOption = pathOptions.includes(token.name) ? token.name : undefined;
      if (pathOption !== undefined && token.value !== undefined) {
        values[pathOption] = [...stringsOf(values[pathOption]), token.value];
      }
    } else if (token.kind === 'positional') {
      if (pathOption === undefined && takesOperands) {
        operands.push(token.value);
        continue;
      }
      if (pathOption === undefined) {
        const hint = pathOptions.length ? `; paths go after --${pathOptions[0]}` : '';
        throw new UsageError(`unexpected argument '${token.value}' for '${command}'${hint}`);
      }
      values[pathOption] = [...stringsOf(values[pathOption]), token.value];
    }
  }
  for (const name of pathOptions) {
    if (stringsOf(values[name]).some((path) => path.trim() === '')) throw new UsageError(`--${name} got an empty path`);
  }
  return { values, operands };
}

/**
 * kubectl's spellings node:util's parseArgs reads otherwise: `-o=json` (parseArgs would take
 * `=json` as the value) becomes `-o json`. `-ojson` and `--output=json` parse as they are.
 */
function kubectlStyle(args: readonly string[], options: ParseArgsOptionsConfig): string[] {
  const end = args.indexOf('--');
  const head = end === -1 ? args : args.slice(0, end);
  const shortWithValue = new Set(Object.values(options).flatMap((o) => (o.type === 'string' && o.short ? [o.short] : [])));
  const spread = head.flatMap((arg) => {
    const match = /^-(\w)=(.*)$/s.exec(arg);
    return match && shortWithValue.has(match[1] as string) ? [`-${match[1]}`, match[2] as string] : [arg];
  });
  return end === -1 ? spread : [...spread, ...args.slice(end)];
}

/**
 * kubectl flags no command here takes, with why: a scan reads every namespace (the Karpenter
 * controller is found by its label wherever it runs), so there is no namespace to choose.
 */
const EVERY_NAMESPACE =
  'every namespace is read (the Karpenter controller is found by its label app.kubernetes.io/name=karpenter wherever it runs)';
const KUBECTL_FLAGS_NOT_TAKEN: Record<string, string> = { '-n': EVERY_NAMESPACE, '--namespace': EVERY_NAMESPACE };

function toUsageError(command: string, err: unknown, options: ParseArgsOptionsConfig): Error {
  const code = (err as { code?: unknown }).code;
  const message = err instanceof Error ? err.message : String(err);
  // Node words these "Unknown option '--x'" and "Option '-o, --output <value>' argument missing".
  const flag = /--[\w-]+/.exec(message)?.[0] ?? /'(-\w)/.exec(message)?.[1] ?? '';
  const help = `(see karpenter-sentinel help ${command})`;
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const notTaken = KUBECTL_FLAGS_NOT_TAKEN[flag];
    if (notTaken !== undefined) return new UsageError(`${flag} does not apply to '${command}': ${notTaken}`);
    const suggestion = flag.startsWith('--')
      ? didYouMean(
          flag,
          Object.keys(options).map((name) => `--${name}`),
        )
      : '';
    return new UsageError(`unknown option ${flag} for '${command}'${suggestion} ${help}`);
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    if (message.includes('does not take an argument')) return new UsageError(`${flag} takes no value`);
    if (message.includes('ambiguous')) {
      return new UsageError(`${flag} needs a value (for a value starting with '-', write ${flag}=VALUE)`);
    }
    return new UsageError(`${flag} needs a value`);
  }
  return err instanceof Error ? err : new Error(message);
}

export function stringsOf(value: Values[string]): string[] {
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return typeof value === 'string' ? [value] : [];
}

export function stringOf(value: Values[string]): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function choiceOf<T extends string>(flag: string, value: Values[string], choices: readonly T[], fallback: T): T {
  const text = stringOf(value);
  if (text === undefined) return fallback;
  const choice = choices.find((c) => c === text.trim().toLowerCase());
  if (choice !== undefined) return choice;
  throw new UsageError(`--${flag} must be one of ${choices.join(', ')} (got '${text}')`);
}

/** A threshold flag: `90s`, `5m`, `1h30m` or plain seconds, in milliseconds. */
export function durationOf(flag: string, value: Values[string], fallback: number): number {
  const text = stringOf(value);
  if (text === undefined) return fallback;
  const ms = parseDuration(text);
  if (ms === undefined) throw new UsageError(`--${flag} must be a duration such as 90s, 5m or 1h30m (got '${text}')`);
  return ms;
}

export function countOf(flag: string, value: Values[string], fallback: number): number {
  const text = stringOf(value);
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text.trim())) throw new UsageError(`--${flag} must be a whole number, 0 or more (got '${text}')`);
  return Number(text.trim());
}

/** `--waste-per-day 12.5`: US dollars, at most two decimals, within the threshold's range. */
export function usdOf(flag: string, value: Values[string], fallback: number, range: { min: number; max: number }): number {
  const text = stringOf(value);
  if (text === undefined) return fallback;
  const usd = parseUsd(text);
  if (usd === undefined || usd < range.min || usd > range.max)
    throw new UsageError(
      `--${flag} must be an amount of USD from ${range.min} to ${range.max}, such as 50 or 12.5 (got '${text}')`,
    );
  return usd;
}

/** `--kube-read-limits response-size=64MiB,list-items=500000`: the limits named (domain/kube-read-limits.ts). */
export function readLimitsOf(flag: string, value: Values[string]): Partial<KubeReadLimits> | undefined {
  const text = stringOf(value);
  if (text === undefined) return undefined;
  const limits = parseKubeReadLimits(text);
  if ('problem' in limits) throw new UsageError(`--${flag}: ${limits.problem}`);
  return limits;
}

/** A size flag: `512MiB`, `1GiB`, `2GB` or plain bytes. */
export function byteSizeOf(flag: string, value: Values[string]): number | undefined {
  const text = stringOf(value);
  if (text === undefined) return undefined;
  const bytes = parseByteSize(text);
  if (bytes === undefined)
    throw new UsageError(`--${flag} must be a size such as 512MiB, 2GiB or a number of bytes (got '${text}')`);
  return bytes;
}

const ISO_INSTANT = /^(\d{4})-(\d{2})-(\d{2})T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

/** `--now`: an ISO-8601 instant with a zone (a zoneless time would depend on the machine's TZ). */
export function instantOf(flag: string, value: Values[string], fallback: () => Date): Date {
  const text = stringOf(value);
  if (text === undefined) return fallback();
  const match = ISO_INSTANT.exec(text.trim());
  const ms = Date.parse(text.trim());
  if (!match || Number.isNaN(ms) || !isRealDate(Number(match[1]), Number(match[2]), Number(match[3]))) {
    throw new UsageError(`--${flag} must be an ISO-8601 time with a zone, e.g. 2026-01-01T00:00:00Z (got '${text}')`);
  }
  return new Date(ms);
}

function isRealDate(year: number, month: number, day: number): boolean {
  const d = new Date(Date.UTC(year, month - 1, day));
  return d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day;
}

export const FAIL_ON_CHOICES = [...SEVERITIES, 'never'] as const;
export type FailOn = Severity | 'never';

export const OUTPUT_FORMATS = ['table', 'json', 'markdown'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];
