/**
 * Karpenter's kinds print the `additionalPrinterColumns` of their CRDs (karpenter.sh v1
 * pkg/apis/crds/karpenter.sh_nodepools.yaml and karpenter.sh_nodeclaims.yaml,
 * karpenter-provider-aws pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml): a Name column,
 * then each column's JSONPath evaluated on the object; a path that finds nothing is an empty cell.
 */
import type { JsonRecord } from '../../domain/shape.ts';
import type { SimResourceName } from '../kube-store.ts';
import { ageOf } from './age.ts';
import { list, record, text } from './fields.ts';
import type { ColumnDefinition, TableKind } from './table-kind.ts';

interface PrinterColumn {
  name: string;
  type: ColumnDefinition['type'];
  priority: 0 | 1;
  /** The CRD's jsonPath, as a path of field names; a `{type}` step picks the condition of that type. */
  path: readonly (string | { condition: string })[];
}

const READY = { condition: 'Ready' };
const AGE_PATH = ['metadata', 'creationTimestamp'];

const NODEPOOL_COLUMNS: readonly PrinterColumn[] = [
  { name: 'NodeClass', type: 'string', priority: 0, path: ['spec', 'template', 'spec', 'nodeClassRef', 'name'] },
  { name: 'Nodes', type: 'string', priority: 0, path: ['status', 'nodes'] },
  { name: 'Ready', type: 'string', priority: 0, path: ['status', 'conditions', READY, 'status'] },
  { name: 'Age', type: 'date', priority: 0, path: AGE_PATH },
  { name: 'Weight', type: 'integer', priority: 1, path: ['spec', 'weight'] },
  { name: 'CPU', type: 'string', priority: 1, path: ['status', 'resources', 'cpu'] },
  { name: 'Memory', type: 'string', priority: 1, path: ['status', 'resources', 'memory'] },
];

const NODECLAIM_COLUMNS: readonly PrinterColumn[] = [
  { name: 'Type', type: 'string', priority: 0, path: ['metadata', 'labels', 'node.kubernetes.io/instance-type'] },
  { name: 'Capacity', type: 'string', priority: 0, path: ['metadata', 'labels', 'karpenter.sh/capacity-type'] },
  { name: 'Zone', type: 'string', priority: 0, path: ['metadata', 'labels', 'topology.kubernetes.io/zone'] },
  { name: 'Node', type: 'string', priority: 0, path: ['status', 'nodeName'] },
  { name: 'Ready', type: 'string', priority: 0, path: ['status', 'conditions', READY, 'status'] },
  { name: 'Age', type: 'date', priority: 0, path: AGE_PATH },
  { name: 'ImageID', type: 'string', priority: 1, path: ['status', 'imageID'] },
  { name: 'ID', type: 'string', priority: 1, path: ['status', 'providerID'] },
  { name: 'NodePool', type: 'string', priority: 1, path: ['metadata', 'labels', 'karpenter.sh/nodepool'] },
  { name: 'NodeClass', type: 'string', priority: 1, path: ['spec', 'nodeClassRef', 'name'] },
  { name: 'Drifted', type: 'string', priority: 1, path: ['status', 'conditions', { condition: 'Drifted' }, 'status'] },
];

const EC2NODECLASS_COLUMNS: readonly PrinterColumn[] = [
  { name: 'Ready', type: 'string', priority: 0, path: ['status', 'conditions', READY, 'status'] },
  { name: 'Age', type: 'date', priority: 0, path: AGE_PATH },
  { name: 'Role', type: 'string', priority: 1, path: ['spec', 'role'] },
];

function crdTable(columns: readonly PrinterColumn[]): TableKind {
  return {
    columns: [
      { name: 'Name', type: 'string', format: 'name', priority: 0 },
      ...columns.map(({ name, type, priority }) => ({ name, type, priority })),
    ],
    cells: (object, now) => [
      text(record(object.metadata).name),
      ...columns.map((c) => {
        const value = valueAt(object, c.path);
        // A date column prints as an age, as kubectl shows the CRD's Age column.
        if (c.type === 'date') return value === undefined ? null : ageOf(value, now);
        return value === undefined ? null : value;
      }),
    ],
  };
}

function valueAt(object: JsonRecord, path: PrinterColumn['path']): unknown {
  let current: unknown = object;
  for (const step of path) {
    if (typeof step === 'string') current = record(current)[step];
    else current = list(current).find((c) => c.type === step.condition);
    if (current === undefined || current === null) return undefined;
  }
  return current;
}

export const KARPENTER_TABLES: Partial<Record<SimResourceName, TableKind>> = {
  nodepools: crdTable(NODEPOOL_COLUMNS),
  nodeclaims: crdTable(NODECLAIM_COLUMNS),
  ec2nodeclasses: crdTable(EC2NODECLASS_COLUMNS),
};
