/** WATCH on the simulated API server, as client-go's reflector uses it (newline-delimited WatchEvents). */
import { request } from 'node:https';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startKubeApiServer, type SimulatedKubeApi } from '../../src/simulator/kube-api-server.ts';
import { storeFromSnapshot } from '../../src/simulator/seed.ts';
import { snapshotOf } from '../factories/aws.ts';
import { pod } from '../factories/kube.ts';
import { call } from './support/https-client.ts';

let api: SimulatedKubeApi;

beforeEach(async () => {
  api = await startKubeApiServer(
    storeFromSnapshot(snapshotOf({ pods: [pod({ name: 'a', namespace: 'shop', nodeName: 'n1' })] })),
  );
});

afterEach(() => api.close());

interface WatchEvent {
  type: string;
  object: { metadata?: { name?: string; resourceVersion?: string }; code?: number; message?: string };
}

/** Opens a watch; `events` fills as lines arrive, `ended` resolves when the server ends the stream. */
function watch(path: string) {
  const events: WatchEvent[] = [];
  let buffered = '';
  const ended = new Promise<number>((resolve, reject) => {
    const req = request(new URL(path, api.url), { ca: api.caPem, headers: { Authorization: `Bearer ${api.token}` } }, (res) => {
      res.on('data', (chunk: Buffer) => {
        buffered += chunk.toString('utf8');
        const lines = buffered.split('\n');
        buffered = lines.pop() ?? '';
        for (const line of lines) if (line !== '') events.push(JSON.parse(line) as WatchEvent);
      });
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
  return { events, ended };
}

async function until(ready: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !ready(); i++) await new Promise((resolve) => setTimeout(resolve, 50));
}

describe('WATCH', () => {
  it('sends ADDED for what exists, then MODIFIED and DELETED as objects change through the API', async () => {
    const stream = watch('/api/v1/namespaces/shop/pods?watch=true');
    await until(() => stream.events.length === 1);

    await call(api, '/api/v1/namespaces/shop/pods/a', { method: 'PATCH', body: { metadata: { labels: { x: 'y' } } } });
    await call(api, '/api/v1/namespaces/shop/pods/a', { method: 'DELETE' });
    await until(() => stream.events.length === 3);
    await api.close();

    expect(await stream.ended).toBe(200);
    expect(stream.events.map((e) => [e.type, e.object.metadata?.name])).toEqual([
      ['ADDED', 'a'],
      ['MODIFIED', 'a'],
      ['DELETED', 'a'],
    ]);
  });

  it('from a resourceVersion, replays only the writes after it', async () => {
    const listed = (await call(api, '/api/v1/namespaces/shop/pods')).json().metadata?.resourceVersion as string;
    await call(api, '/api/v1/namespaces/shop/pods/a', { method: 'PATCH', body: { metadata: { labels: { x: 'y' } } } });

    const stream = watch(`/api/v1/namespaces/shop/pods?watch=true&resourceVersion=${listed}&timeoutSeconds=1`);

    expect(await stream.ended).toBe(200);
    expect(stream.events.map((e) => e.type)).toEqual(['MODIFIED']);
  });

  it('ends the stream after timeoutSeconds', async () => {
    const stream = watch('/api/v1/pods?watch=1&timeoutSeconds=1');

    expect(await stream.ended).toBe(200);
    expect(stream.events.map((e) => e.type)).toEqual(['ADDED']);
  });

  it('a bad timeoutSeconds is a 400 before any stream', async () => {
    const response = await call(api, '/api/v1/pods?watch=true&timeoutSeconds=soon');

    expect(response.status).toBe(400);
  });

  it('from a forgotten resourceVersion, ends with one 410 ERROR naming the oldest version it can still replay', async () => {
    for (let i = 0; i < 1005; i++) api.store.put('configmaps', { metadata: { name: `c${i % 3}`, namespace: 'shop' } });
    const oldestReplayable = Number(api.store.resourceVersion) - 1000 + 1;

    const expired = await call(api, '/api/v1/namespaces/shop/pods?watch=true&resourceVersion=2');
    const next = await call(api, '/api/v1/namespaces/shop/pods');

    expect(expired.status).toBe(200);
    const lines = expired.text.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '')).toEqual({
      type: 'ERROR',
      object: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: `too old resource version: 2 (${oldestReplayable - 1})`,
        reason: 'Expired',
        code: 410,
      },
    });
    // The keep-alive connection survives the expired watch: the next request is answered on it.
    expect(next.status).toBe(200);
  });

  it.each(['0', '3000000'])(
    'timeoutSeconds=%s keeps the watch open (0 is the default; huge values are capped)',
    async (seconds) => {
      const stream = watch(`/api/v1/namespaces/shop/pods?watch=true&timeoutSeconds=${seconds}`);
      await until(() => stream.events.length === 1);

      await call(api, '/api/v1/namespaces/shop/pods/a', { method: 'PATCH', body: { metadata: { labels: { x: 'y' } } } });
      await until(() => stream.events.length === 2);
      await api.close();

      expect(await stream.ended).toBe(200);
      expect(stream.events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED']);
    },
  );

  it('a bad resourceVersion or label selector is a 400 before any stream', async () => {
    const version = await call(api, '/api/v1/pods?watch=true&resourceVersion=latest');
    const selector = await call(api, '/api/v1/pods?watch=true&labelSelector=a%20b%20c');

    expect([version.status, selector.status]).toEqual([400, 400]);
    expect(version.json().message).toBe('resourceVersion: Invalid value: "latest": must be an integer');
  });
});
