/**
 * The API server's printer for admission webhook configurations (Kubernetes'
 * pkg/printers/internalversion/printers.go): `NAME WEBHOOKS AGE`, the number of webhooks in each.
 * EndpointSlices and Endpoints keep the default table (`NAME CREATED AT`; docs/simulator.md).
 */
import type { JsonRecord } from '../../domain/shape.ts';
import type { SimResourceName } from '../kube-store.ts';
import { ageOf } from './age.ts';
import { record, text } from './fields.ts';
import type { TableKind } from './table-kind.ts';

const WEBHOOK_CONFIGURATIONS: TableKind = {
  columns: [
    { name: 'Name', type: 'string', format: 'name', priority: 0 },
    { name: 'Webhooks', type: 'integer', priority: 0 },
    { name: 'Age', type: 'string', priority: 0 },
  ],
  cells: (object: JsonRecord, now: Date) => [
    text(record(object.metadata).name),
    Array.isArray(object.webhooks) ? object.webhooks.length : 0,
    ageOf(record(object.metadata).creationTimestamp, now),
  ],
};

export const WEBHOOK_TABLES: Partial<Record<SimResourceName, TableKind>> = {
  validatingwebhookconfigurations: WEBHOOK_CONFIGURATIONS,
  mutatingwebhookconfigurations: WEBHOOK_CONFIGURATIONS,
};
