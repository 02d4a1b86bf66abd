/** What a kind's Table is made of (table.ts), apart so the printers can name it without a cycle. */

import type { JsonRecord } from '../../domain/shape.ts';

export interface ColumnDefinition {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  format?: 'name';
  priority: 0 | 1;
}

/** How one kind prints: its columns and one object's cells, in that order. */
export interface TableKind {
  columns: readonly ColumnDefinition[];
  cells(object: JsonRecord, now: Date): unknown[];
}
