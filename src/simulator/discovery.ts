/**
 * Legacy (unaggregated) discovery documents: /api, /api/v1, /apis, /apis/{group}[/{version}].
 * Clients asking for aggregated discovery get these too and fall back, as with an older server.
 */
import { CORE_EVENTS_RESOURCE } from './core-events.ts';
import { SIM_RESOURCES, type SimResourceName } from './kube-store.ts';

const VERBS = ['create', 'delete', 'get', 'list', 'patch', 'update'];

const SHORT_NAMES: Partial<Record<SimResourceName, string[]>> = {
  pods: ['po'],
  deployments: ['deploy'],
  replicasets: ['rs'],
  nodes: ['no'],
  configmaps: ['cm'],
  services: ['svc'],
  customresourcedefinitions: ['crd', 'crds'],
  namespaces: ['ns'],
  poddisruptionbudgets: ['pdb'],
  endpoints: ['ep'],
};

const CATEGORIES: Partial<Record<SimResourceName, string[]>> = {
  pods: ['all'],
  deployments: ['all'],
  replicasets: ['all'],
  services: ['all'],
  nodeclaims: ['karpenter'],
  nodepools: ['karpenter'],
  ec2nodeclasses: ['karpenter'],
};

function resourcesOf(group: string, version: string): SimResourceName[] {
  return (Object.keys(SIM_RESOURCES) as SimResourceName[]).filter(
    (r) => SIM_RESOURCES[r].group === group && SIM_RESOURCES[r].version === version,
  );
}

/** Group names served, core ('') excluded, sorted. */
function servedGroups(): string[] {
  return [...new Set(Object.values(SIM_RESOURCES).map((r) => r.group))].filter((g) => g !== '').sort();
}

function versionsOf(group: string): string[] {
  return [
    ...new Set(
      Object.values(SIM_RESOURCES)
        .filter((r) => r.group === group)
        .map((r) => r.version),
    ),
  ];
}

/** The resource behind `/api/v1/...` or `/apis/{group}/{version}/...`, if served. */
export function resourceAt(group: string, version: string, plural: string): SimResourceName | undefined {
  return resourcesOf(group, version).find((r) => r === plural);
}

export function apiVersionsDocument(serverAddress: string): string {
  return JSON.stringify({
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  });
}

function groupDocument(group: string): Record<string, unknown> {
  const versions = versionsOf(group).map((version) => ({ groupVersion: `${group}/${version}`, version }));
  return { name: group, versions, preferredVersion: versions[0] };
}

export function apiGroupListDocument(): string {
  return JSON.stringify({ kind: 'APIGroupList', apiVersion: 'v1', groups: servedGroups().map(groupDocument) });
}

export function apiGroupDocument(group: string): string | undefined {
  if (!servedGroups().includes(group)) return undefined;
  return JSON.stringify({ kind: 'APIGroup', apiVersion: 'v1', ...groupDocument(group) });
}

export function apiResourceListDocument(group: string, version: string): string | undefined {
  const resources = resourcesOf(group, version);
  if (resources.length === 0) return undefined;
  const entries = resources.flatMap((name) => {
    const info = SIM_RESOURCES[name];
    const entry = {
      name,
      singularName: info.kind.toLowerCase(),
      namespaced: info.namespaced,
      kind: info.kind,
      verbs: VERBS,
      ...(SHORT_NAMES[name] ? { shortNames: SHORT_NAMES[name] } : {}),
      ...(CATEGORIES[name] ? { categories: CATEGORIES[name] } : {}),
    };
    const log = { name: 'pods/log', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get'] };
    return name === 'pods' ? [entry, log] : [entry];
  });
  if (group === '' && version === 'v1') entries.push(CORE_EVENTS_RESOURCE);
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return JSON.stringify({
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: group ? `${group}/${version}` : version,
    resources: entries,
  });
}
