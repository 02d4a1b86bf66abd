/**
 * Every write the simulated API server takes (create, replace, patch) refuses labels or
 * annotations that are not maps of strings, as the API server validates them: 422 Invalid naming
 * the field, and nothing stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKubeApiServer, type SimulatedKubeApi } from '../../src/simulator/kube-api-server.ts';
import { storeFromSnapshot } from '../../src/simulator/seed.ts';
import { snapshotOf } from '../factories/aws.ts';
import { nodePool } from '../factories/karpenter.ts';
import { pod } from '../factories/kube.ts';
import { call } from './support/https-client.ts';

const POD_PATH = '/api/v1/namespaces/shop/pods/web-1';
const NODEPOOL_PATH = '/apis/karpenter.sh/v1/nodepools/spot-pool';
let api: SimulatedKubeApi;

beforeAll(async () => {
  const snapshot = snapshotOf({
    pods: [pod({ name: 'web-1', namespace: 'shop', nodeName: 'n1' })],
    nodePools: [nodePool({ name: 'spot-pool' })],
  });
  api = await startKubeApiServer(storeFromSnapshot(snapshot));
});

afterAll(() => api.close());

describe('labels and annotations on a write', () => {
  it('POST: a label that is not a string is 422, naming metadata.labels, and no pod is made', async () => {
    const response = await call(api, '/api/v1/namespaces/shop/pods', {
      method: 'POST',
      body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'raw', labels: { tier: 3 } }, spec: { containers: [] } },
      contentType: 'application/json',
    });

    expect(response.status).toBe(422);
    expect(response.json()).toMatchObject({
      message: expect.stringContaining('metadata.labels: Invalid value: must be a map of strings'),
    });
    expect((await call(api, '/api/v1/namespaces/shop/pods/raw')).status).toBe(404);
  });

  it('PUT: annotations that are not a map are 422, naming metadata.annotations, and the pod is unchanged', async () => {
    const current = (await call(api, POD_PATH)).json() as Record<string, unknown>;

    const response = await call(api, POD_PATH, {
      method: 'PUT',
      body: { ...current, metadata: { ...(current.metadata as object), annotations: ['not', 'a', 'map'] } },
      contentType: 'application/json',
    });

    expect(response.status).toBe(422);
    expect(response.json()).toMatchObject({
      message: expect.stringContaining('metadata.annotations: Invalid value: must be a map of strings'),
    });
    expect((await call(api, POD_PATH)).json()).toEqual(current);
  });

  it('PATCH: a label patched to a number is 422, naming metadata.labels', async () => {
    const response = await call(api, NODEPOOL_PATH, {
      method: 'PATCH',
      body: { metadata: { labels: { team: 7 } } },
      contentType: 'application/merge-patch+json',
    });

    expect(response.status).toBe(422);
    expect(response.json()).toMatchObject({
      message: expect.stringContaining('metadata.labels: Invalid value: must be a map of strings'),
    });
  });
});
