import type { CaptureContent } from './capture-content.ts';
import { parseJsonValues } from './json-values.ts';
import { oneLine, ShapeError } from '../domain/shape.ts';
import { dropUnusedFields } from '../domain/unused-fields.ts';
import { parseYamlDocuments } from './yaml-documents.ts';
import { checkYamlItems } from './yaml-items.ts';

/**
 * A capture file's content → its top-level values (one per YAML document; one per JSON value,
 * which kubectl and the AWS CLI print one of, and `>>` or `jq` several of). Kubernetes objects
 * come without the fields no detector reads (see dropUnusedFields).
 */
export function parseDocuments(content: CaptureContent): unknown[] {
  const first = firstNonBlank(content);
  if (first === '{' || first === '[') {
    // kubectl and the AWS CLI never print YAML starting with a brace: such a file is JSON, and
    // reading broken JSON as flow-style YAML would hide the mistake.
    const parsed = parseJsonValues(content.open(), dropUnusedFields, {
      maxElements: Math.floor(content.maxBytes / BYTES_PER_ITEM),
    });
    return Array.isArray(parsed) ? parsed : throwJsonError(content, parsed.invalidAt);
  }
  const text = content.text();
  checkYamlItems(text, Math.floor(content.maxBytes / BYTES_PER_YAML_ITEM));
  return parseYamlDocuments(text);
}

/**
 * The fewest bytes a list item takes as kubectl and the AWS CLI print them (an Event is about
 * 1 kB, a Pod several): a file holds at most its size over this many. 2 million in 1 GiB.
 */
const BYTES_PER_ITEM = 512;

/**
 * The same for YAML, where every list item is counted, nested ones too, and every comma and brace
 * (yaml-items.ts): 16 million in 1 GiB. `kubectl get -o yaml` Lists hold one per 100 to 300 bytes
 * (BENCHMARKS.md, the -o yaml twin); 16 million values parsed by js-yaml take about 2 GB.
 */
const BYTES_PER_YAML_ITEM = 64;

function firstNonBlank(content: CaptureContent): string | undefined {
  const inHead = content.head.find((c) => !isSpace(c));
  if (inHead !== undefined) return String.fromCharCode(inHead);
  // All blank so far: read on, a piece at a time, holding none of it.
  const reader = content.open();
  try {
    for (let piece = reader.next(); piece !== undefined; piece = reader.next()) {
      const first = piece.find((c) => !isSpace(c));
      if (first !== undefined) return String.fromCharCode(first);
    }
    return undefined;
  } finally {
    reader.close();
  }
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** Invalid JSON up to this size is parsed again whole for V8's message and the line. */
const MAX_REREAD_BYTES = 64 * 1024 * 1024;

/**
 * The JSON is invalid: V8's message for it, with the line in the file. Values one after another
 * are parsed in turn, so the line is right for an error in any of them.
 */
function throwJsonError(content: CaptureContent, invalidAt: number): never {
  // Large: V8 would need the whole file as one string to say more than the reader did.
  const whereOnly = () => new ShapeError(`not JSON or YAML (invalid JSON in the value starting at byte ${invalidAt})`);
  if (!content.hasAtMost(MAX_REREAD_BYTES)) throw whereOnly();
  let text: string;
  try {
    text = content.text();
  } catch (error) {
    throw new ShapeError(whereOnly().message, { cause: error });
  }
  let offset = 0;
  let line = 1;
  for (;;) {
    const rest = offset === 0 ? text : text.slice(offset);
    try {
      JSON.parse(rest);
    } catch (error) {
      const next = /^Unexpected non-whitespace character after JSON at position (\d+)/.exec(errorMessage(error))?.[1];
      if (next !== undefined && Number(next) > 0) {
        line += linesIn(rest, Number(next));
        offset += Number(next);
        continue;
      }
      throw new ShapeError(`not JSON or YAML (${describeJsonError(error, rest, line - 1)})`, { cause: error });
    }
    // Valid after all: only the reader's byte scan disagreed. Never expected; say so plainly.
    throw new ShapeError('not JSON or YAML (could not be split into values)');
  }
}

/** V8's JSON errors, made one line and free of quoted file content. */
function describeJsonError(error: unknown, text: string, linesBefore: number): string {
  const message = errorMessage(error);
  const lineColumn = /\(line (\d+) column \d+\)/.exec(message);
  const position = /at position (\d+)/.exec(message);
  const offset = position?.[1]
    ? Number(position[1])
    : message.includes('Unexpected end of JSON input')
      ? text.trimEnd().length
      : undefined;
  const line = lineColumn?.[1] ? Number(lineColumn[1]) : offset === undefined ? undefined : 1 + linesIn(text, offset);
  // `Unexpected token 's', ..."oken": s3cr3t}" is not valid JSON`: never echo file content.
  const what = message
    .replace(/(?:, )?(?:\.\.\.)?".*"(?:\.\.\.)? is not valid JSON$/s, '')
    .replace(/ in JSON at position \d+.*$/s, '')
    .replace(/ \(line \d+ column \d+\)/, '');
  return `${line ? `line ${line + linesBefore}: ` : ''}${oneLine(what) || 'not valid JSON'}`;
}

function linesIn(text: string, end: number): number {
  let lines = 0;
  const stop = Math.min(end, text.length);
  for (let i = 0; i < stop; i++) if (text.charCodeAt(i) === 10) lines++;
  return lines;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
