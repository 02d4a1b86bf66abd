/**
 * An API server that accepts the connection but never completes TLS behaves, for the client, like a
 * private EKS endpoint whose packets are dropped: the scan must say so in seconds, once, not wait
 * out a timeout per request per retry.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { KubernetesApi } from '../../../src/adapters/kubernetes/kubernetes-api.ts';
import { kubeConfigForEks } from '../../../src/adapters/kubernetes/kubeconfig.ts';
import { KubeUnreachableError } from '../../../src/ports/errors.ts';

const CA = readFileSync(new URL('../../../src/simulator/tls/ca.crt', import.meta.url), 'utf8');
let server: Server | undefined;
const sockets: Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
});

async function silentServer(): Promise<{ url: string; connections: () => number }> {
  let connections = 0;
  server = createServer((socket) => {
    connections++;
    sockets.push(socket);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { url: `https://127.0.0.1:${address.port}`, connections: () => connections };
}

describe('KubernetesApi against a server that never answers the handshake', () => {
  it('fails fast as unreachable, without retries, and the other calls fail at once', async () => {
    const { url, connections } = await silentServer();
    const config = kubeConfigForEks(
      { name: 'private', endpoint: url, certificateAuthority: Buffer.from(CA).toString('base64') },
      { token: async () => 'token' },
    );
    const api = new KubernetesApi(config, { connectTimeoutMs: 200 });

    const first = await api.list({ resource: 'nodes' }).catch((e: unknown) => e);
    const second = await api.list({ resource: 'nodeclaims' }).catch((e: unknown) => e);
    api.close();

    expect(first).toBeInstanceOf(KubeUnreachableError);
    expect((first as Error).message).toBe(
      `cannot connect to ${url}: no connection within 200 ms (a private endpoint needs a network path to its VPC)`,
    );
    expect(second).toBe(first);
    expect(connections()).toBe(1);
  });
});
