/**
 * infra/kubernetes/rbac.yaml: the group karpenter-sentinel may read what the collector reads, patch
 * only the Karpenter Deployment, delete only NodePools (cleanup), and nothing by wildcard.
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
  it('binds every role, and only to the karpenter-sentinel group', () => {
    const bindings = objects.filter((o) => o.kind === 'ClusterRoleBinding' || o.kind === 'RoleBinding');

    expect(bindings.map((b) => b.roleRef?.name).sort()).toEqual(roles.map((r) => r.metadata.name).sort());
    for (const b of bindings) {
      expect(b.subjects).toEqual([{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: GROUP }]);
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
    expect(grantsFor('', 'pods', 'list').filter((g) => g.namespace === '')).toHaveLength(1);
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

  it('deletes only NodePools, in a role of its own for cleanup', () => {
    const deletes = grants.filter((g) => g.rule.verbs?.some((v) => v === 'delete' || v === 'deletecollection'));

    expect(deletes).toHaveLength(1);
    expect(deletes[0]).toMatchObject({
      role: 'karpenter-sentinel-cleanup',
      rule: { apiGroups: ['karpenter.sh'], resources: ['nodepools'], verbs: ['delete'] },
    });
    expect(roles.find((r) => r.metadata.name === 'karpenter-sentinel-cleanup')?.rules).toHaveLength(1);
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
