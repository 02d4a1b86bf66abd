/** The bundled examples' Karpenter logs carry timestamps Karpenter's zap logger could print (RFC 3339). */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const EXAMPLES = new URL('../../examples/', import.meta.url).pathname;
const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z$/;

describe('examples: Karpenter log timestamps', () => {
  it('every JSON line of every example log has a well-formed time', () => {
    const malformed: string[] = [];
    for (const example of readdirSync(EXAMPLES, { withFileTypes: true }).filter((e) => e.isDirectory())) {
      for (const file of readdirSync(join(EXAMPLES, example.name)).filter((f) => f.endsWith('.log'))) {
        for (const line of readFileSync(join(EXAMPLES, example.name, file), 'utf8').split('\n')) {
          if (!line.startsWith('{')) continue;
          const time: unknown = (JSON.parse(line) as { time?: unknown }).time;
          if (typeof time === 'string' && !RFC3339.test(time)) malformed.push(`${example.name}/${file}: ${time}`);
        }
      }
    }
    expect(malformed).toEqual([]);
  });
});
