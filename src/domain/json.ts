/** A parsed JSON/YAML object whose fields are not yet checked. */
export type JsonRecord = Record<string, unknown>;

/**
 * `JSON.stringify(value)` for JSON data of any depth. V8's JSON.stringify recurses and throws
 * RangeError a few thousand levels down; past that, the value is written with a stack of its
 * own. The same text: `undefined`, functions and symbols are left out of objects and are `null`
 * in lists, `toJSON` is honoured at the levels JSON.stringify still reaches (capture data has none
 * deeper).
 */
export function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
  }
  const out: string[] = [];
  const stack: { list?: readonly unknown[]; record?: Record<string, unknown>; keys?: string[]; next: number; wrote: boolean }[] =
    [];
  const begin = (v: unknown): void => {
    if (typeof v !== 'object' || v === null || typeof (v as { toJSON?: unknown }).toJSON === 'function') {
      out.push(JSON.stringify(v) ?? 'null');
    } else if (Array.isArray(v)) {
      out.push('[');
      stack.push({ list: v, next: 0, wrote: false });
    } else {
      out.push('{');
      const record = v as Record<string, unknown>;
      stack.push({ record, keys: Object.keys(record), next: 0, wrote: false });
    }
  };
  begin(value);
  for (let top = stack.at(-1); top !== undefined; top = stack.at(-1)) {
    if (top.list) {
      if (top.next >= top.list.length) {
        out.push(']');
        stack.pop();
        continue;
      }
      if (top.next > 0) out.push(',');
      begin(top.list[top.next++]);
      continue;
    }
    const record = top.record as Record<string, unknown>;
    const keys = top.keys as string[];
    let key: string | undefined;
    while (key === undefined && top.next < keys.length) {
      const candidate = keys[top.next++] as string;
      const v = record[candidate];
      if (v !== undefined && typeof v !== 'function' && typeof v !== 'symbol') key = candidate;
    }
    if (key === undefined) {
      out.push('}');
      stack.pop();
      continue;
    }
    if (top.wrote) out.push(',');
    top.wrote = true;
    out.push(JSON.stringify(key), ':');
    begin(record[key]);
  }
  return out.join('');
}
