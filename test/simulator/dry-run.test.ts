/**
 * `dryRun` on every write the simulated API server takes: what real `kubectl --dry-run=server`
 * sends (the option in the query for create, apply and patch; in the DeleteOptions body for delete)
 * and raw HTTP. The answer says what would happen; the store is left exactly as it was.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startKubeApiServer, type SimulatedKubeApi } from '../../src/simulator/kube-api-server.ts';
import type { SimResourceName } from '../../src/simulator/kube-store.ts';
import { storeFromSnapshot } from '../../src/simulator/seed.ts';
import { cluster, snapshotOf } from '../factories/aws.ts';
import { nodePool } from '../factories/karpenter.ts';
import { karpenterDeployment, pod } from '../factories/kube.ts';
import { call } from './support/https-client.ts';

const run = promisify(execFile);
let api: SimulatedKubeApi;
let dir: string;

beforeAll(async () => {
  const snapshot = snapshotOf({
    cluster: cluster({ version: '1.32' }),
    pods: [pod({ name: 'web-1', namespace: 'shop', nodeName: 'n1' })],
    deployments: [karpenterDeployment()],
    nodePools: [nodePool({ name: 'spot-pool' })],
  });
  api = await startKubeApiServer(storeFromSnapshot(snapshot));
  dir = await mkdtemp(join(tmpdir(), 'sim-dry-run-'));
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

const RESOURCES: SimResourceName[] = ['pods', 'deployments', 'nodepools', 'namespaces'];

/** Every object of the resources these tests write, as stored (resourceVersion included). */
function stored(): string {
  return JSON.stringify(RESOURCES.map((r) => api.store.list(r).map((o) => o.object)));
}

let before: string;
beforeEach(() => {
  before = stored();
});

/** The simulator serves no OpenAPI document, which kubectl's client-side validation downloads. */
const NO_OPENAPI = '--validate=false';
const POD_PATH = '/api/v1/namespaces/shop/pods/web-1';
const NODEPOOL_PATH = '/apis/karpenter.sh/v1/nodepools/spot-pool';

describe('kubectl --dry-run=server changes nothing', () => {
  it('delete: kubectl says deleted (server dry run), the pod is still there', async () => {
    const out = await kubectl('delete', 'pod', 'web-1', '-n', 'shop', '--dry-run=server');

    expect(out).toBe('pod "web-1" deleted (server dry run)\n');
    expect(stored()).toBe(before);
    expect(api.store.get('pods', 'web-1', 'shop')).toBeDefined();
  });

  it('delete of a custom resource (a NodePool): still there', async () => {
    await kubectl('delete', 'nodepool', 'spot-pool', '--dry-run=server');

    expect(api.store.get('nodepools', 'spot-pool')).toBeDefined();
    expect(stored()).toBe(before);
  });

  it('patch: kubectl prints the patched object, the stored one is unchanged', async () => {
    const out = await kubectl(
      'patch',
      'deployment',
      'karpenter',
      '-n',
      'karpenter',
      '--type',
      'merge',
      '-p',
      '{"spec":{"replicas":7}}',
      '--dry-run=server',
      '-o',
      'json',
    );

    expect((JSON.parse(out) as { spec: { replicas: number } }).spec.replicas).toBe(7);
    expect(stored()).toBe(before);
  });

  it('apply of a changed object: the result shows the change, nothing is stored', async () => {
    const manifest = join(dir, 'web-1.json');
    await writeFile(
      manifest,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'web-1', namespace: 'shop', labels: { tier: 'changed' } },
      }),
    );

    const out = await kubectl('apply', '-f', manifest, NO_OPENAPI, '--dry-run=server', '-o', 'json');

    expect((JSON.parse(out) as { metadata: { labels: Record<string, string> } }).metadata.labels).toMatchObject({
      tier: 'changed',
    });
    expect(stored()).toBe(before);
  });

  it('create (and apply of a new object): kubectl says created (server dry run), nothing exists after', async () => {
    const manifest = join(dir, 'new-pod.json');
    await writeFile(
      manifest,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'new-pod', namespace: 'shop' },
        spec: { containers: [{ name: 'app', image: 'nginx', env: [{ name: 'A', value: 'b' }] }] },
      }),
    );

    const created = await kubectl('create', '-f', manifest, NO_OPENAPI, '--dry-run=server');
    const applied = await kubectl('apply', '-f', manifest, NO_OPENAPI, '--dry-run=server');

    expect(created).toBe('pod/new-pod created (server dry run)\n');
    expect(applied).toBe('pod/new-pod created (server dry run)\n');
    expect(api.store.get('pods', 'new-pod', 'shop')).toBeUndefined();
    expect(stored()).toBe(before);
  });

  it('without --dry-run the same create does create (the dry run is what kept it out)', async () => {
    const manifest = join(dir, 'real-pod.json');
    await writeFile(
      manifest,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'real-pod', namespace: 'shop' },
        spec: { containers: [] },
      }),
    );

    await kubectl('create', '-f', manifest, NO_OPENAPI);

    expect(api.store.get('pods', 'real-pod', 'shop')).toBeDefined();
    api.store.delete('pods', 'real-pod', 'shop');
  });
});

describe('dryRun over raw HTTP', () => {
  it('DELETE with DeleteOptions {"dryRun":["All"]} in the body: 200, the object stays', async () => {
    const response = await call(api, NODEPOOL_PATH, {
      method: 'DELETE',
      body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background', dryRun: ['All'] },
      contentType: 'application/json',
    });

    expect(response.status).toBe(200);
    expect(response.json()).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'spot-pool' } });
    expect(stored()).toBe(before);
  });

  it('DELETE with ?dryRun=All: the object stays', async () => {
    const response = await call(api, `${POD_PATH}?dryRun=All`, { method: 'DELETE' });

    expect(response.status).toBe(200);
    expect(stored()).toBe(before);
  });

  it('POST ?dryRun=All: 201 with the object as it would be stored, nothing stored', async () => {
    const response = await call(api, '/api/v1/namespaces/shop/pods?dryRun=All', {
      method: 'POST',
      body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'raw' }, spec: { containers: [] } },
      contentType: 'application/json',
    });

    expect(response.status).toBe(201);
    expect(response.json()).toMatchObject({ kind: 'Pod', metadata: { name: 'raw', namespace: 'shop' } });
    expect(stored()).toBe(before);
  });

  it('PUT ?dryRun=All: the replaced object answered, the stored one unchanged', async () => {
    const current = (await call(api, POD_PATH)).json() as Record<string, unknown>;

    const response = await call(api, `${POD_PATH}?dryRun=All`, {
      method: 'PUT',
      body: { ...current, metadata: { ...(current.metadata as object), labels: { replaced: 'yes' } } },
      contentType: 'application/json',
    });

    expect(response.status).toBe(200);
    expect(response.json()).toMatchObject({ metadata: { labels: { replaced: 'yes' } } });
    expect(stored()).toBe(before);
  });

  it('PATCH ?dryRun=All: the patched object answered, the stored one unchanged', async () => {
    const response = await call(api, `${NODEPOOL_PATH}?dryRun=All`, {
      method: 'PATCH',
      body: { metadata: { labels: { patched: 'yes' } } },
      contentType: 'application/merge-patch+json',
    });

    expect(response.status).toBe(200);
    expect(response.json()).toMatchObject({ metadata: { labels: { patched: 'yes' } } });
    expect(stored()).toBe(before);
  });

  it('an unknown dryRun value is refused (400), never taken as a real write', async () => {
    const inQuery = await call(api, `${POD_PATH}?dryRun=Everything`, { method: 'DELETE' });
    const inBody = await call(api, POD_PATH, { method: 'DELETE', body: { dryRun: ['Some'] }, contentType: 'application/json' });

    expect(inQuery.status).toBe(400);
    expect(inQuery.json()).toMatchObject({ message: 'dryRun: Unsupported value: "Everything": supported values: "All"' });
    expect(inBody.status).toBe(400);
    expect(stored()).toBe(before);
  });

  it('a deletecollection is not served (405): nothing is removed', async () => {
    const response = await call(api, '/api/v1/namespaces/shop/pods?dryRun=All', { method: 'DELETE' });

    expect(response.status).toBe(405);
    expect(stored()).toBe(before);
  });
});
