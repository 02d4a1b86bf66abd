import { tooManyItems } from './size-limit.ts';

/**
 * Refuses YAML text holding more than `maxItems` list items, before any of it is parsed: js-yaml
 * holds an event for every node and then every value, so 80 MB of `items: [{},{},…]` (40 million
 * entries) took the process past V8's heap limit.
 *
 * Native searches over the text, holding nothing (about 60 ms for the 93 MB pods.yaml of the
 * benchmark's -o yaml twin). Counted: every `-` standing alone (a block sequence entry, `- `),
 * every `[` and `{` and every comma. Quoting, comments and block scalars are not followed: a count
 * that knew them could be led to skip what js-yaml then reads as structure, and this one errs only
 * high (a comma in a message counts). Mapping members are not counted, as the JSON reader does not
 * count them either. Nesting depth and aliases are js-yaml's to refuse (yaml-documents.ts).
 */
export function checkYamlItems(text: string, maxItems: number): void {
  let count = 0;
  // A native search per character: a few passes over the text cost less than one loop in JS.
  for (const c of ',[{') {
    for (let i = text.indexOf(c); i >= 0; i = text.indexOf(c, i + 1)) {
      if (++count > maxItems) throw tooManyItems(maxItems);
    }
  }
  for (let i = text.indexOf('-'); i >= 0; i = text.indexOf('-', i + 1)) {
    if ((i > 0 && !isSpace(text.charCodeAt(i - 1))) || (i + 1 < text.length && !isSpace(text.charCodeAt(i + 1)))) continue;
    if (++count > maxItems) throw tooManyItems(maxItems);
  }
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}
