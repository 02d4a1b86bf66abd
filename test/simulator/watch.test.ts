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
});
