/**
 * The simulated API server as kubectl v1.32 (/usr/bin/kubectl) sees it: discovery, lists, field
 * selectors and a rollout restart must work as against a real cluster.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKubeApiServer, type SimulatedKubeApi } from '../../src/simulator/kube-api-server.ts';
import { storeFromSnapshot } from '../../src/simulator/seed.ts';
import { cluster, snapshotOf } from '../factories/aws.ts';
import { snapshotFromFiles } from '../../src/snapshot/load.ts';
import { nodeClaim } from '../factories/karpenter.ts';
import { event, karpenterDeployment, karpenterPod, node, pdb, pod, volumeAttachment } from '../factories/kube.ts';

const run = promisify(execFile);
const PDB = pdb({ name: 'web', namespace: 'shop', matchLabels: { app: 'web' }, maxUnavailable: '25%' });
const ATTACHMENT = volumeAttachment({ name: 'csi-0a1b2c', nodeName: 'n1', persistentVolumeName: 'pvc-0a1b' });
let api: SimulatedKubeApi;
let dir: string;

beforeAll(async () => {
  const snapshot = snapshotOf({
    cluster: cluster({ version: '1.32' }),
    pods: [
      karpenterPod({ name: 'karpenter-5697769d6c-a', nodeName: 'n1' }),
      pod({ name: 'web-1', namespace: 'shop', nodeName: 'n1' }),
      pod({ name: 'web-2', namespace: 'shop' }),
    ],
    deployments: [karpenterDeployment()],
    nodes: [node({ name: 'n1' })],
    pdbs: [PDB],
    volumeAttachments: [ATTACHMENT],
    nodeClaims: [nodeClaim({ name: 'default-abc', instanceId: 'i-0abc' }), nodeClaim({ name: 'default-def' })],
    events: [
      {
        // kubectl describe selects events by the pod's uid too
        ...event({
          kind: 'Pod',
          name: 'web-2',
          namespace: 'shop',
          reason: 'FailedScheduling',
          message: '0/1 nodes are available: 1 node(s) had untolerated taint {workload-type: system}.',
        }),
        regarding: { kind: 'Pod', namespace: 'shop', name: 'web-2', uid: 'uid-web-2' },
      },
    ],
  });
  api = await startKubeApiServer(storeFromSnapshot(snapshot));
  dir = await mkdtemp(join(tmpdir(), 'sim-kubectl-'));
  await writeFile(join(dir, 'kubeconfig'), api.kubeconfig());
});

afterAll(async () => {
  await api.close();
  await rm(dir, { recursive: true, force: true });
});

async function kubectl(...args: string[]): Promise<string> {
  const { stdout } = await run('kubectl', ['--kubeconfig', join(dir, 'kubeconfig'), '--cache-dir', join(dir, 'cache'), ...args], {
    timeout: 15_000,
    env: { ...process.env, HOME: dir, KUBECONFIG: join(dir, 'kubeconfig') },
  });
  return stdout;
}

describe('kubectl v1.32 against the simulator', () => {
  it('get pods -A lists every pod with its namespace', async () => {
    const out = await kubectl('get', 'pods', '-A');

    const rows = out.trim().split('\n');
    expect(rows[0]).toMatch(/^NAMESPACE\s+NAME\s/);
    expect(rows.slice(1).map((r) => r.split(/\s+/).slice(0, 2).join('/'))).toEqual([
      'karpenter/karpenter-5697769d6c-a',
      'shop/web-1',
      'shop/web-2',
    ]);
  });

  it('get pdb -A and get volumeattachments print what the loader reads back as the seeded objects', async () => {
    const pdbs = await kubectl('get', 'pdb', '-A', '-o', 'json');
    const attachments = await kubectl('get', 'volumeattachments', '-o', 'json');
    const one = await kubectl('get', 'poddisruptionbudget', 'web', '-n', 'shop', '-o', 'json');

    const { snapshot } = snapshotFromFiles([
      { path: 'pdb.json', text: pdbs },
      { path: 'volumeattachments.json', text: attachments },
    ]);
    const strip = <T extends { metadata?: object }>(o: T) => ({ ...o, metadata: { ...o.metadata, resourceVersion: undefined } });
    expect(snapshot.pdbs.map(strip)).toEqual([strip(PDB)]);
    expect(snapshot.volumeAttachments.map(strip)).toEqual([strip(ATTACHMENT)]);
    expect(JSON.parse(one)).toMatchObject({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', status: PDB.status });
  });

  it('get nodeclaims finds the custom resource through discovery', async () => {
    const out = await kubectl('get', 'nodeclaims');

    expect(out).toMatch(/^NAME\s/);
    expect(out).toContain('default-abc');
    expect(out).toContain('default-def');
  });

  it('get pods -A --field-selector=status.phase=Pending -o json prints only the pending pod', async () => {
    const out = await kubectl('get', 'pods', '-A', '--field-selector=status.phase=Pending', '-o', 'json');

    const list = JSON.parse(out) as { items: { kind: string; metadata: { namespace: string; name: string } }[] };
    expect(list.items.map((i) => `${i.kind} ${i.metadata.namespace}/${i.metadata.name}`)).toEqual(['Pod shop/web-2']);
  });

  it('rollout restart deployment/karpenter sets restartedAt on the pod template', async () => {
    const out = await kubectl('rollout', 'restart', 'deployment/karpenter', '-n', 'karpenter');

    const stored = api.store.get('deployments', 'karpenter', 'karpenter')?.object as {
      metadata: { generation: number };
      spec: { template: { metadata: { annotations?: Record<string, string> } } };
    };
    expect(out.trim()).toBe('deployment.apps/karpenter restarted');
    expect(stored.spec.template.metadata.annotations?.['kubectl.kubernetes.io/restartedAt']).toMatch(
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/,
    );
    expect(stored.metadata.generation).toBe(2);
  });

  it('describe pod shows the events about the pod', async () => {
    const out = await kubectl('describe', 'pod', 'web-2', '-n', 'shop');

    expect(out).toMatch(/Warning\s+FailedScheduling\s+.*default-scheduler\s+0\/1 nodes are available/);
  });

  it('logs and a NotFound error read as they do from a real cluster', async () => {
    api.store.setPodLog('karpenter', 'karpenter-5697769d6c-a', ['one', 'two', 'three']);

    const log = await kubectl('logs', '-n', 'karpenter', 'karpenter-5697769d6c-a', '--tail=2');
    const missing = kubectl('get', 'nodepool', 'gpu');

    expect(log).toBe('two\nthree\n');
    await expect(missing).rejects.toMatchObject({
      stderr: expect.stringContaining('Error from server (NotFound): nodepools.karpenter.sh "gpu" not found'),
    });
  });
});
