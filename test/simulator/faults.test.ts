import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startKubeApiServer, type SimulatedKubeApi } from '../../src/simulator/kube-api-server.ts';
import { storeFromSnapshot } from '../../src/simulator/seed.ts';
import { snapshotOf } from '../factories/aws.ts';
import { nodeClaim } from '../factories/karpenter.ts';
import { node } from '../factories/kube.ts';
import { call } from './support/https-client.ts';

let api: SimulatedKubeApi;
const NODECLAIMS = '/apis/karpenter.sh/v1/nodeclaims';

beforeAll(async () => {
  api = await startKubeApiServer(
    storeFromSnapshot(snapshotOf({ nodes: [node({ name: 'n1' })], nodeClaims: [nodeClaim({ name: 'c1' })] })),
  );
});

afterEach(() => api.faults.clear());
afterAll(() => api.close());

describe('faults', () => {
  it('answers with the status a given number of times, then heals', async () => {
    const fault = api.faults.add({ method: 'GET', path: NODECLAIMS, status: 503, times: 2 });

    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await call(api, NODECLAIMS)).status);

    expect(statuses).toEqual([503, 503, 200]);
    expect(fault.hits).toBe(2);
    expect(api.faults.list()).toEqual([]);
  });

  it('sends Retry-After and a Status body with the reason the status implies', async () => {
    api.faults.add({ path: NODECLAIMS, status: 429, retryAfterSeconds: 2, times: 1 });

    const response = await call(api, NODECLAIMS);

    expect(response.status).toBe(429);
    expect(response.headers['retry-after']).toBe('2');
    expect(response.json()).toMatchObject({ kind: 'Status', reason: 'TooManyRequests', code: 429 });
  });

  it('matches the method, a RegExp path and a query predicate; other requests pass', async () => {
    api.faults.add({ method: 'GET', path: /^\/api\/v1\/nodes$/, query: (q) => q.has('continue'), status: 500 });

    const firstPage = await call(api, '/api/v1/nodes?limit=1');
    const nextPage = await call(api, '/api/v1/nodes?limit=1&continue=x');
    const oneNode = await call(api, '/api/v1/nodes/n1');

    expect(firstPage.status).toBe(200);
    expect(nextPage.status).toBe(500);
    expect(oneNode.status).toBe(200);
  });

  it('a standing fault holds until cleared', async () => {
    api.faults.add({ path: '/api/v1/nodes', status: 403, message: 'nodes is forbidden' });

    const during = [await call(api, '/api/v1/nodes'), await call(api, '/api/v1/nodes/n1'), await call(api, '/api/v1/nodes')];
    api.faults.clear();
    const after = await call(api, '/api/v1/nodes');

    expect(during.map((r) => r.status)).toEqual([403, 403, 403]);
    expect(during[0]?.json()).toMatchObject({ reason: 'Forbidden', message: 'nodes is forbidden' });
    expect(after.status).toBe(200);
  });

  it('drops the connection without an answer', async () => {
    api.faults.add({ path: NODECLAIMS, drop: true, times: 1 });

    await expect(call(api, NODECLAIMS)).rejects.toThrow(/socket hang up|ECONNRESET/);
    expect((await call(api, NODECLAIMS)).status).toBe(200);
  });

  it('adds latency, then serves the request', async () => {
    api.faults.add({ path: NODECLAIMS, latencyMs: 150, times: 1 });
    const started = performance.now();

    const response = await call(api, NODECLAIMS);

    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    expect(response.status).toBe(200);
  });

  it('removes one fault by handle', async () => {
    const fault = api.faults.add({ path: NODECLAIMS, status: 500 });
    api.faults.remove(fault);

    expect((await call(api, NODECLAIMS)).status).toBe(200);
  });
});
