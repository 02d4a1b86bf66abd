import { parseLogLine } from './controller-logs.ts';
import { oneLine, ShapeError } from '../domain/shape.ts';

/** A file that holds what kubectl or the AWS CLI printed instead of an output: `saved` is that error, one line. */
export class SavedCliError extends ShapeError {
  readonly saved: string;
  constructor(message: string, saved: string, options?: { cause?: unknown }) {
    super(message, options);
    this.saved = saved;
  }
}

/** The first line of `text` that is kubectl's or the AWS CLI's own failure, one line; undefined when none is. */
export function savedCliError(text: string): string | undefined {
  const error = firstLines(text, 8, KLOG_LINE)
    .map(cliError)
    .find((e) => e !== undefined);
  return error === undefined ? undefined : oneLine(error, 300);
}

/**
 * What users paste or redirect instead of a JSON/YAML output, and what to capture instead.
 * Consulted only for files that are no output at all, to say why in one line.
 */
export function diagnoseNotAnOutput(text: string): string | undefined {
  const lines = firstLines(text, 8);
  const [first, second] = lines;
  if (first === undefined) return undefined;
  const withoutKlog = firstLines(text, 8, KLOG_LINE);
  for (const diagnosis of DIAGNOSES) {
    const problem = diagnosis(first, second, lines, withoutKlog);
    if (problem) return problem;
  }
  return undefined;
}

/** `withoutKlog`: the first lines that are not client-go log lines (kubectl's `E0108 ...` before its error). */
type Diagnosis = (
  first: string,
  second: string | undefined,
  lines: readonly string[],
  withoutKlog: readonly string[],
) => string | undefined;

export const LOOKS_LIKE_LOGS =
  'looks like controller logs (controller logs need a .log suffix: kubectl logs ... > karpenter.log)';

const GET_JSON = 'capture it with `kubectl get ... -o json` (or -o yaml)';

const DIAGNOSES: readonly Diagnosis[] = [
  (first) =>
    /^<(?:!doctype html|html[\s>]|head[\s>]|body[\s>])/i.test(first)
      ? 'an HTML page, not a kubectl or aws CLI output (saved from a browser? save the raw file instead)'
      : undefined,
  (first) => (/^<\?xml\s/i.test(first) ? 'an XML file, not a kubectl or aws CLI output' : undefined),
  (first) => (/^#!/.test(first) ? 'a script, not a kubectl or aws CLI output' : undefined),
  (_first, _second, _lines, withoutKlog) => {
    const error = withoutKlog.map(cliError).find((e) => e !== undefined);
    return error
      ? `holds an error instead of an output (${oneLine(error, 160)}): capture it again once the command works`
      : undefined;
  },
  (first, second) =>
    /^-{10,}$/.test(first) && second !== undefined && /^\|.*\|$/.test(second)
      ? 'AWS CLI table output: run the command again with --output json'
      : undefined,
  (first) => (/^[A-Z][A-Z_]+\t/.test(first) ? 'AWS CLI text output: run the command again with --output json' : undefined),
  (first) => (isKubectlTableHeader(first) ? `\`kubectl get\` table output: ${GET_JSON}` : undefined),
  (first, _second, lines) =>
    /^Name:\s+\S/.test(first) && lines.some((l) => /^(?:Namespace|Labels|Annotations|API Version|Kind|Status|Events):/.test(l))
      ? '`kubectl describe` output: capture it with `kubectl get ... -o yaml`'
      : undefined,
  (_first, _second, lines) =>
    lines.every((l) => /^[a-z0-9.-]+\/[A-Za-z0-9._:-]+$/.test(l))
      ? `only names (\`kubectl get -o name\`): ${GET_JSON}`
      : undefined,
  (_first, _second, lines) => (lines.some(looksLikeLogLine) ? LOOKS_LIKE_LOGS : undefined),
];

/**
 * kubectl's and the AWS CLI's own failures (the ones naming a source the loader can tell are read
 * as gaps before this is asked).
 */
function cliError(line: string): string | undefined {
  const patterns = [
    /^error: .+/, // kubectl: error: You must be logged in to the server (Unauthorized)
    /^Error from server(?: \(\w+\))?: .+/,
    /^Unable to connect to the server: .+/,
    /^The connection to the server .+ was refused.*/,
    /^An error occurred \([^)]+\) when calling the \w+ operation.*/,
    /^Unable to locate credentials.*/,
    // AWS CLI v1 with no region configured, and with AWS_PROFILE naming no profile.
    /^You must specify a region\..*/,
    /^The config profile \([^)]*\) could not be found$/,
    /^Could not connect to the endpoint URL: .+/,
    /^aws: error: .+/,
    /^(?:usage|Usage): (?:aws|kubectl) .+/,
    /^Error when retrieving token from sso: .+/,
    /^The SSO session associated with this profile has expired.*/,
  ];
  return patterns.map((p) => p.exec(line)?.[0]).find((m) => m !== undefined);
}

/** `NAME   READY   STATUS ...`, `NAMESPACE   NAME ...`, `LAST SEEN   TYPE   REASON ...`. */
function isKubectlTableHeader(line: string): boolean {
  const columns = line.trim().split(/ {2,}|\t/);
  return columns.length >= 2 && columns.every((c) => /^[A-Z][A-Z0-9_()%/.-]*(?: [A-Z][A-Z0-9_()%/.-]*)?$/.test(c));
}

function looksLikeLogLine(line: string): boolean {
  const parsed = parseLogLine(line, '');
  return parsed.level !== undefined && (parsed.time !== undefined || /^[IWEF]\d{4} /.test(line));
}

/**
 * client-go's log lines, which kubectl prints before its error when it cannot reach the server
 * (kubectl 1.32: up to 7 `E1129 00:17:39.497375   11426 memcache.go:265] ...` lines).
 */
const KLOG_LINE = /^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ \S+:\d+\] /;

/** The first `count` lines that are not blank (nor match `skip`), trimmed at the end. */
function firstLines(text: string, count: number, skip?: RegExp): string[] {
  const lines: string[] = [];
  let start = 0;
  while (lines.length < count && start < text.length) {
    const end = text.indexOf('\n', start);
    const line = text.slice(start, end < 0 ? text.length : end).trimEnd();
    start = end < 0 ? text.length : end + 1;
    if (line.trim() !== '' && !skip?.test(line)) lines.push(line.length > 4096 ? line.slice(0, 4096) : line);
  }
  return lines;
}
