import { parseAllDocuments } from 'yaml';
import { oneLine, ShapeError } from './shape.ts';

/**
 * Text of one capture file → its top-level values (one per YAML document; one for JSON).
 * JSON.parse when the text looks like JSON: it is an order of magnitude faster than the YAML
 * parser, which matters for `kubectl get pods -A -o json` on large clusters.
 */
export function parseDocuments(text: string): unknown[] {
  const first = firstNonBlank(text);
  if (first === '{' || first === '[') {
    // kubectl and the AWS CLI never print YAML starting with a brace: such a file is JSON, and
    // reading broken JSON as flow-style YAML would hide the mistake.
    try {
      return [JSON.parse(text)];
    } catch (error) {
      throw new ShapeError(`not JSON or YAML (${describeJsonError(error, text)})`, { cause: error });
    }
  }
  return parseYaml(text);
}

function parseYaml(text: string): unknown[] {
  const documents: unknown[] = [];
  let parsed: ReturnType<typeof parseAllDocuments>;
  try {
    parsed = parseAllDocuments(text, { logLevel: 'silent' });
  } catch (error) {
    throw new ShapeError(`not JSON or YAML (${oneLine(errorMessage(error))})`, { cause: error });
  }
  for (const doc of parsed) {
    const problem = doc.errors[0];
    if (problem) {
      const line = problem.linePos?.[0].line;
      const message = oneLine(problem.message.split('\n')[0]?.replace(/ at line \d+, column \d+:?$/, '') ?? problem.code);
      throw new ShapeError(`not JSON or YAML (${line === undefined ? '' : `line ${line}: `}${message})`, { cause: problem });
    }
    let value: unknown;
    try {
      // kubectl and the AWS CLI never write aliases; refusing them also rules out alias bombs and
      // self-referencing (circular) values.
      value = doc.toJS({ maxAliasCount: 0 });
    } catch (error) {
      const why = error instanceof ReferenceError ? 'YAML aliases (*name) are not supported' : oneLine(errorMessage(error));
      throw new ShapeError(`not JSON or YAML (${why})`, { cause: error });
    }
    if (value !== null && value !== undefined) documents.push(value);
  }
  return documents;
}

function firstNonBlank(text: string): string | undefined {
  const match = /\S/.exec(text);
  return match?.[0];
}

/** V8's JSON errors, made one line and free of quoted file content. */
function describeJsonError(error: unknown, text: string): string {
  const message = errorMessage(error);
  const lineColumn = /\(line (\d+) column \d+\)/.exec(message);
  const position = /at position (\d+)/.exec(message);
  const offset = position?.[1]
    ? Number(position[1])
    : message.includes('Unexpected end of JSON input')
      ? text.trimEnd().length
      : undefined;
  const line = lineColumn?.[1] ?? (offset === undefined ? undefined : String(lineAt(text, offset)));
  // `Unexpected token 's', ..."oken": s3cr3t}" is not valid JSON`: never echo file content.
  const what = message
    .replace(/(?:, )?(?:\.\.\.)?".*"(?:\.\.\.)? is not valid JSON$/s, '')
    .replace(/ in JSON at position \d+.*$/s, '')
    .replace(/ \(line \d+ column \d+\)/, '');
  return `${line ? `line ${line}: ` : ''}${oneLine(what) || 'not valid JSON'}`;
}

function lineAt(text: string, offset: number): number {
  let line = 1;
  const end = Math.min(offset, text.length);
  for (let i = 0; i < end; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
