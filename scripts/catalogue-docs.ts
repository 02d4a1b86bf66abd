/**
 * The docs tables read from the finding catalogue (scripts/catalogue-tables.ts).
 *
 * Usage: `npm run docs:catalogue [-- --write]`
 *   without --write  name each doc whose tables differ from the catalogue (exit 1 if any)
 *   --write          rewrite those tables, between their markers
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { expectedDocs } from './catalogue-tables.ts';

const { values } = parseArgs({ options: { write: { type: 'boolean' } } });
let stale = 0;
for (const [doc, { now, expected }] of await expectedDocs()) {
  if (now === expected) continue;
  stale += 1;
  if (values.write) writeFileSync(join(import.meta.dirname, '..', doc), expected);
  process.stdout.write(`${doc}: ${values.write ? 'rewritten' : 'differs from the catalogue'}\n`);
}
if (stale > 0 && !values.write) process.exitCode = 1;
