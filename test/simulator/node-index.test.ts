/**
 * Pod lists by `spec.nodeName=X` read the store's per-node index; every write must keep it right.
 * Each check compares the indexed answer with the same selection made over the whole list, so a
 * pod left under its old node (or dropped from its new one) fails here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKubeApiServer, type SimulatedKubeApi } from '../../src/simulator/kube-api-server.ts';
import { storeFromSnapshot } from '../../src/simulator/seed.ts';
import { snapshotOf } from '../factories/aws.ts';
import { pod } from '../factories/kube.ts';
import { call, listAll, namesOf } from './support/https-client.ts';

const NODES = ['n1', 'n2', 'n3', ''];
const NAMESPACES = ['alpha', 'beta'];

/** 2 namespaces × 12 pods on n1, n2 or no node, labelled app=a or app=b. */
const seeded = NAMESPACES.flatMap((namespace) =>
  Array.from({ length: 12 }, (_, i) => {
    const nodeName = NODES[i % 3] ?? '';
    return pod({
      name: `p-${String(i).padStart(2, '0')}`,
      namespace,
      labels: { app: i % 2 === 0 ? 'a' : 'b' },
      ...(nodeName ? { nodeName } : {}),
    });
  }),
);

let api: SimulatedKubeApi;

beforeAll(async () => {
  api = await startKubeApiServer(storeFromSnapshot(snapshotOf({ pods: seeded })));
});

afterAll(() => api.close());

type Item = Record<string, unknown>;

function nodeOf(item: Item): string {
  const spec = item.spec as { nodeName?: string } | undefined;
  return spec?.nodeName ?? '';
}

function appOf(item: Item): string | undefined {
  return (item.metadata as { labels?: Record<string, string> } | undefined)?.labels?.app;
}

function namespaceOf(item: Item): string | undefined {
  return (item.metadata as { namespace?: string } | undefined)?.namespace;
}

async function ok(path: string, options: Parameters<typeof call>[2] = {}): Promise<void> {
  const response = await call(api, path, options);
  expect(response.status, `${options.method ?? 'GET'} ${path}: ${response.text}`).toBeLessThan(300);
}

/** The pages an unindexed scan gives: full pages, plus an empty last one when the scan stopped before the list's end. */
function scanPages(matches: readonly Item[], scope: readonly Item[], limit: number): number {
  if (matches.length === 0) return 1;
  const stoppedEarly = matches.length % limit === 0 && matches.at(-1) !== scope.at(-1);
  return Math.ceil(matches.length / limit) + (stoppedEarly ? 1 : 0);
}

/** Every per-node list (all namespaces and one; with a label selector and another field term; paged) against a scan of the whole list. */
async function expectIndexMatchesScan(): Promise<void> {
  const whole = (await call(api, '/api/v1/pods')).json().items ?? [];
  for (const namespace of [undefined, 'alpha']) {
    const base = namespace ? `/api/v1/namespaces/${namespace}/pods` : '/api/v1/pods';
    const scope = whole.filter((p) => namespace === undefined || namespaceOf(p) === namespace);
    for (const node of NODES) {
      const selections: [string, (item: Item) => boolean][] = [
        [`fieldSelector=${encodeURIComponent(`spec.nodeName=${node}`)}`, () => true],
        [`fieldSelector=${encodeURIComponent(`spec.nodeName=${node}`)}&labelSelector=app%3Da`, (p) => appOf(p) === 'a'],
        [
          `fieldSelector=${encodeURIComponent(`metadata.namespace!=beta,spec.nodeName==${node}`)}`,
          (p) => namespaceOf(p) !== 'beta',
        ],
      ];
      for (const [query, alsoMatches] of selections) {
        const matches = scope.filter((p) => nodeOf(p) === node && alsoMatches(p));
        const path = `${base}?${query}`;
        const unpaged = await call(api, path);
        expect(namesOf(unpaged.json().items ?? []), path).toEqual(namesOf(matches));
        expect(unpaged.json().metadata?.continue, path).toBeUndefined();
        for (const limit of [1, 2, 3, 50]) {
          const paged = await listAll(api, path, limit);
          expect(namesOf(paged.items), `${path} limit=${limit}`).toEqual(namesOf(matches));
          expect(paged.pages, `${path} limit=${limit}`).toBe(scanPages(matches, scope, limit));
        }
      }
    }
  }
}

describe('pod lists by spec.nodeName', () => {
  it('answer as a scan of every pod does, after seeding', async () => {
    await expectIndexMatchesScan();
  });

  it('see created pods, on a node and unscheduled', async () => {
    await ok('/api/v1/namespaces/alpha/pods', {
      method: 'POST',
      body: pod({ name: 'new-on-n3', namespace: 'alpha', nodeName: 'n3' }),
    });
    await ok('/api/v1/namespaces/beta/pods', { method: 'POST', body: pod({ name: 'a-new-pending', namespace: 'beta' }) });

    await expectIndexMatchesScan();
  });

  it('follow a pod moved to another node by PUT and by PATCH, and not by a dry-run PATCH', async () => {
    const current = (await call(api, '/api/v1/namespaces/alpha/pods/p-00')).json();
    const moved = { ...current, spec: { ...(current.spec as object), nodeName: 'n2' } };
    await ok('/api/v1/namespaces/alpha/pods/p-00', { method: 'PUT', body: moved, contentType: 'application/json' });
    await ok('/api/v1/namespaces/beta/pods/p-01', { method: 'PATCH', body: { spec: { nodeName: 'n3' } } });
    await ok('/api/v1/namespaces/beta/pods/p-02', { method: 'PATCH', body: { spec: { nodeName: 'n1' } } });
    await ok('/api/v1/namespaces/alpha/pods/p-04?dryRun=All', { method: 'PATCH', body: { spec: { nodeName: 'n3' } } });

    const onN2 = (await call(api, '/api/v1/namespaces/alpha/pods?fieldSelector=spec.nodeName%3Dn2')).json();
    const onN3 = (await call(api, '/api/v1/namespaces/alpha/pods?fieldSelector=spec.nodeName%3Dn3')).json();
    expect(namesOf(onN2.items ?? [])).toContain('alpha/p-00');
    expect(namesOf(onN3.items ?? [])).not.toContain('alpha/p-04');
    await expectIndexMatchesScan();
  });

  it('follow a pod whose labels change on the same node, and one that leaves every node', async () => {
    await ok('/api/v1/namespaces/alpha/pods/p-06', { method: 'PATCH', body: { metadata: { labels: { app: 'b' } } } });
    await ok('/api/v1/namespaces/alpha/pods/p-05', { method: 'PATCH', body: { spec: { nodeName: null } } });

    await expectIndexMatchesScan();
  });

  it('drop deleted pods', async () => {
    await ok('/api/v1/namespaces/alpha/pods/p-00', { method: 'DELETE' });
    await ok('/api/v1/namespaces/alpha/pods/new-on-n3', { method: 'DELETE' });
    await ok('/api/v1/namespaces/beta/pods/p-02', { method: 'DELETE' });

    const onN1 = (await call(api, '/api/v1/pods?fieldSelector=spec.nodeName%3Dn1')).json();
    expect(namesOf(onN1.items ?? [])).not.toContain('beta/p-02');
    await expectIndexMatchesScan();
  });
});
