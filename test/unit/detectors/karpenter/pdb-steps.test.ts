import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { evictionBlockers } from '../../../../src/detectors/karpenter/eviction-blockers.ts';
import {
  blockingPdbSteps,
  multiplePdbSteps,
  namedPdbSteps,
  operatorOwner,
  ownerNote,
} from '../../../../src/detectors/karpenter/pdb-steps.ts';
import type { Pod, PodDisruptionBudget } from '../../../../src/domain/kube.ts';
import { pdb, pod } from '../../../factories/kube.ts';

const CNPG = fileURLToPath(new URL('../../../incidents/cnpg-single-instance-primary-pdb/', import.meta.url));
const items = <T>(file: string): T[] => (JSON.parse(readFileSync(`${CNPG}${file}`, 'utf8')) as { items: T[] }).items;
const NOW = new Date('2026-09-11T12:00:00Z');

/** The incident's own PDB and pods: CloudNativePG's `<cluster>-primary` PDB owned by its `Cluster`. */
function cnpgBlockers() {
  return evictionBlockers(items<Pod>('pods.json'), items<PodDisruptionBudget>('pdb.json'), NOW);
}

function ownedBy(p: PodDisruptionBudget, apiVersion: string, kind: string, name: string): PodDisruptionBudget {
  return { ...p, metadata: { ...p.metadata, ownerReferences: [{ apiVersion, kind, name, controller: true }] } };
}

const web = pod({
  name: 'web-7d4b9c8f6d-x2x1q',
  namespace: 'shop',
  labels: { app: 'web', 'pod-template-hash': '7d4b9c8f6d' },
  ownerReplicaSet: 'web-7d4b9c8f6d',
});
const webPdb = pdb({ name: 'web', namespace: 'shop', matchLabels: { app: 'web' }, disruptionsAllowed: 0, expectedPods: 1 });

describe('PDB steps: an operator-managed PDB', () => {
  it("CloudNativePG's primary PDB (the cnpg incident): names its Cluster and gives the Cluster's settings and the pod delete, never a PDB patch or delete", () => {
    // Prepare
    const blockers = cnpgBlockers();

    // Act
    const steps = blockingPdbSteps(blockers.pdbBlocked).join('\n');

    // Assess
    expect(blockers.pdbBlocked.map((b) => b.pdb.metadata?.name)).toEqual(['notifications-db-primary']);
    expect(steps).not.toMatch(/kubectl (patch|edit|delete) pdb/);
    expect(steps).not.toContain('kubectl scale');
    expect(steps).toContain('managed by Cluster notifications-db (postgresql.cnpg.io)');
    expect(steps).toContain('kubectl get cluster.postgresql.cnpg.io -n notifications notifications-db -o yaml');
    expect(steps).toContain(
      `kubectl patch cluster.postgresql.cnpg.io -n notifications notifications-db --type merge -p '{"spec":{"instances":2}}'`,
    );
    expect(steps).toContain('kubectl delete pod -n notifications notifications-db-1');
  });

  it("says in the finding's detail that a patch is reverted, and says nothing for a PDB no operator owns", () => {
    // Prepare
    const owned = cnpgBlockers().pdbBlocked.map((b) => b.pdb);

    // Act
    const note = ownerNote(owned);

    // Assess
    expect(note).toContain('notifications/notifications-db-primary is managed by Cluster notifications-db (postgresql.cnpg.io)');
    expect(note).toContain('reverted');
    expect(ownerNote([webPdb])).toBe('');
  });

  it("another operator's PDB: the owner to change, no CloudNativePG field, no PDB patch", () => {
    // Prepare
    const owned = ownedBy(webPdb, 'kafka.strimzi.io/v1beta2', 'Kafka', 'events');

    // Act
    const steps = blockingPdbSteps([{ pdb: owned, pods: [web] }]).join('\n');

    // Assess
    expect(steps).toContain('kubectl get kafka.kafka.strimzi.io -n shop events -o yaml');
    expect(steps).not.toContain('"instances"');
    expect(steps).not.toContain('"enablePDB"');
    expect(steps).not.toMatch(/kubectl (patch|delete) pdb/);
    expect(steps).toContain('kubectl delete pod -n shop web-7d4b9c8f6d-x2x1q');
  });

  it('an owner of a built-in kind reconciles nothing: the PDB patch and the scale stay', () => {
    // Prepare
    const gcOnly = ownedBy(webPdb, 'apps/v1', 'Deployment', 'web');

    // Act
    const steps = blockingPdbSteps([{ pdb: gcOnly, pods: [web] }]).join('\n');

    // Assess
    expect(operatorOwner(gcOnly)).toBeUndefined();
    expect(steps).toContain('kubectl scale deployment -n shop web --replicas=2');
    expect(steps).toContain('kubectl patch pdb -n shop web');
  });

  it('a bare pod (nothing recreates it) is never offered for deletion', () => {
    // Prepare
    const bare = pod({ name: 'one-off', namespace: 'shop', labels: { app: 'web' } });
    const owned = ownedBy(webPdb, 'example.io/v1', 'App', 'shop');

    // Act
    const steps = blockingPdbSteps([{ pdb: owned, pods: [bare] }]).join('\n');

    // Assess
    expect(steps).not.toContain('kubectl delete pod');
  });
});

describe('PDB steps: a pod under several PDBs', () => {
  const legacy = pdb({ name: 'web-legacy', namespace: 'shop', matchLabels: { app: 'web' } });

  it('deletes the unowned duplicate and keeps the operator-managed one', () => {
    // Prepare
    const owned = ownedBy(webPdb, 'example.io/v1', 'App', 'shop');

    // Act
    const steps = multiplePdbSteps([{ pod: web, pdbs: [legacy, owned] }]).join('\n');

    // Assess
    expect(steps).toContain('kubectl delete pdb -n shop web-legacy');
    expect(steps).not.toMatch(/kubectl delete pdb -n shop web$/m);
    expect(steps).toContain("keep the operator's web");
  });

  it('two operator-managed PDBs: no delete at all, their owners to change', () => {
    // Prepare
    const a = ownedBy(webPdb, 'example.io/v1', 'App', 'shop');
    const b = ownedBy(legacy, 'other.io/v1', 'Site', 'shop');

    // Act
    const steps = multiplePdbSteps([{ pod: web, pdbs: [a, b] }]).join('\n');

    // Assess
    expect(steps).not.toContain('kubectl delete pdb');
    expect(steps).toContain('kubectl get app.example.io -n shop shop -o yaml');
    expect(steps).toContain('kubectl get site.other.io -n shop shop -o yaml');
  });

  it('no owner: merge into one and delete the others, as before', () => {
    // Act
    const steps = multiplePdbSteps([{ pod: web, pdbs: [webPdb, legacy] }]).join('\n');

    // Assess
    expect(steps).toContain('kubectl delete pdb -n shop web-legacy');
  });
});

describe('PDB steps: a PDB named only by an event', () => {
  it('looks at its ownerReferences before the patch, which is conditional on there being none', () => {
    // Act
    const [look, patch] = namedPdbSteps('istio-system/istiod');

    // Assess
    expect(look).toContain('kubectl get pdb -n istio-system istiod -o yaml');
    expect(look).toContain('ownerReferences');
    expect(patch).toMatch(/^# only if it has no ownerReferences/);
  });
});
