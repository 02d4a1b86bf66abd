/**
 * infra/kubernetes/rbac.yaml: the group karpenter-sentinel may read what the collector reads and
 * patch only the Karpenter Deployment; the group karpenter-sentinel-cleanup may delete NodePools,
 * watch their NodeClaims go, read the EC2NodeClasses' roles and see whether a controller runs to drain them, nothing else; nothing is granted by wildcard.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { REPO_ROOT } from '../../scripts/bundle.ts';
import { KARPENTER_CRD_NAMES, KUBE_LISTS } from '../../src/collect/kube-sources.ts';
import { KUBE_RESOURCES, type KubeResourceName } from '../../src/ports/kubernetes.ts';

interface Rule {
  apiGroups?: string[];
  resources?: string[];
  verbs?: string[];
  resourceNames?: string[];
}

interface RbacObject {
  kind: string;
  metadata: { name: string; namespace?: string };
  rules?: Rule[];
  roleRef?: { kind: string; name: string };
  subjects?: { kind: string; name: string; apiGroup?: string }[];
}

const GROUP = 'karpenter-sentinel';
const CLEANUP_GROUP = 'karpenter-sentinel-cleanup';
const CLEANUP_ROLE = 'karpenter-sentinel-cleanup';

const objects: RbacObject[] = parseAllDocuments(readFileSync(path.join(REPO_ROOT, 'infra/kubernetes/rbac.yaml'), 'utf8'))
  .map((d) => d.toJS() as RbacObject | null)
  .filter((o): o is RbacObject => o !== null);

const roles = objects.filter((o) => o.kind === 'ClusterRole' || o.kind === 'Role');

/** Each rule with the role that holds it and where it applies ('' = cluster-wide). */
const grants = roles.flatMap((role) =>
  (role.rules ?? []).map((rule) => ({ role: role.metadata.name, namespace: role.metadata.namespace ?? '', rule })),
);

function grantsFor(group: string, resource: string, verb: string) {
  return grants.filter(
    (g) =>
      (g.rule.apiGroups ?? []).includes(group) &&
      (g.rule.resources ?? []).includes(resource) &&
      (g.rule.verbs ?? []).includes(verb),
  );
}

describe('infra/kubernetes/rbac.yaml', () => {
  it('binds every role to one group: the cleanup role to karpenter-sentinel-cleanup, the others to karpenter-sentinel', () => {
    const bindings = objects.filter((o) => o.kind === 'ClusterRoleBinding' || o.kind === 'RoleBinding');

    expect(bindings.map((b) => b.roleRef?.name).sort()).toEqual(roles.map((r) => r.metadata.name).sort());
    for (const b of bindings) {
      const group = b.roleRef?.name === CLEANUP_ROLE ? CLEANUP_GROUP : GROUP;
      expect(b.subjects, b.metadata.name).toEqual([{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: group }]);
      const role = roles.find((r) => r.metadata.name === b.roleRef?.name && r.kind === b.roleRef?.kind);
      expect(role, b.metadata.name).toBeDefined();
      if (b.kind === 'RoleBinding') expect(b.metadata.namespace).toBe(role?.metadata.namespace);
    }
  });

  it('grants nothing by wildcard', () => {
    for (const { role, rule } of grants) {
      const values = [...(rule.apiGroups ?? []), ...(rule.resources ?? []), ...(rule.verbs ?? []), ...(rule.resourceNames ?? [])];
      expect(
        values.filter((v) => v.includes('*')),
        role,
      ).toEqual([]);
    }
  });

  it.each(KUBE_LISTS.flatMap((l) => l.queries))('lets the collector list $resource', (query) => {
    const info = KUBE_RESOURCES[query.resource];

    const matching = grantsFor(info.group, query.resource, 'list').filter(
      (g) => g.namespace === '' || (query.namespace !== undefined && g.namespace === query.namespace),
    );

    expect(matching.length).toBeGreaterThan(0);
  });

  it('lists pods cluster-wide (pending pods, controller pods, all pods when the controller is down)', () => {
    expect(
      grantsFor('', 'pods', 'list').filter((g) => g.namespace === '' && g.role === 'karpenter-sentinel-reader'),
    ).toHaveLength(1);
  });

  it('reads PodDisruptionBudgets and VolumeAttachments by list only, cluster-wide, in the reader role', () => {
    const reads = grants.filter((g) => g.rule.resources?.some((r) => r === 'poddisruptionbudgets' || r === 'volumeattachments'));

    expect(reads.map(({ role, namespace, rule }) => ({ role, namespace, rule }))).toEqual([
      {
        role: 'karpenter-sentinel-reader',
        namespace: '',
        rule: { apiGroups: ['policy'], resources: ['poddisruptionbudgets'], verbs: ['list'] },
      },
      {
        role: 'karpenter-sentinel-reader',
        namespace: '',
        rule: { apiGroups: ['storage.k8s.io'], resources: ['volumeattachments'], verbs: ['list'] },
      },
    ]);
  });

  it('reads the webhook configurations by list, the EndpointSlices by list and Endpoints by get, cluster-wide, in the reader role', () => {
    const reads = grants.filter((g) =>
      g.rule.resources?.some((r) => r.endsWith('webhookconfigurations') || r === 'endpointslices' || r === 'endpoints'),
    );

    expect(reads.map(({ role, namespace, rule }) => ({ role, namespace, rule }))).toEqual([
      {
        role: 'karpenter-sentinel-reader',
        namespace: '',
        rule: {
          apiGroups: ['admissionregistration.k8s.io'],
          resources: ['validatingwebhookconfigurations', 'mutatingwebhookconfigurations'],
          verbs: ['list'],
        },
      },
      {
        role: 'karpenter-sentinel-reader',
        namespace: '',
        rule: { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list'] },
      },
      { role: 'karpenter-sentinel-reader', namespace: '', rule: { apiGroups: [''], resources: ['endpoints'], verbs: ['get'] } },
    ]);
    expect(grants.filter((g) => g.rule.resources?.includes('secrets'))).toEqual([]);
  });

  it('reads only the aws-auth ConfigMap, in kube-system', () => {
    const reads = grants.filter((g) => g.rule.resources?.includes('configmaps'));

    expect(reads).toHaveLength(1);
    expect(reads[0]).toMatchObject({ namespace: 'kube-system', rule: { verbs: ['list'], resourceNames: ['aws-auth'] } });
  });

  it('gets only Karpenter’s three CRDs, by name', () => {
    const gets = grantsFor('apiextensions.k8s.io', 'customresourcedefinitions', 'get');

    expect(gets).toHaveLength(1);
    expect(gets[0]?.rule.resourceNames?.sort()).toEqual([...KARPENTER_CRD_NAMES].sort());
    expect(grantsFor('apiextensions.k8s.io', 'customresourcedefinitions', 'list')).toEqual([]);
  });

  it('patches only the Karpenter Deployment, by name, in its namespace', () => {
    const patches = grants.filter((g) => g.rule.verbs?.some((v) => ['patch', 'update'].includes(v)));

    expect(patches).toHaveLength(1);
    expect(patches[0]).toMatchObject({
      namespace: 'karpenter',
      rule: { apiGroups: ['apps'], resources: ['deployments'], resourceNames: ['karpenter'] },
    });
    expect(patches[0]?.rule.verbs).not.toContain('update');
  });

  it('reads controller logs only in the controller’s namespace', () => {
    const logs = grantsFor('', 'pods/log', 'get');

    expect(logs.map((g) => g.namespace)).toEqual(['karpenter']);
  });

  it('deletes only NodePools, in the cleanup role', () => {
    const deletes = grants.filter((g) => g.rule.verbs?.some((v) => v === 'delete' || v === 'deletecollection'));

    expect(deletes).toHaveLength(1);
    expect(deletes[0]).toMatchObject({
      role: CLEANUP_ROLE,
      rule: { apiGroups: ['karpenter.sh'], resources: ['nodepools'], verbs: ['list', 'delete'] },
    });
  });

  it('lets the cleanup group list and delete NodePools, list NodeClaims, EC2NodeClasses and pods, all cluster-wide, and nothing else', () => {
    const cleanup = grants.filter((g) => g.role === CLEANUP_ROLE);

    // pods: whether a Ready controller pod (any namespace) is there to drain the NodeClaims, or waiting is pointless.
    // ec2nodeclasses: the roles an instance profile must hold to be deleted (docs/cleanup.md, step 4).
    expect(cleanup.map((g) => g.namespace)).toEqual(['', '', '', '']);
    expect(cleanup.map((g) => g.rule)).toEqual([
      { apiGroups: ['karpenter.sh'], resources: ['nodepools'], verbs: ['list', 'delete'] },
      { apiGroups: ['karpenter.sh'], resources: ['nodeclaims'], verbs: ['list'] },
      { apiGroups: ['karpenter.k8s.aws'], resources: ['ec2nodeclasses'], verbs: ['list'] },
      { apiGroups: [''], resources: ['pods'], verbs: ['list'] },
    ]);
  });

  it('gives the scan group no delete', () => {
    const scanRoles = new Set(
      objects
        .filter((o) => o.subjects?.some((s) => s.name === GROUP))
        .map((b) => b.roleRef?.name)
        .filter((name): name is string => name !== undefined),
    );

    const deletes = grants.filter((g) => scanRoles.has(g.role) && g.rule.verbs?.includes('delete'));

    expect(scanRoles.size).toBeGreaterThan(0);
    expect(scanRoles.has(CLEANUP_ROLE)).toBe(false);
    expect(deletes).toEqual([]);
  });

  it('never reads Secrets, never watches, never creates', () => {
    const verbs = new Set(grants.flatMap((g) => g.rule.verbs ?? []));
    const resources = new Set(grants.flatMap((g) => g.rule.resources ?? []));

    expect([...verbs].sort()).toEqual(['delete', 'get', 'list', 'patch']);
    expect(resources.has('secrets')).toBe(false);
  });

  it('covers exactly the resources the Kubernetes port reads', () => {
    const granted = new Set(grants.flatMap((g) => (g.rule.resources ?? []).filter((r) => r !== 'pods/log')));

    expect([...granted].sort()).toEqual(Object.keys(KUBE_RESOURCES).sort() as KubeResourceName[]);
  });
});
