import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startKubeApiServer, type SimulatedKubeApi } from '../../src/simulator/kube-api-server.ts';
import { storeFromSnapshot } from '../../src/simulator/seed.ts';
import { snapshotOf } from '../factories/aws.ts';
import { nodePool } from '../factories/karpenter.ts';
import { karpenterDeployment, karpenterPod } from '../factories/kube.ts';
import { call } from './support/https-client.ts';

const DEPLOYMENT = '/apis/apps/v1/namespaces/karpenter/deployments/karpenter';
const RESTARTED_AT = 'kubectl.kubernetes.io/restartedAt';

let api: SimulatedKubeApi;

beforeEach(async () => {
  const snapshot = snapshotOf({
    deployments: [karpenterDeployment({ restartedAt: '2026-01-01T00:00:00Z' })],
    pods: [karpenterPod({ name: 'karpenter-5697769d6c-a', nodeName: 'n1' })],
    nodePools: [nodePool({ name: 'default' }), nodePool({ name: 'gpu' })],
  });
  api = await startKubeApiServer(storeFromSnapshot(snapshot));
});

afterEach(() => api.close());

interface Meta {
  resourceVersion: string;
  generation?: number;
  annotations?: Record<string, string>;
}
type Deployment = {
  metadata: Meta;
  spec: { replicas: number; template: { metadata: { annotations?: Record<string, string> } } };
};

async function getDeployment(): Promise<Deployment> {
  return (await call(api, DEPLOYMENT)).json() as unknown as Deployment;
}

describe('PATCH', () => {
  it('merge patch sets annotations without touching the others, bumps resourceVersion but not generation', async () => {
    const before = await getDeployment();

    const response = await call(api, DEPLOYMENT, {
      method: 'PATCH',
      body: { metadata: { annotations: { 'sentinel/last': 'x' } } },
      contentType: 'application/merge-patch+json',
    });

    const after = response.json() as unknown as Deployment;
    expect(response.status).toBe(200);
    expect(after.metadata.annotations).toEqual({ 'sentinel/last': 'x' });
    expect(after.spec.template.metadata.annotations).toEqual({ [RESTARTED_AT]: '2026-01-01T00:00:00Z' });
    expect(Number(after.metadata.resourceVersion)).toBeGreaterThan(Number(before.metadata.resourceVersion));
    expect(after.metadata.generation).toBe(before.metadata.generation);
    expect(await getDeployment()).toEqual(after);
  });

  it('a template change (strategic merge patch, as kubectl rollout restart sends) bumps generation', async () => {
    const response = await call(api, DEPLOYMENT, {
      method: 'PATCH',
      body: { spec: { template: { metadata: { annotations: { [RESTARTED_AT]: '2026-01-02T00:00:00Z' } } } } },
      contentType: 'application/strategic-merge-patch+json',
    });

    const after = response.json() as unknown as Deployment;
    expect(after.spec.template.metadata.annotations).toEqual({ [RESTARTED_AT]: '2026-01-02T00:00:00Z' });
    expect(after.metadata.generation).toBe(2);
  });

  it('strategic merge drops directive keys and honours $patch: delete on a map', async () => {
    const response = await call(api, DEPLOYMENT, {
      method: 'PATCH',
      body: { spec: { template: { metadata: { annotations: { $patch: 'delete' } } } } },
      contentType: 'application/strategic-merge-patch+json',
    });

    const after = response.json() as unknown as Deployment & Record<string, unknown>;
    expect(after.spec.template.metadata.annotations).toBeUndefined();
    expect(after.$patch).toBeUndefined();
  });

  it('strategic merge merges containers and env by name (kubectl set image / set env) and leaves the others', async () => {
    const seed = await call(api, DEPLOYMENT, {
      method: 'PATCH',
      body: {
        spec: {
          template: {
            spec: {
              containers: [
                {
                  name: 'main',
                  image: 'app:1',
                  env: [
                    { name: 'A', value: '1' },
                    { name: 'B', value: '2' },
                  ],
                },
                { name: 'sidecar', image: 'proxy:1' },
              ],
            },
          },
        },
      },
    });
    expect(seed.status).toBe(200);

    const response = await call(api, DEPLOYMENT, {
      method: 'PATCH',
      body: {
        spec: { template: { spec: { containers: [{ name: 'main', image: 'app:2', env: [{ name: 'B', value: '3' }] }] } } },
      },
      contentType: 'application/strategic-merge-patch+json',
    });

    const spec = (response.json() as { spec: { template: { spec: { containers: unknown[] } } } }).spec.template.spec;
    expect(response.status).toBe(200);
    expect(spec.containers).toEqual([
      {
        name: 'main',
        image: 'app:2',
        env: [
          { name: 'A', value: '1' },
          { name: 'B', value: '3' },
        ],
      },
      { name: 'sidecar', image: 'proxy:1' },
    ]);
  });

  it('strategic merge: $patch delete removes one list element, $patch replace a whole list, finalizers merge as a set', async () => {
    const containers = [{ name: 'main' }, { name: 'sidecar' }];
    await call(api, DEPLOYMENT, {
      method: 'PATCH',
      body: {
        metadata: { finalizers: ['example.com/a'] },
        spec: { template: { spec: { containers, volumes: [{ name: 'v1' }, { name: 'v2' }] } } },
      },
    });

    const response = await call(api, DEPLOYMENT, {
      method: 'PATCH',
      body: {
        metadata: { finalizers: ['example.com/b'] },
        spec: {
          template: {
            spec: {
              containers: [{ name: 'sidecar', $patch: 'delete' }],
              volumes: [{ name: 'v3' }, { $patch: 'replace' }],
            },
          },
        },
      },
      contentType: 'application/strategic-merge-patch+json',
    });

    const after = response.json() as {
      metadata: { finalizers: string[] };
      spec: { template: { spec: { containers: unknown[]; volumes: unknown[] } } };
    };
    expect(after.spec.template.spec.containers).toEqual([{ name: 'main' }]);
    expect(after.spec.template.spec.volumes).toEqual([{ name: 'v3' }]);
    expect(after.metadata.finalizers).toEqual(['example.com/a', 'example.com/b']);
  });

  it('a merge patch (RFC 7386) still replaces lists whole', async () => {
    await call(api, DEPLOYMENT, {
      method: 'PATCH',
      body: { spec: { template: { spec: { containers: [{ name: 'main' }, { name: 'sidecar' }] } } } },
    });

    const response = await call(api, DEPLOYMENT, {
      method: 'PATCH',
      body: { spec: { template: { spec: { containers: [{ name: 'main', image: 'app:2' }] } } } },
    });

    const spec = (response.json() as { spec: { template: { spec: { containers: unknown[] } } } }).spec.template.spec;
    expect(spec.containers).toEqual([{ name: 'main', image: 'app:2' }]);
  });

  it("a strategic merge patch of a custom resource (a NodePool) is refused with the API server's 415", async () => {
    const response = await call(api, '/apis/karpenter.sh/v1/nodepools/default', {
      method: 'PATCH',
      body: { metadata: { annotations: { a: 'b' } } },
      contentType: 'application/strategic-merge-patch+json',
    });

    expect(response.status).toBe(415);
    expect(response.json()).toMatchObject({
      reason: 'UnsupportedMediaType',
      message:
        'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
    });
  });

  it('merge patch null deletes a key', async () => {
    const response = await call(api, DEPLOYMENT, {
      method: 'PATCH',
      body: { spec: { template: { metadata: { annotations: { [RESTARTED_AT]: null } } } } },
    });

    expect((response.json() as unknown as Deployment).spec.template.metadata.annotations).toEqual({});
  });

  it('JSON patch applies its operations in order, and a failed test is 422 with nothing written', async () => {
    const before = await getDeployment();

    const applied = await call(api, DEPLOYMENT, {
      method: 'PATCH',
      contentType: 'application/json-patch+json',
      body: [
        { op: 'test', path: '/spec/replicas', value: 2 },
        { op: 'replace', path: '/spec/replicas', value: 3 },
        { op: 'add', path: '/metadata/annotations', value: { 'a/b': 'c' } },
        { op: 'add', path: '/metadata/annotations/x~1y', value: 'z' },
      ],
    });
    const failed = await call(api, DEPLOYMENT, {
      method: 'PATCH',
      contentType: 'application/json-patch+json',
      body: [
        { op: 'replace', path: '/spec/replicas', value: 9 },
        { op: 'test', path: '/spec/replicas', value: 2 },
      ],
    });

    expect(applied.status).toBe(200);
    expect((applied.json() as unknown as Deployment).spec.replicas).toBe(3);
    expect((applied.json() as unknown as Deployment).metadata.annotations).toEqual({ 'a/b': 'c', 'x/y': 'z' });
    expect(failed.status).toBe(422);
    expect((await getDeployment()).spec.replicas).toBe(3);
    expect(before.spec.replicas).toBe(2);
  });

  it('409 Conflict when the patch carries a resourceVersion that is no longer current; the current one passes', async () => {
    const read = await getDeployment();
    const patchAt = (resourceVersion: string, value: string) =>
      call(api, DEPLOYMENT, {
        method: 'PATCH',
        body: { metadata: { resourceVersion }, spec: { template: { metadata: { annotations: { [RESTARTED_AT]: value } } } } },
      });

    const first = await patchAt(read.metadata.resourceVersion, '2026-01-02T00:00:00Z');
    const second = await patchAt(read.metadata.resourceVersion, '2026-01-03T00:00:00Z');

    expect(first.status).toBe(200);
    expect(second.status).toBe(409);
    expect(second.json()).toMatchObject({
      kind: 'Status',
      reason: 'Conflict',
      code: 409,
      message:
        'Operation cannot be fulfilled on deployments.apps "karpenter": the object has been modified; please apply your changes to the latest version and try again',
      details: { name: 'karpenter', group: 'apps', kind: 'deployments' },
    });
    expect((await getDeployment()).spec.template.metadata.annotations).toEqual({ [RESTARTED_AT]: '2026-01-02T00:00:00Z' });
  });

  it('of two concurrent patches at the same resourceVersion, exactly one is applied', async () => {
    const read = await getDeployment();
    const restart = (value: string) =>
      call(api, DEPLOYMENT, {
        method: 'PATCH',
        body: {
          metadata: { resourceVersion: read.metadata.resourceVersion },
          spec: { template: { metadata: { annotations: { [RESTARTED_AT]: value } } } },
        },
      });

    const results = await Promise.all([restart('2026-01-02T00:00:00Z'), restart('2026-01-02T00:00:01Z')]);

    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    expect((await getDeployment()).metadata.generation).toBe(2);
  });

  it('a patch that changes nothing writes nothing', async () => {
    const before = await getDeployment();

    const response = await call(api, DEPLOYMENT, { method: 'PATCH', body: { spec: { replicas: 2 } } });

    expect((response.json() as unknown as Deployment).metadata.resourceVersion).toBe(before.metadata.resourceVersion);
  });

  it('dryRun=All answers with the result and stores nothing', async () => {
    const response = await call(api, `${DEPLOYMENT}?dryRun=All`, { method: 'PATCH', body: { spec: { replicas: 5 } } });

    expect((response.json() as unknown as Deployment).spec.replicas).toBe(5);
    expect((await getDeployment()).spec.replicas).toBe(2);
  });

  it('refuses renames, unknown patch types, bodies that are not JSON, and missing objects', async () => {
    const rename = await call(api, DEPLOYMENT, { method: 'PATCH', body: { metadata: { name: 'other' } } });
    const apply = await call(api, DEPLOYMENT, { method: 'PATCH', body: 'x: 1', contentType: 'application/apply-patch+yaml' });
    const garbage = await call(api, DEPLOYMENT, { method: 'PATCH', body: '{not json' });
    const missing = await call(api, '/apis/apps/v1/namespaces/karpenter/deployments/other', { method: 'PATCH', body: {} });

    expect(rename.status).toBe(422);
    expect(rename.json()).toMatchObject({ reason: 'Invalid', message: expect.stringContaining('field is immutable') });
    expect(apply.status).toBe(415);
    expect(garbage.status).toBe(400);
    expect(missing.status).toBe(404);
  });
});

describe('DELETE', () => {
  it('deletes a NodePool: Success status, then 404; deleting again is 404', async () => {
    const deleted = await call(api, '/apis/karpenter.sh/v1/nodepools/gpu', { method: 'DELETE' });
    const after = await call(api, '/apis/karpenter.sh/v1/nodepools/gpu');
    const again = await call(api, '/apis/karpenter.sh/v1/nodepools/gpu', { method: 'DELETE' });
    const list = (await call(api, '/apis/karpenter.sh/v1/nodepools')).json();

    expect(deleted.status).toBe(200);
    expect(deleted.json()).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'gpu', group: 'karpenter.sh' } });
    expect(after.status).toBe(404);
    expect(again.status).toBe(404);
    expect(list.items?.map((i) => (i.metadata as { name: string }).name)).toEqual(['default']);
  });

  it('deletes a pod, and its log with it', async () => {
    const path = '/api/v1/namespaces/karpenter/pods/karpenter-5697769d6c-a';
    api.store.setPodLog('karpenter', 'karpenter-5697769d6c-a', ['line']);

    const deleted = await call(api, path, { method: 'DELETE' });

    expect(deleted.status).toBe(200);
    expect((await call(api, path)).status).toBe(404);
    expect((await call(api, `${path}/log`)).status).toBe(404);
  });

  it('409 when a precondition does not hold', async () => {
    const response = await call(api, '/apis/karpenter.sh/v1/nodepools/default', {
      method: 'DELETE',
      contentType: 'application/json',
      body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { resourceVersion: '1' } },
    });

    expect(response.status).toBe(409);
    expect((await call(api, '/apis/karpenter.sh/v1/nodepools/default')).status).toBe(200);
  });
});
