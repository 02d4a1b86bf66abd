import { tooManyItems } from './size-limit.ts';

/**
 * Refuses YAML text holding more than `maxItems` list items, before any of it is parsed: js-yaml
 * holds an event for every node and then every value, so 80 MB of `items: [{},{},…]` (40 million
 * entries) took the process past V8's heap limit.
 *
 * One pass over the text, holding nothing. Counted: every `-` standing alone (a block sequence
 * entry, `- `), every `[` and `{` and every comma. Quoting, comments and block scalars are not
 * followed: a count that knew them could be led to skip what js-yaml then reads as structure, and
 * this one errs only high (a comma in a message counts). Mapping members are not counted, as the
 * JSON reader does not count them either. Nesting depth and aliases are js-yaml's to refuse
 * (yaml-documents.ts).
 */
export function checkYamlItems(text: string, maxItems: number): void {
  let count = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === COMMA || c === OPEN_BRACKET || c === OPEN_BRACE) count++;
    else if (
      c === DASH &&
      (i === 0 || isSpace(text.charCodeAt(i - 1))) &&
      (i + 1 === length || isSpace(text.charCodeAt(i + 1)))
    ) {
      count++;
    } else continue;
    if (count > maxItems) throw tooManyItems(maxItems);
  }
}

const COMMA = 0x2c;
const OPEN_BRACKET = 0x5b;
const OPEN_BRACE = 0x7b;
const DASH = 0x2d;

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}
