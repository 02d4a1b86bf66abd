/**
 * Server-side printing: `meta.k8s.io/v1` Table answers for clients that ask for them (kubectl
 * sends `Accept: application/json;as=Table;v=v1;g=meta.k8s.io,...`), with the columns the API
 * server prints for each kind. The API server always sends the wide (priority 1) columns; kubectl
 * shows them with `-o wide`. Each row carries the object as `includeObject` asks: its metadata
 * (kubectl's default, for the NAMESPACE column and labels), the whole object, or nothing.
 */
import { isRecord, type JsonRecord } from '../../domain/shape.ts';
import type { SimResourceName } from '../kube-store.ts';
import { badRequest } from '../status.ts';
import { BUILTIN_TABLES, DEFAULT_TABLE } from './builtin-tables.ts';
import { KARPENTER_TABLES } from './karpenter-tables.ts';
import { WEBHOOK_TABLES } from './webhook-tables.ts';
import type { ColumnDefinition, TableKind } from './table-kind.ts';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

const TABLES: Partial<Record<SimResourceName, TableKind>> = { ...BUILTIN_TABLES, ...KARPENTER_TABLES, ...WEBHOOK_TABLES };

/** True when the first acceptable media type the server can give is a Table (as kubectl asks). */
export function wantsTable(accept: string): boolean {
  for (const entry of accept.split(',')) {
    const [type = '', ...params] = entry.split(';').map((p) => p.trim());
    const values = new Map(params.map((p) => p.split('=').map((s) => s.trim()) as [string, string]));
    if (values.get('as') === 'Table') {
      if (values.get('g') === 'meta.k8s.io' && (values.get('v') === 'v1' || values.get('v') === 'v1beta1')) return true;
      continue;
    }
    if (type === 'application/json' || type === '*/*' || type === 'application/*') return false;
  }
  return false;
}

export function includeObjectOf(query: URLSearchParams): IncludeObject {
  const value = query.get('includeObject') ?? 'Metadata';
  if (value === 'None' || value === 'Metadata' || value === 'Object') return value;
  throw badRequest(`includeObject: Unsupported value: "${value}": supported values: "Metadata", "None", "Object"`);
}

function tableKindOf(resource: SimResourceName): TableKind {
  return TABLES[resource] ?? DEFAULT_TABLE;
}

export interface TableOptions {
  include: IncludeObject;
  now: Date;
  /** The list's metadata (resourceVersion, continue); a single object's table has its own. */
  listMetadata?: JsonRecord;
  /** Watch events after the first leave the column definitions out, as the API server does. */
  columns?: boolean;
  /** How a row's whole object is shown when it is served as another API version (core/v1 Events). */
  render?: (object: JsonRecord) => JsonRecord;
}

export function tableOf(resource: SimResourceName, objects: readonly JsonRecord[], options: TableOptions): JsonRecord {
  const kind = tableKindOf(resource);
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: options.listMetadata ?? {},
    columnDefinitions: options.columns === false ? null : kind.columns.map(columnDocument),
    rows: objects.map((object) => ({
      cells: kind.cells(object, options.now),
      ...(options.include === 'None' ? {} : { object: rowObject(options.render?.(object) ?? object, options.include) }),
    })),
  };
}

function columnDocument(column: ColumnDefinition): JsonRecord {
  return { name: column.name, type: column.type, format: column.format ?? '', description: '', priority: column.priority };
}

function rowObject(object: JsonRecord, include: IncludeObject): JsonRecord {
  if (include === 'Object') return object;
  return {
    kind: 'PartialObjectMetadata',
    apiVersion: 'meta.k8s.io/v1',
    metadata: isRecord(object.metadata) ? object.metadata : {},
  };
}
