import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { KubernetesApi } from '../../../src/adapters/kubernetes/kubernetes-api.ts';
import { KubeConflictError } from '../../../src/ports/errors.ts';
import { NO_WAIT_CLOCK } from '../../support/clock.ts';

// The simulator drops connections before serving a request; this case needs a write that landed
// and whose answer was lost, so a throwaway server plays it.
const TLS = new URL('../../../src/simulator/tls/', import.meta.url);
const RESTARTED_AT = '2026-01-01T00:10:00Z';

function deployment(restartedAt: string) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'karpenter', namespace: 'karpenter', resourceVersion: '8' },
    spec: { template: { metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': restartedAt } } } },
  };
}

describe('patchDeploymentAnnotations when the first answer is lost', () => {
  let server: Server | undefined;
  afterEach(() => {
    server?.closeAllConnections();
    server?.close();
  });

  /** First PATCH is applied but its connection dropped; the retry then conflicts with our own write. */
  async function start(storedRestartedAt: string): Promise<{ api: KubernetesApi; patches: string[] }> {
    const patches: string[] = [];
    server = createServer(
      { key: readFileSync(new URL('server.key', TLS)), cert: readFileSync(new URL('server.crt', TLS)) },
      (req, res) => {
        if (req.method === 'PATCH') {
          patches.push(String(req.headers['content-type']));
          if (patches.length === 1) return void req.socket.destroy();
          res.writeHead(409, { 'Content-Type': 'application/json' });
          return void res.end(JSON.stringify({ kind: 'Status', message: 'the object has been modified', code: 409 }));
        }
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(deployment(storedRestartedAt)));
      },
    );
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const config = new KubeConfig();
    config.loadFromClusterAndUser(
      {
        name: 'throwaway',
        server: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
        caData: readFileSync(new URL('ca.crt', TLS)).toString('base64'),
        skipTLSVerify: false,
      },
      { name: 'user', token: 'token' },
    );
    const api = new KubernetesApi(config, { clock: NO_WAIT_CLOCK });
    return { api, patches };
  }

  const patch = {
    namespace: 'karpenter',
    name: 'karpenter',
    resourceVersion: '7',
    templateAnnotations: { 'kubectl.kubernetes.io/restartedAt': RESTARTED_AT },
  };

  it('counts as done when the Deployment already carries our values', async () => {
    const { api, patches } = await start(RESTARTED_AT);

    const result = await api.patchDeploymentAnnotations(patch);

    expect(patches).toEqual(['application/merge-patch+json', 'application/merge-patch+json']);
    expect(result).toMatchObject(deployment(RESTARTED_AT));
    api.close();
  });

  it('is a conflict when someone else wrote in between', async () => {
    const { api } = await start('2026-01-01T00:09:00Z');

    await expect(api.patchDeploymentAnnotations(patch)).rejects.toBeInstanceOf(KubeConflictError);
    api.close();
  });
});
