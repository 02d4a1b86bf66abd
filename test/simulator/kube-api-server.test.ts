import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKubeApiServer, type SimulatedKubeApi } from '../../src/simulator/kube-api-server.ts';
import { storeFromSnapshot } from '../../src/simulator/seed.ts';
import { snapshotOf } from '../factories/aws.ts';
import { nodeClaim, nodePool } from '../factories/karpenter.ts';
import { karpenterDeployment, karpenterPod, node, pod } from '../factories/kube.ts';
import { call } from './support/https-client.ts';

let api: SimulatedKubeApi;

beforeAll(async () => {
  const snapshot = snapshotOf({
    pods: [
      karpenterPod({ name: 'karpenter-5697769d6c-a', nodeName: 'n1' }),
      pod({ name: 'web-1', namespace: 'shop', labels: { app: 'web' }, nodeName: 'n1' }),
      pod({ name: 'web-2', namespace: 'shop', labels: { app: 'web' } }),
    ],
    deployments: [karpenterDeployment()],
    nodes: [node({ name: 'n1' })],
    nodeClaims: [nodeClaim({ name: 'default-abc', instanceId: 'i-0abc' })],
    nodePools: [nodePool({ name: 'default' })],
  });
  api = await startKubeApiServer(storeFromSnapshot(snapshot));
});

afterAll(() => api.close());

describe('discovery', () => {
  it('serves legacy discovery documents, also to clients asking for aggregated discovery', async () => {
    const aggregated = { Accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json' };

    const core = await call(api, '/api', { headers: aggregated });
    const groups = await call(api, '/apis', { headers: aggregated });
    const karpenter = await call(api, '/apis/karpenter.sh/v1');

    expect(core.headers['content-type']).toBe('application/json');
    expect(core.json()).toMatchObject({ kind: 'APIVersions', versions: ['v1'] });
    expect(groups.headers['content-type']).toBe('application/json');
    expect((groups.json().groups as { name: string }[]).map((g) => g.name)).toEqual(
      expect.arrayContaining(['apps', 'events.k8s.io', 'apiextensions.k8s.io', 'karpenter.sh', 'karpenter.k8s.aws']),
    );
    expect(karpenter.json()).toMatchObject({
      kind: 'APIResourceList',
      groupVersion: 'karpenter.sh/v1',
      resources: expect.arrayContaining([expect.objectContaining({ name: 'nodeclaims', kind: 'NodeClaim', namespaced: false })]),
    });
  });

  it('lists pods/log among the core resources and answers /version', async () => {
    const core = await call(api, '/api/v1');
    const version = await call(api, '/version');

    expect((core.json().resources as { name: string }[]).map((r) => r.name)).toEqual(
      expect.arrayContaining(['pods', 'pods/log', 'nodes', 'configmaps', 'services', 'namespaces']),
    );
    expect(version.json()).toMatchObject({ major: '1', minor: '32' });
  });
});

describe('GET and LIST', () => {
  it('returns one object in wire shape with apiVersion, kind, resourceVersion and uid', async () => {
    const response = await call(api, '/apis/apps/v1/namespaces/karpenter/deployments/karpenter');

    expect(response.status).toBe(200);
    expect(response.json()).toMatchObject({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'karpenter', namespace: 'karpenter', uid: 'uid-karpenter', generation: 1 },
    });
    expect(Number((response.json().metadata as { resourceVersion: string }).resourceVersion)).toBeGreaterThan(0);
  });

  it('lists built-in kinds with bare items (as the API does) and custom resources with apiVersion and kind', async () => {
    const pods = (await call(api, '/api/v1/pods')).json();
    const claims = (await call(api, '/apis/karpenter.sh/v1/nodeclaims')).json();

    expect(pods).toMatchObject({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: expect.any(String) } });
    expect(pods.items?.map((i) => i.kind)).toEqual([undefined, undefined, undefined]);
    expect(claims).toMatchObject({ kind: 'NodeClaimList', apiVersion: 'karpenter.sh/v1' });
    expect(claims.items).toEqual([expect.objectContaining({ apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim' })]);
  });

  it('lists one namespace, or all in namespace-then-name order, with selectors', async () => {
    const shop = (await call(api, '/api/v1/namespaces/shop/pods')).json();
    const all = (await call(api, '/api/v1/pods')).json();
    const pending = (await call(api, '/api/v1/pods?fieldSelector=status.phase%3DPending')).json();
    const controller = (await call(api, '/api/v1/pods?labelSelector=app.kubernetes.io%2Fname%3Dkarpenter')).json();

    const names = (list: typeof all) => list.items?.map((i) => (i.metadata as { name: string }).name);
    expect(names(shop)).toEqual(['web-1', 'web-2']);
    expect(names(all)).toEqual(['karpenter-5697769d6c-a', 'web-1', 'web-2']);
    expect(names(pending)).toEqual(['web-2']);
    expect(names(controller)).toEqual(['karpenter-5697769d6c-a']);
  });

  it("serves the system namespaces and its objects' namespaces", async () => {
    const namespaces = (await call(api, '/api/v1/namespaces')).json();

    expect(namespaces.items?.map((i) => (i.metadata as { name: string }).name)).toEqual([
      'default',
      'karpenter',
      'kube-node-lease',
      'kube-public',
      'kube-system',
      'shop',
    ]);
  });
});

describe('errors as Status objects', () => {
  it('404 NotFound names the missing object', async () => {
    const response = await call(api, '/apis/karpenter.sh/v1/nodepools/gpu');

    expect(response.status).toBe(404);
    expect(response.json()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'nodepools.karpenter.sh "gpu" not found',
      reason: 'NotFound',
      details: { name: 'gpu', group: 'karpenter.sh', kind: 'nodepools' },
      code: 404,
    });
  });

  it('404 for paths that are no resource', async () => {
    const unknown = await call(api, '/apis/karpenter.sh/v1/machines');
    const namespacedAtClusterScope = await call(api, '/api/v1/pods/web-1');

    expect(unknown.status).toBe(404);
    expect(unknown.json()).toMatchObject({ reason: 'NotFound', message: 'the server could not find the requested resource' });
    expect(namespacedAtClusterScope.status).toBe(404);
  });

  it('401 Unauthorized without the bearer token, or with another one', async () => {
    const without = await call(api, '/api/v1/pods', { token: null });
    const wrong = await call(api, '/api/v1/pods', { token: 'not-the-token' });

    expect(without.status).toBe(401);
    expect(without.json()).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Unauthorized', code: 401 });
    expect(wrong.status).toBe(401);
  });

  it('400 BadRequest for an unsupported field selector or a malformed label selector', async () => {
    const field = await call(api, '/api/v1/pods?fieldSelector=spec.priority%3D1');
    const label = await call(api, '/api/v1/pods?labelSelector=app%20in%20(web');

    expect(field.status).toBe(400);
    expect(field.json()).toMatchObject({
      kind: 'Status',
      reason: 'BadRequest',
      code: 400,
      message: 'field label not supported: spec.priority',
    });
    expect(label.status).toBe(400);
    expect(label.json()).toMatchObject({ reason: 'BadRequest' });
  });

  it('405 for methods a route does not take', async () => {
    const response = await call(api, '/api/v1/namespaces/default/pods/anything', {
      method: 'POST',
      body: {},
      contentType: 'application/json',
    });

    expect(response.status).toBe(405);
    expect(response.json()).toMatchObject({ reason: 'MethodNotAllowed', code: 405 });
  });
});

describe('kubeconfig and stats', () => {
  it('kubeconfig names the server, the CA inline and a bearer-token user', () => {
    const text = api.kubeconfig({ namespace: 'karpenter' });

    expect(text).toContain(`server: ${api.url}`);
    expect(text).toContain(`certificate-authority-data: ${Buffer.from(api.caPem).toString('base64')}`);
    expect(text).toContain(`token: ${api.token}`);
    expect(text).toContain('namespace: karpenter');
  });

  it('counts requests and bytes sent, and resets', async () => {
    api.stats.reset();

    const response = await call(api, '/api/v1/nodes');

    expect(api.stats.requests).toBe(1);
    expect(api.stats.bytesSent).toBe(Buffer.byteLength(response.text));
    api.stats.reset();
    expect(api.stats).toMatchObject({ requests: 0, bytesSent: 0 });
  });
});
