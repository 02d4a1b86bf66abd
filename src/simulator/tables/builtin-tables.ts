/**
 * The columns the API server prints for the built-in kinds the simulator serves (kubectl get
 * nodes, deployments, replicasets, events, namespaces, configmaps, pdb, services,
 * volumeattachments), as Kubernetes' pkg/printers/internalversion/printers.go declares and fills
 * them, and the default NAME / CREATED AT table of a kind without a printer.
 */
import { isRecord, type JsonRecord } from '../../domain/shape.ts';
import type { SimResourceName } from '../kube-store.ts';
import { coreEvent } from '../core-events.ts';
import { ageOf } from './age.ts';
import { selectorArg } from '../../domain/kube-helpers.ts';
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

/**
 * A workload's selector as the printers show it (`k=v,k2 in (a,b)`); `<none>` when it selects by
 * nothing, `<invalid>` for an operator a selector cannot have (as LabelSelectorAsSelector fails).
 */
function selectorText(selector: unknown): string {
  const { matchLabels, matchExpressions } = record(selector);
  const arg = selectorArg({
    matchLabels: Object.fromEntries(Object.entries(record(matchLabels)).map(([k, v]) => [k, text(v)])),
    matchExpressions: list(matchExpressions).map((e) => ({
      key: text(e.key),
      operator: text(e.operator),
      values: Array.isArray(e.values) ? e.values.map(text) : [],
    })),
  });
  return arg === undefined ? '<invalid>' : arg || '<none>';
}

const DEPLOYMENTS: TableKind = {
  columns: [NAME, column('Ready'), column('Up-to-date'), column('Available'), AGE, ...WORKLOAD_WIDE],
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
    { ...NAME, priority: 1 },
  ],
  cells(stored, now) {
    const event = coreEvent(stored);
    const involved = record(event.involvedObject);
    const source = record(event.source);
    const series = record(event.series);
    const firstSeen = text(event.firstTimestamp) || text(event.eventTime);
    const lastSeen = text(series.lastObservedTime) || text(event.lastTimestamp) || firstSeen;
    // Singleton events (events.k8s.io without a series) have no count: the printer shows 1.
    const count = isRecord(event.series) ? number(series.count) : number(event.count) || 1;
    const kind = text(involved.kind).toLowerCase();
    const name = text(involved.name);
    return [
      ageOf(lastSeen, now),
      text(event.type),
      text(event.reason),
      name === '' ? kind : `${kind}/${name}`,
      text(involved.fieldPath),
      sourceOf(text(source.component) || text(event.reportingComponent), text(source.host) || text(event.reportingInstance)),
      text(event.message).trim(),
      ageOf(firstSeen, now),
      count,
      nameOf(event),
    ];
  },
};

/** `component, host`; the component alone without a host (formatEventSource). */
function sourceOf(component: string, host: string): string {
  return host === '' ? component : `${component}, ${host}`;
}

const NAMESPACES: TableKind = {
  columns: [NAME, column('Status'), AGE],
  cells: (namespace, now) => [nameOf(namespace), text(record(namespace.status).phase), ageOfObject(namespace, now)],
};

const CONFIG_MAPS: TableKind = {
  columns: [NAME, column('Data'), AGE],
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

const SERVICES: TableKind = {
  columns: [NAME, column('Type'), column('Cluster-IP'), column('External-IP'), column('Port(s)'), AGE, column('Selector', 1)],
  cells(service, now) {
    const spec = record(service.spec);
    const type = text(spec.type) || 'ClusterIP';
    const clusterIps = Array.isArray(spec.clusterIPs) ? spec.clusterIPs.map(text) : [];
    const ports = list(spec.ports).map((port) => {
      const protocol = text(port.protocol) || 'TCP';
      const nodePort = number(port.nodePort);
      return nodePort > 0 ? `${number(port.port)}:${nodePort}/${protocol}` : `${number(port.port)}/${protocol}`;
    });
    const selector = Object.entries(record(spec.selector))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, value]) => `${key}=${text(value)}`);
    return [
      nameOf(service),
      type,
      clusterIps[0] || text(spec.clusterIP) || '<none>',
      externalIpOf(type, spec, record(service.status)),
      ports.join(',') || '<none>',
      ageOfObject(service, now),
      selector.join(',') || '<none>',
    ];
  },
};

/** The EXTERNAL-IP cell: external IPs, and for a LoadBalancer its ingress (`<pending>` before it has one). */
function externalIpOf(type: string, spec: JsonRecord, status: JsonRecord): string {
  const externalIps = Array.isArray(spec.externalIPs) ? spec.externalIPs.map(text) : [];
  if (type === 'ClusterIP' || type === 'NodePort') return externalIps.join(',') || '<none>';
  if (type === 'ExternalName') return text(spec.externalName);
  if (type !== 'LoadBalancer') return '<unknown>';
  const ingress = list(record(status.loadBalancer).ingress).map((i) => text(i.ip) || text(i.hostname));
  const balancers = [...new Set(ingress.filter((i) => i !== ''))].sort();
  return [...balancers, ...externalIps].join(',') || '<pending>';
}

const VOLUME_ATTACHMENTS: TableKind = {
  columns: [
    NAME,
    { name: 'Attacher', type: 'string', format: 'name', priority: 0 },
    column('PV'),
    column('Node'),
    column('Attached', 0, 'boolean'),
    AGE,
  ],
  cells(attachment, now) {
    const spec = record(attachment.spec);
    return [
      nameOf(attachment),
      text(spec.attacher),
      text(record(spec.source).persistentVolumeName),
      text(spec.nodeName),
      record(attachment.status).attached === true,
      ageOfObject(attachment, now),
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
  services: SERVICES,
  volumeattachments: VOLUME_ATTACHMENTS,
};

/** The API server's table for a kind without a printer: the name and when it was created. */
export const DEFAULT_TABLE: TableKind = {
  columns: [NAME, { name: 'Created At', type: 'date', priority: 0 }],
  cells: (object) => [nameOf(object), text(record(object.metadata).creationTimestamp)],
};
