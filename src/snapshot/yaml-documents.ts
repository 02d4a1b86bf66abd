import { CORE_SCHEMA, loadAll, YAMLException } from 'js-yaml';
import { MAX_NESTING } from '../domain/json-checks.ts';
import { oneLine, ShapeError } from '../domain/shape.ts';
import { dropUnusedFieldsThroughout } from '../domain/unused-fields.ts';

/**
 * YAML capture text → its non-empty documents, objects trimmed by `dropUnusedFields`.
 *
 * Parsing a document whole holds its whole parse (js-yaml's event stream; the `yaml` package used
 * before held a syntax tree at some 50 times the text), and a `kubectl get pods -A -o yaml` of a
 * large cluster is one document. So the `items:` list of a document (how kubectl prints every
 * List) is cut into its entries, each parsed on its own; the rest of the text, with a marker where the list was, is
 * parsed as before and the entries are put back in its place.
 *
 * Cutting is sound for valid YAML: an entry's content is indented deeper than its `- `, and a
 * line at or left of that column ends the list. Anything unusual (or invalid) falls back to
 * parsing the text whole, which also gives the authoritative error message.
 */
export function parseYamlDocuments(text: string, options: { wholeParseLimit?: number } = {}): unknown[] {
  const wholeParseLimit = options.wholeParseLimit ?? WHOLE_PARSE_LIMIT;
  const cut = cutItemLists(text);
  if (cut.lists.length === 0) return parseYamlText(text, (line) => line);
  try {
    const entries = cut.lists.map(parseEntries(text));
    const documents = parseYamlText(cut.skeleton, cut.originalLine);
    let restored = 0;
    for (const document of documents) {
      if (typeof document !== 'object' || document === null || !('items' in document)) continue;
      const index = markerIndex(document.items);
      const items = index === undefined ? undefined : entries[index];
      if (items) {
        document.items = items;
        restored++;
      }
    }
    if (restored === cut.lists.length) return documents;
  } catch (error) {
    if (!(error instanceof ShapeError) || text.length > wholeParseLimit) throw error;
  }
  return parseYamlText(text, (line) => line);
}

/** Up to this size a file whose lists could not be cut is parsed whole (its parse held whole in memory). */
const WHOLE_PARSE_LIMIT = 8 * 1024 * 1024;
const MARKER_PREFIX = '\u0000karpenter-sentinel-items-';

function markerIndex(value: unknown): number | undefined {
  return typeof value === 'string' && value.startsWith(MARKER_PREFIX) ? Number(value.slice(MARKER_PREFIX.length)) : undefined;
}

/** Parses YAML text whole; `originalLine` maps a line of `text` to the line of the file. */
function parseYamlText(text: string, originalLine: (line: number) => number): unknown[] {
  let parsed: unknown[];
  try {
    // kubectl and the AWS CLI never write aliases; refusing them also rules out alias bombs
    // (billion laughs: js-yaml shares an aliased value, but every walk over it would not).
    parsed = loadAll(text, { schema: CORE_SCHEMA, maxAliases: 0, maxDepth: MAX_DEPTH });
  } catch (error) {
    throw new ShapeError(`not JSON or YAML (${yamlProblem(error, originalLine)})`, { cause: error });
  }
  const documents: unknown[] = [];
  for (const value of parsed) if (value !== null && value !== undefined) documents.push(dropUnusedFieldsThroughout(value));
  return documents;
}

/** Deeper than any Kubernetes object or CRD schema; js-yaml's default (100) is not. */
const MAX_DEPTH = MAX_NESTING;

function yamlProblem(error: unknown, originalLine: (line: number) => number): string {
  if (!(error instanceof YAMLException)) return oneLine(errorMessage(error));
  if (error.reason.startsWith('aliases exceeded maxAliases')) return 'YAML aliases (*name) are not supported';
  const where = error.mark ? `line ${originalLine(error.mark.line + 1)}: ` : '';
  return `${where}${oneLine(error.reason)}`;
}

interface Line {
  start: number;
  /** 1-based. */
  number: number;
}

interface ItemList {
  /** The `items:` line. */
  key: Line;
  /** Column of the entries' `-`. */
  indent: number;
  /** Each entry's first line; an entry ends where the next one (or the list) starts. */
  entries: Line[];
  end: number;
}

interface Cut {
  lists: ItemList[];
  /** The text with each list's lines removed and `items: <marker>` in their place. */
  skeleton: string;
  originalLine: (skeletonLine: number) => number;
}

/** Finds every top-level `items:` block list, reading the text line by line (never splitting it whole). */
function cutItemLists(text: string): Cut {
  const lists: ItemList[] = [];
  const pieces: string[] = [];
  /** From this skeleton line on, add `shift` to get the file's line. */
  const shifts: { from: number; shift: number }[] = [];
  let removed = 0;
  let copiedUpTo = 0;
  let key: Line | undefined;
  let list: ItemList | undefined;

  const close = (current: ItemList, end: number, endLine: number) => {
    current.end = end;
    lists.push(current);
    pieces.push(text.slice(copiedUpTo, current.key.start), `items: "\\0${MARKER_PREFIX.slice(1)}${lists.length - 1}"\n`);
    copiedUpTo = end;
    const markerLine = current.key.number - removed;
    removed += endLine - current.key.number - 1;
    shifts.push({ from: markerLine + 1, shift: removed });
  };

  let number = 0;
  for (let start = 0; start < text.length;) {
    const newline = text.indexOf('\n', start);
    const end = newline < 0 ? text.length : newline;
    const next = newline < 0 ? text.length : newline + 1;
    number++;
    const indent = indentOf(text, start, end);
    const first = text.charCodeAt(start + indent);
    const blank = start + indent === end || first === 0x0d || first === 0x23; // nothing, or a comment
    if (list) {
      if (blank || indent > list.indent) {
        start = next;
        continue;
      }
      if (indent === list.indent && isEntryStart(text, start + indent, end)) {
        list.entries.push({ start, number });
        start = next;
        continue;
      }
      close(list, start, number);
      list = undefined;
    } else if (key && !blank) {
      const entryAt = isEntryStart(text, start + indent, end);
      if (entryAt) list = { key, indent, entries: [{ start, number }], end: text.length };
      key = undefined;
      if (entryAt) {
        start = next;
        continue;
      }
    }
    if (!key && indent === 0 && isItemsKey(text, start, end)) key = { start, number };
    start = next;
  }
  if (list) close(list, text.length, number + 1);
  if (lists.length === 0) return { lists, skeleton: text, originalLine: (l) => l };
  pieces.push(text.slice(copiedUpTo));
  return {
    lists,
    skeleton: pieces.join(''),
    originalLine: (skeletonLine) => skeletonLine + (shifts.findLast((s) => skeletonLine >= s.from)?.shift ?? 0),
  };
}

function indentOf(text: string, start: number, end: number): number {
  let i = start;
  while (i < end && text.charCodeAt(i) === 0x20) i++;
  return i - start;
}

/** `- ...` or a lone `-` at `at`. */
function isEntryStart(text: string, at: number, end: number): boolean {
  if (text.charCodeAt(at) !== 0x2d) return false;
  const next = at + 1 < end ? text.charCodeAt(at + 1) : -1;
  return next === -1 || next === 0x20 || next === 0x0d || next === 0x09;
}

/** `items:` at column 0 with nothing after it but spaces or a comment. */
function isItemsKey(text: string, start: number, end: number): boolean {
  if (!text.startsWith('items:', start)) return false;
  const rest = text.slice(start + 'items:'.length, end).trim();
  return rest === '' || rest.startsWith('#');
}

/** Each entry of a list, parsed on its own and trimmed at once. */
function parseEntries(text: string): (list: ItemList) => unknown[] {
  return (list) => {
    const dedent = list.indent === 0 ? undefined : new RegExp(`^ {1,${list.indent}}`, 'gm');
    return list.entries.map((entry, i) => {
      const raw = text.slice(entry.start, list.entries[i + 1]?.start ?? list.end);
      const values = parseYamlText(dedent ? raw.replace(dedent, '') : raw, (line) => line + entry.number - 1);
      const value = values[0];
      if (values.length !== 1 || !Array.isArray(value) || value.length !== 1) throw new ShapeError('not a list entry');
      return value[0];
    });
  };
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
