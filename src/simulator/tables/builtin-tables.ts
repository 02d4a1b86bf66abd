/**
 * The columns the API server prints for the built-in kinds the simulator serves (kubectl get
 * nodes, deployments, replicasets, events, namespaces, configmaps, pdb), and the default
 * NAME / CREATED AT table of a kind without a printer.
 */
import type { JsonRecord } from '../../domain/shape.ts';
import type { SimResourceName } from '../kube-store.ts';
import { coreEvent } from '../core-events.ts';
import { ageOf } from './age.ts';
import { list, number, record, text } from './fields.ts';
import { podCells, POD_COLUMNS } from './pod-row.ts';
import type { ColumnDefinition, TableKind } from './table-kind.ts';

const NAME: ColumnDefinition = { name: 'Name', type: 'string', format: 'name', priority: 0 };
const AGE: ColumnDefinition = { name: 'Age', type: 'string', priority: 0 };

function column(name: string, priority: 0 | 1 = 0, type: ColumnDefinition['type'] = 'string'): ColumnDefinition {
  return { name, type, priority };
}

const nameOf = (object: JsonRecord) => text(record(object.metadata).name);
const ageOfObject = (object: JsonRecord, now: Date) => ageOf(record(object.metadata).creationTimestamp, now);

const NODES: TableKind = {
  columns: [
    NAME,
    column('Status'),
    column('Roles'),
    AGE,
    column('Version'),
    column('Internal-IP', 1),
    column('External-IP', 1),
    column('OS-Image', 1),
    column('Kernel-Version', 1),
    column('Container-Runtime', 1),
  ],
  cells(node, now) {
    const spec = record(node.spec);
    const status = record(node.status);
    const ready = list(status.conditions).find((c) => c.type === 'Ready');
    const states = [ready === undefined ? 'Unknown' : ready.status === 'True' ? 'Ready' : 'NotReady'];
    if (spec.unschedulable === true) states.push('SchedulingDisabled');
    const info = record(status.nodeInfo);
    const address = (type: string) => text(list(status.addresses).find((a) => a.type === type)?.address) || '<none>';
    return [
      nameOf(node),
      states.join(','),
      rolesOf(record(record(node.metadata).labels)),
      ageOfObject(node, now),
      text(info.kubeletVersion),
      address('InternalIP'),
      address('ExternalIP'),
      text(info.osImage) || '<unknown>',
      text(info.kernelVersion) || '<unknown>',
      text(info.containerRuntimeVersion) || '<unknown>',
    ];
  },
};

/** `node-role.kubernetes.io/<role>` labels and `kubernetes.io/role`, sorted; `<none>` without. */
function rolesOf(labels: JsonRecord): string {
  const roles = new Set<string>();
  for (const [key, value] of Object.entries(labels)) {
    if (key.startsWith('node-role.kubernetes.io/')) roles.add(key.slice('node-role.kubernetes.io/'.length));
    else if (key === 'kubernetes.io/role' && typeof value === 'string' && value !== '') roles.add(value);
  }
  return roles.size === 0 ? '<none>' : [...roles].sort().join(',');
}

const WORKLOAD_WIDE = [column('Containers', 1), column('Images', 1), column('Selector', 1)];

function workloadWide(object: JsonRecord): string[] {
  const spec = record(object.spec);
  const containers = list(record(record(spec.template).spec).containers);
  return [
    containers.map((c) => text(c.name)).join(','),
    containers.map((c) => text(c.image)).join(','),
    selectorText(spec.selector),
  ];
}

/** A label selector as kubectl prints it: `k=v,k2 in (a,b)`; `<none>` when it selects by nothing. */
function selectorText(selector: unknown): string {
  const { matchLabels, matchExpressions } = record(selector);
  const parts = Object.entries(record(matchLabels)).map(([k, v]) => `${k}=${text(v)}`);
  for (const e of list(matchExpressions)) {
    const values = Array.isArray(e.values) ? e.values.map(text).join(',') : '';
    const op = text(e.operator);
    if (op === 'Exists') parts.push(text(e.key));
    else if (op === 'DoesNotExist') parts.push(`!${text(e.key)}`);
    else parts.push(`${text(e.key)} ${op === 'NotIn' ? 'notin' : 'in'} (${values})`);
  }
  return parts.length === 0 ? '<none>' : parts.join(',');
}

const DEPLOYMENTS: TableKind = {
  columns: [NAME, column('Ready'), column('Up-to-date', 0, 'integer'), column('Available', 0, 'integer'), AGE, ...WORKLOAD_WIDE],
  cells(deployment, now) {
    const spec = record(deployment.spec);
    const status = record(deployment.status);
    const desired = typeof spec.replicas === 'number' ? spec.replicas : 1;
    return [
      nameOf(deployment),
      `${number(status.readyReplicas)}/${desired}`,
      number(status.updatedReplicas),
      number(status.availableReplicas),
      ageOfObject(deployment, now),
      ...workloadWide(deployment),
    ];
  },
};

const REPLICA_SETS: TableKind = {
  columns: [
    NAME,
    column('Desired', 0, 'integer'),
    column('Current', 0, 'integer'),
    column('Ready', 0, 'integer'),
    AGE,
    ...WORKLOAD_WIDE,
  ],
  cells(replicaSet, now) {
    const spec = record(replicaSet.spec);
    const status = record(replicaSet.status);
    return [
      nameOf(replicaSet),
      typeof spec.replicas === 'number' ? spec.replicas : 1,
      number(status.replicas),
      number(status.readyReplicas),
      ageOfObject(replicaSet, now),
      ...workloadWide(replicaSet),
    ];
  },
};

/** Events are stored in events.k8s.io/v1 shape; both API versions print the same columns. */
const EVENTS: TableKind = {
  columns: [
    column('Last Seen'),
    column('Type'),
    column('Reason'),
    column('Object'),
    column('Subobject', 1),
    column('Source', 1),
    column('Message'),
    column('First Seen', 1),
    column('Count', 1),
    column('Name', 1),
  ],
  cells(stored, now) {
    const event = coreEvent(stored);
    const involved = record(event.involvedObject);
    const source = record(event.source);
    const series = record(event.series);
    const firstSeen = text(event.firstTimestamp) || text(event.eventTime);
    const lastSeen = text(series.lastObservedTime) || text(event.lastTimestamp) || firstSeen;
    const count = typeof series.count === 'number' ? series.count : typeof event.count === 'number' ? event.count : 1;
    return [
      ageOf(lastSeen, now),
      text(event.type),
      text(event.reason),
      `${text(involved.kind).toLowerCase()}/${text(involved.name)}`,
      text(involved.fieldPath),
      [text(source.component) || text(event.reportingComponent), text(source.host) || text(event.reportingInstance)]
        .filter((s) => s !== '')
        .join(', '),
      text(event.message),
      ageOf(firstSeen, now),
      String(count),
      nameOf(event),
    ];
  },
};

const NAMESPACES: TableKind = {
  columns: [NAME, column('Status'), AGE],
  cells: (namespace, now) => [nameOf(namespace), text(record(namespace.status).phase), ageOfObject(namespace, now)],
};

const CONFIG_MAPS: TableKind = {
  columns: [NAME, column('Data', 0, 'integer'), AGE],
  cells: (configMap, now) => [
    nameOf(configMap),
    Object.keys(record(configMap.data)).length + Object.keys(record(configMap.binaryData)).length,
    ageOfObject(configMap, now),
  ],
};

const PDBS: TableKind = {
  columns: [NAME, column('Min Available'), column('Max Unavailable'), column('Allowed Disruptions', 0, 'integer'), AGE],
  cells(pdb, now) {
    const spec = record(pdb.spec);
    const shown = (value: unknown) => (value === undefined || value === null ? 'N/A' : String(value as string | number));
    return [
      nameOf(pdb),
      shown(spec.minAvailable),
      shown(spec.maxUnavailable),
      number(record(pdb.status).disruptionsAllowed),
      ageOfObject(pdb, now),
    ];
  },
};

const PODS: TableKind = { columns: POD_COLUMNS, cells: podCells };

export const BUILTIN_TABLES: Partial<Record<SimResourceName, TableKind>> = {
  pods: PODS,
  nodes: NODES,
  deployments: DEPLOYMENTS,
  replicasets: REPLICA_SETS,
  events: EVENTS,
  namespaces: NAMESPACES,
  configmaps: CONFIG_MAPS,
  poddisruptionbudgets: PDBS,
};

/** The API server's table for a kind without a printer: the name and when it was created. */
export const DEFAULT_TABLE: TableKind = {
  columns: [NAME, { name: 'Created At', type: 'date', priority: 0 }],
  cells: (object) => [nameOf(object), text(record(object.metadata).creationTimestamp)],
};
