import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKubeApiServer, type SimulatedKubeApi } from '../../src/simulator/kube-api-server.ts';
import { storeFromSnapshot } from '../../src/simulator/seed.ts';
import { snapshotOf } from '../factories/aws.ts';
import { pod } from '../factories/kube.ts';
import { call, listAll, namesOf } from './support/https-client.ts';

let api: SimulatedKubeApi;
/** 3 namespaces × 17 pods; every third pod Pending. */
const pods = ['alpha', 'alpha-b', 'beta'].flatMap((namespace) =>
  Array.from({ length: 17 }, (_, i) =>
    pod({ name: `p-${String(i).padStart(2, '0')}`, namespace, ...(i % 3 === 0 ? {} : { nodeName: 'n1' }) }),
  ),
);
/** Namespace, then name: `alpha` before `alpha-b`, whatever `/` sorts like. */
const expected = pods.map((p) => `${p.metadata?.namespace}/${p.metadata?.name}`);

beforeAll(async () => {
  api = await startKubeApiServer(storeFromSnapshot(snapshotOf({ pods })));
});

afterAll(() => api.close());

describe('limit + continue', () => {
  it.each([1, 5, 17, 50, 51, 500])('pages of %i cover every object exactly once, in order', async (limit) => {
    const { items, pages } = await listAll(api, '/api/v1/pods', limit);

    expect(namesOf(items)).toEqual(expected);
    expect(pages).toBe(Math.max(1, Math.ceil(expected.length / limit)));
  });

  it('pages one namespace and a selection', async () => {
    const alpha = await listAll(api, '/api/v1/namespaces/alpha/pods', 4);
    const pending = await listAll(api, '/api/v1/pods?fieldSelector=status.phase%3DPending', 4);

    expect(namesOf(alpha.items)).toEqual(expected.filter((n) => n.startsWith('alpha/')));
    expect(namesOf(pending.items)).toEqual(expected.filter((n) => Number(n.slice(-2)) % 3 === 0));
  });

  it('says how many items remain on unselected lists, and keeps the first page resourceVersion', async () => {
    const first = (await call(api, '/api/v1/pods?limit=10')).json();
    const second = (await call(api, `/api/v1/pods?limit=10&continue=${String(first.metadata?.continue)}`)).json();

    expect(first.metadata).toMatchObject({ remainingItemCount: 41, continue: expect.any(String) });
    expect(second.metadata?.resourceVersion).toBe(first.metadata?.resourceVersion);
    expect(second.metadata?.remainingItemCount).toBe(31);
  });

  it('410 Gone on a continue token that is not one, or that belongs to another list', async () => {
    const nodesPage = (await call(api, '/api/v1/namespaces/alpha/pods?limit=2')).json();

    const garbage = await call(api, '/api/v1/pods?limit=2&continue=bm90LWEtdG9rZW4');
    const otherList = await call(api, `/api/v1/pods?limit=2&continue=${String(nodesPage.metadata?.continue)}`);

    expect(garbage.status).toBe(410);
    expect(garbage.json()).toMatchObject({ kind: 'Status', reason: 'Expired', code: 410 });
    expect(otherList.status).toBe(410);
  });

  it('410 Gone on a token issued before the store was compacted; a new list works', async () => {
    const first = (await call(api, '/api/v1/pods?limit=2')).json();
    api.store.compact();

    const expired = await call(api, `/api/v1/pods?limit=2&continue=${String(first.metadata?.continue)}`);
    const fresh = await listAll(api, '/api/v1/pods', 20);

    expect(expired.status).toBe(410);
    expect(expired.json().message).toMatch(/too old to display a consistent list result/);
    expect(namesOf(fresh.items)).toEqual(expected);
  });
});
