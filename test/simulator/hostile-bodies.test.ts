import type { IncomingHttpHeaders } from 'node:http';
import { request } from 'node:https';
import { gunzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startKubeApiServer, type SimulatedKubeApi } from '../../src/simulator/kube-api-server.ts';
import { storeFromSnapshot } from '../../src/simulator/seed.ts';
import { snapshotOf } from '../factories/aws.ts';
import { node } from '../factories/kube.ts';
import { call } from './support/https-client.ts';

let api: SimulatedKubeApi;
const NODES = '/api/v1/nodes';
const KiB = 1024;

beforeAll(async () => {
  api = await startKubeApiServer(storeFromSnapshot(snapshotOf({ nodes: [node({ name: 'n1' })] })));
});
afterEach(() => api.faults.clear());
afterAll(() => api.close());

/** The raw bytes of a GET (no decoding), read to the end. */
function raw(path: string): Promise<{ headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, api.url);
    const req = request(url, { ca: api.caPem, headers: { Authorization: `Bearer ${api.token}` } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('hostile bodies', () => {
  it('oversize: a valid list of exactly the bytes asked for, with its Content-Length', async () => {
    api.faults.add({ path: NODES, body: { kind: 'oversize', bytes: 300 * KiB } });

    const { headers, body } = await raw(NODES);

    expect(headers['content-length']).toBe(String(300 * KiB));
    expect(body.length).toBe(300 * KiB);
    expect(JSON.parse(body.toString())).toMatchObject({ kind: 'List', items: [] });
  });

  it('endless: streams with no Content-Length, and stops at its own bound so a test cannot run forever', async () => {
    api.faults.add({ path: NODES, body: { kind: 'endless', maxBytes: 200 * KiB } });

    const { headers, body } = await raw(NODES);

    expect(headers['content-length']).toBeUndefined();
    expect(body.length).toBe(200 * KiB);
  });

  it('gzip bomb: Content-Encoding gzip, a small body unpacking to the size asked for', async () => {
    api.faults.add({ path: NODES, body: { kind: 'gzip-bomb', unpackedBytes: 4 * 1024 * KiB } });

    const { headers, body } = await raw(NODES);
    const unpacked = gunzipSync(body);

    expect(headers['content-encoding']).toBe('gzip');
    expect(body.length).toBeLessThan(64 * KiB);
    expect(unpacked.length).toBe(4 * 1024 * KiB);
    expect(JSON.parse(unpacked.toString())).toMatchObject({ kind: 'List', items: [] });
  });

  it('endless continue: every page is empty and names a continue token never seen before', async () => {
    api.faults.add({ path: NODES, body: { kind: 'endless-continue' } });

    const tokens = [];
    for (let i = 0; i < 3; i++) tokens.push((await call(api, `${NODES}?limit=1`)).json().metadata?.continue);

    expect(new Set(tokens).size).toBe(3);
    expect(tokens.every((t) => typeof t === 'string' && t !== '')).toBe(true);
  });

  it('counts the bytes it sent', async () => {
    api.faults.add({ path: NODES, body: { kind: 'oversize', bytes: 100 * KiB }, times: 1 });
    api.stats.reset();

    await raw(NODES);

    expect(api.stats.bytesSent).toBe(100 * KiB);
  });
});
